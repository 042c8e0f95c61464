import { useEffect } from 'react';
import { useGetQueueCountsQuery } from '../../api/enhanced';

// How often the staff's queue counts are asked for again while the app is open.
export const QUEUE_COUNTS_REFRESH_MS = 60_000;

// The pending count of every staff queue, for the shell's links. Asked for once a minute while
// the tab is in front, again whenever the tab comes back into view, and after any decision in a
// queue (its tags, api/enhanced.ts). Only staff ask; everyone else gets nothing.
export function useQueueCounts(staff: boolean) {
  const query = useGetQueueCountsQuery({}, { skip: !staff, pollingInterval: QUEUE_COUNTS_REFRESH_MS, skipPollingIfUnfocused: true });
  const { refetch } = query;
  useEffect(() => {
    if (!staff) return;
    const onVisible = () => {
      if (document.visibilityState === 'visible') void refetch();
    };
    window.addEventListener('focus', onVisible);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      window.removeEventListener('focus', onVisible);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [staff, refetch]);
  return staff ? query.data : undefined;
}

import { useEffect } from 'react';
import { api } from '../api/enhanced';
import { positionSeen } from '../api/position';
import { useAppDispatch } from '../app/hooks';

// What a change to the user's money may have changed on screen.
export const LIVE_TAGS = ['Me', 'History', 'Dashboard', 'Deposit'] as const;

export const EVENTS_URL = '/api/users/events';

// How often the pages ask again when the event stream is not available.
export const POLL_MS = 15_000;

// Keeps the dashboard and the history current while they are open: the server's event stream
// says when the user's money changed (staff confirmed a deposit, say), and the queries showing it
// are invalidated. The notification's position is kept like a write's, so the refetch waits until
// every read model has the change (read-your-writes). While the stream is down the pages poll.
export function useLiveRefresh() {
  const dispatch = useAppDispatch();
  useEffect(() => {
    const refresh = () => dispatch(api.util.invalidateTags([...LIVE_TAGS]));
    const supported = typeof EventSource !== 'undefined';
    let stream: EventSource | null = null;
    let poll: ReturnType<typeof setInterval> | null = null;
    const stopPolling = () => {
      if (poll !== null) clearInterval(poll);
      poll = null;
    };
    const open = () => {
      const s = new EventSource(EVENTS_URL, { withCredentials: true });
      stream = s;
      s.addEventListener('ready', () => {
        // Anything missed while the stream was down is fetched once, then the stream takes over.
        if (poll !== null) refresh();
        stopPolling();
      });
      s.addEventListener('changed', (event) => {
        try {
          const { position } = JSON.parse((event as MessageEvent<string>).data) as { position?: unknown };
          if (typeof position === 'string') dispatch(positionSeen(position));
        } catch {
          // A notification without a position still means "ask again".
        }
        refresh();
      });
      // The browser reconnects by itself after a dropped connection; until it does, poll. A
      // refused one (a 401 once the access cookie expired) it gives up on: the polls' requests
      // renew the session, and each poll tries the stream again.
      s.addEventListener('error', () => {
        poll ??= setInterval(() => {
          refresh();
          if (stream?.readyState === EventSource.CLOSED) {
            stream.close();
            open();
          }
        }, POLL_MS);
      });
    };
    if (supported) open();
    else poll = setInterval(refresh, POLL_MS);
    return () => {
      stream?.close();
      stopPolling();
    };
  }, [dispatch]);
}

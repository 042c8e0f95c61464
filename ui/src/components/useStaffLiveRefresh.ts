import { useEffect } from 'react';
import { api } from '../api/enhanced';
import { positionSeen } from '../api/position';
import { useAppDispatch } from '../app/hooks';

export const STAFF_EVENTS_URL = '/api/staff/events';

// The cache tags of each queue the staff stream names (GET /api/staff/events, the names of the
// queue counts). The counts provide every one of them, so they are read again too.
export const QUEUE_TAGS = {
  deposits: 'DepositQueue',
  withdrawals: 'WithdrawalQueue',
  investments: 'InvestmentQueue',
  identityChecks: 'KycQueue',
  approvals: 'Proposal',
  supportTickets: 'SupportTicket',
  testimonials: 'TestimonialQueue',
} as const satisfies Record<string, string>;

type QueueName = keyof typeof QUEUE_TAGS;
const isQueue = (name: unknown): name is QueueName => typeof name === 'string' && Object.hasOwn(QUEUE_TAGS, name);

// Keeps the staff queues and their counts current while the app is open: the server says when
// a request arrives or anyone (another staff member included) decides one, and the queues named
// are read again, so a decided item leaves an open queue without a reload. The notification's
// position is kept like a write's, so the refetch waits until the read models have the change.
// While the stream is down the browser reconnects by itself, and the counts' own polling goes on.
export function useStaffLiveRefresh(staff: boolean) {
  const dispatch = useAppDispatch();
  useEffect(() => {
    if (!staff || typeof EventSource === 'undefined') return;
    const stream = new EventSource(STAFF_EVENTS_URL, { withCredentials: true });
    stream.addEventListener('changed', (event) => {
      let queues: QueueName[] = Object.keys(QUEUE_TAGS) as QueueName[];
      try {
        const data = JSON.parse((event as MessageEvent<string>).data) as {
          position?: unknown;
          queues?: unknown;
        };
        if (typeof data.position === 'string') dispatch(positionSeen(data.position));
        if (Array.isArray(data.queues)) queues = data.queues.filter(isQueue);
      } catch {
        // A notification it cannot read still means "ask again", every queue.
      }
      if (queues.length > 0) dispatch(api.util.invalidateTags(queues.map((q) => QUEUE_TAGS[q])));
    });
    return () => stream.close();
  }, [staff, dispatch]);
}

import type { DepositStatus } from '../../api/enhanced';

export { networkName, routeLabel } from '../../components/cryptoWords';

// USDT is taken at 1 USD; BTC and ETH have no price here, so the investor says how much they sent.
export const needsOnChainAmount = (asset: string) => asset !== 'USDT';

// How long a request has waited (every review queue shares the words).
export { waitedFor } from '../../components/format';

export function statusBadge(status: DepositStatus) {
  if (status === 'Confirmed') return 'badge badge--success';
  if (status === 'Rejected') return 'badge badge--danger';
  return 'badge badge--warning';
}

import type { DepositStatus } from '../../api/enhanced';

export { networkName, useRouteLabel } from '../../components/cryptoWords';

// USDT is taken at 1 USD; BTC and ETH have no price here, so the investor says how much they sent.
export const needsOnChainAmount = (asset: string) => asset !== 'USDT';

export function statusBadge(status: DepositStatus) {
  if (status === 'Confirmed') return 'badge badge--success';
  if (status === 'Rejected') return 'badge badge--danger';
  return 'badge badge--warning';
}

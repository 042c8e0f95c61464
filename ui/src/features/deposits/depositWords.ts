import type { DepositStatus } from '../../api/enhanced';

// "BTC on Bitcoin", "USDT on TRON (TRC-20)": how the deposit page names a route.
const networkNames: Record<string, string> = { BTC: 'Bitcoin', ERC20: 'Ethereum (ERC-20)', TRC20: 'TRON (TRC-20)' };

export function networkName(network: string) {
  return networkNames[network] ?? network;
}

export function routeLabel(asset: string, network: string) {
  return `${asset} on ${networkName(network)}`;
}

// USDT is taken at 1 USD; BTC and ETH have no price here, so the investor says how much they sent.
export const needsOnChainAmount = (asset: string) => asset !== 'USDT';

// How long a request has waited (deposits and investments share the words).
export { waitedFor } from '../../components/format';

export function statusBadge(status: DepositStatus) {
  if (status === 'Confirmed') return 'badge badge--success';
  if (status === 'Rejected') return 'badge badge--danger';
  return 'badge badge--warning';
}

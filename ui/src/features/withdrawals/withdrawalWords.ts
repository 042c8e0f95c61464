import type { WithdrawalStatus } from '../../api/enhanced';
import { useRouteLabel } from '../../components/cryptoWords';

// The networks a withdrawal can be paid on, and the coin each pays in (the server's default:
// USDT where the network carries it, bitcoin on Bitcoin).
export const payoutRoutes = [
  { network: 'TRC20', asset: 'USDT' },
  { network: 'ERC20', asset: 'USDT' },
  { network: 'BTC', asset: 'BTC' },
] as const;

// A payout network in words, "USDT on TRON (TRC-20)", in the reader's language.
export function usePayoutLabel() {
  const routeLabel = useRouteLabel();
  return (network: string) => {
    const route = payoutRoutes.find((r) => r.network === network);
    return route ? routeLabel(route.asset, route.network) : network;
  };
}

export function withdrawalBadge(status: WithdrawalStatus) {
  if (status === 'Approved') return 'badge badge--success';
  if (status === 'Rejected') return 'badge badge--danger';
  return 'badge badge--warning';
}

// Words for crypto routes and review queues, shared by the deposit and withdrawal pages.

// "BTC on Bitcoin", "USDT on TRON (TRC-20)": how the deposit page names a route.
const networkNames: Record<string, string> = { BTC: 'Bitcoin', ERC20: 'Ethereum (ERC-20)', TRC20: 'TRON (TRC-20)' };

export function networkName(network: string) {
  return networkNames[network] ?? network;
}

export function routeLabel(asset: string, network: string) {
  return `${asset} on ${networkName(network)}`;
}

// How long a request (a deposit, a withdrawal) has waited, from the server's count of seconds.
export function waitedFor(seconds: number) {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  if (minutes < 1) return 'waiting less than a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `waiting ${days} d ${hours} h`;
  if (hours > 0) return `waiting ${hours} h ${minutes % 60} min`;
  return `waiting ${minutes} min`;
}

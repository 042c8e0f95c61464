// Words for crypto routes, shared by the deposit and withdrawal pages.

// "BTC on Bitcoin", "USDT on TRON (TRC-20)": how the deposit page names a route.
const networkNames: Record<string, string> = { BTC: 'Bitcoin', ERC20: 'Ethereum (ERC-20)', TRC20: 'TRON (TRC-20)' };

export function networkName(network: string) {
  return networkNames[network] ?? network;
}

export function routeLabel(asset: string, network: string) {
  return `${asset} on ${networkName(network)}`;
}

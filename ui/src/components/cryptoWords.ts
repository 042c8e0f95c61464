import { useTranslation } from '../i18n';

// Words for crypto routes, shared by the deposit and withdrawal pages.

// The networks' own names, the same in every language.
const networkNames: Record<string, string> = { BTC: 'Bitcoin', ERC20: 'Ethereum (ERC-20)', TRC20: 'TRON (TRC-20)' };

export function networkName(network: string) {
  return networkNames[network] ?? network;
}

// "BTC on Bitcoin", "USDT on TRON (TRC-20)" (in German "USDT über TRON (TRC-20)"): how the
// deposit and withdrawal pages name a route.
export function useRouteLabel() {
  const { t } = useTranslation('common');
  return (asset: string, network: string) => t('route', { asset, network: networkName(network) });
}

// Money arrives as a decimal string ("1250.00") and is only ever formatted, never turned into a
// float: grouping the integer digits by hand keeps every cent exact.
export function formatUsd(amount: string | null | undefined) {
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec((amount ?? '').trim());
  if (!match) return '$0.00';
  const [, minus = '', whole = '0', fraction = ''] = match;
  const grouped = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = `${fraction}00`.slice(0, 2);
  return `${minus}$${grouped}.${cents}`;
}

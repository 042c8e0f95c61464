import { formatUsd, NO_AMOUNT } from './money';

// An amount as the user reads it. An unreadable amount shows the placeholder, and says in words
// that the amount is not available rather than reading out a dash.
export function Amount({ amount }: { amount: string | null | undefined }) {
  const shown = formatUsd(amount);
  if (shown !== NO_AMOUNT) return <>{shown}</>;
  return (
    <span title="Amount not available">
      <span aria-hidden="true">{NO_AMOUNT}</span>
      <span className="visually-hidden">Not available</span>
    </span>
  );
}

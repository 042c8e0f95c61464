import { Amount } from './Amount';
import { statusTone } from './historyWords';

// A signed amount with its sign written out, so a credit never reads like a debit.
export function Effect({ amount }: { amount: string }) {
  const negative = amount.trim().startsWith('-');
  const zero = /^[+-]?0+(\.0+)?$/.test(amount.trim());
  return (
    <span className={`history-effect${zero ? '' : negative ? ' history-effect--out' : ' history-effect--in'}`}>
      {zero || negative ? '' : '+'}
      <Amount amount={amount} />
    </span>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge--${statusTone(status)}`}>{status}</span>;
}

import { Amount } from './Amount';

// The badge tone of a status: settled in the user's favour, refused, or waiting.
export function statusTone(status: string): 'success' | 'danger' | 'warning' | 'neutral' {
  if (status === 'Pending') return 'warning';
  if (status === 'Rejected') return 'danger';
  if (['Confirmed', 'Approved', 'Active', 'Ended', 'Completed'].includes(status)) return 'success';
  return 'neutral';
}

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

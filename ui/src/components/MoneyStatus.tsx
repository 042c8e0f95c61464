import { Amount } from './Amount';
import { useLabels, type LabelKind } from './labels';

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

// A money status in words: the status of one kind of item (`kind`), or of the history's mixed
// list. The server's value only picks the tone.
export function StatusBadge({ status, kind = 'money' }: { status: string; kind?: Extract<LabelKind, 'money' | 'deposit' | 'withdrawal' | 'investment'> }) {
  const labels = useLabels();
  return <span className={`badge badge--${statusTone(status)}`}>{labels[kind](status)}</span>;
}

import type { InvestmentStatus, MaturityInstruction } from '../../api/enhanced';

export function investmentBadge(status: InvestmentStatus) {
  if (status === 'Active') return 'badge badge--success';
  if (status === 'Rejected') return 'badge badge--danger';
  if (status === 'Pending') return 'badge badge--warning';
  return 'badge';
}

// The status as the investor reads it; "Ended" after an early redemption says so.
export function statusText(status: InvestmentStatus, closedEarly: boolean) {
  if (status === 'Ended' && closedEarly) return 'Ended early';
  if (status === 'Pending') return 'Waiting for approval';
  return status;
}

export const instructionText: Record<MaturityInstruction, string> = {
  payout: 'Pay out to my wallet',
  reinvest: 'Reinvest on the same terms',
};

const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDate(iso: string | undefined) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateOnly.format(date);
}

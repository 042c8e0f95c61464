import type { TFunction } from 'i18next';
import type { Movement } from '../../api/enhanced';

// What a row says about a movement: its label, its status in words and the badge's tone, and
// where its detail page is. One place, so the history and the dashboard name movements alike.

type T = TFunction<'history'>;

export function movementLabel(m: Movement, t: T): string {
  const d = m.details;
  const plan = d.plan ?? '';
  switch (m.kind) {
    case 'deposit':
      return d.asset ? t('label.deposit', { asset: d.asset, network: d.network ?? '' }) : t('label.depositPlain');
    case 'investment':
      return d.reinvestedFrom ? t('label.reinvestment', { plan }) : t('label.investment', { plan });
    case 'withdrawal':
      return d.asset ? t('label.withdrawal', { asset: d.asset, network: d.network ?? '' }) : t('label.withdrawalPlain');
    case 'fee':
      return incoming(m) ? t('label.feeRefund') : t('label.fee');
    case 'return':
      return d.closedEarly ? t('label.returnEarly', { plan }) : t('label.return', { plan });
    case 'adjustment':
      return t('label.adjustment');
    case 'bonus':
      return t('label.bonus');
  }
  // A kind this version does not know (a newer server): a generic word, never the raw value.
  return t('label.other');
}

export function incoming(m: Movement) {
  return !m.amount.trim().startsWith('-');
}

// The status in words, for this kind of movement: what happened to it.
export function movementStatus(m: Movement, t: T): { text: string; tone: 'success' | 'warning' | 'danger' | 'neutral' } {
  switch (m.status) {
    case 'pending':
      if (m.kind === 'deposit') return { text: t('status.awaitingConfirmation'), tone: 'warning' };
      if (m.kind === 'fee') return { text: t('status.pending'), tone: 'warning' };
      return { text: t('status.awaitingApproval'), tone: 'warning' };
    case 'confirmed':
      return { text: t('status.credited'), tone: 'success' };
    case 'rejected':
      return { text: m.kind === 'deposit' ? t('status.rejected') : t('status.rejectedReturned'), tone: 'danger' };
    case 'active':
      return { text: t('status.active'), tone: 'success' };
    case 'matured':
      return { text: t('status.matured'), tone: 'neutral' };
    case 'closed':
      return { text: t('status.closed'), tone: 'neutral' };
    case 'completed':
      switch (m.kind) {
        case 'withdrawal':
          return { text: t('status.sent'), tone: 'neutral' };
        case 'fee':
          return incoming(m) ? { text: t('status.refunded'), tone: 'success' } : { text: t('status.charged'), tone: 'neutral' };
        case 'return':
          return { text: t('status.paidOut'), tone: 'success' };
        default:
          return incoming(m) ? { text: t('status.credited'), tone: 'success' } : { text: t('status.debited'), tone: 'neutral' };
      }
  }
  return { text: t('status.unknown'), tone: 'neutral' };
}

// The page a row opens, where the investor has one: deposits (their payment details, a
// rejection's reason included), investments (and their payouts) and withdrawals (and their fees).
export function movementLink(m: Movement): string | undefined {
  if (!m.subjectId) return undefined;
  if (m.kind === 'deposit') return `/transaction/${encodeURIComponent(m.subjectId)}`;
  if (m.kind === 'investment' || m.kind === 'return') return `/investment/${encodeURIComponent(m.subjectId)}`;
  if (m.kind === 'withdrawal' || m.kind === 'fee') return `/withdrawal/${encodeURIComponent(m.subjectId)}`;
  return undefined;
}

// A mark per kind; decoration only, the label says the kind in words.
export const KIND_ICON: Record<Movement['kind'], string> = {
  deposit: '↓',
  investment: '◆',
  withdrawal: '↑',
  fee: '%',
  return: '↩',
  adjustment: '±',
  bonus: '★',
};

// The row a link like /transaction-History?ref=INV-… points at: an investment's payout rather
// than the investment, a withdrawal rather than its fee.
export function highlightedKey(list: Movement[], ref: string | null): string | undefined {
  if (!ref) return undefined;
  const matches = list.filter((m) => m.reference === ref);
  const best = matches.find((m) => m.kind === 'return') ?? matches.find((m) => m.kind !== 'fee') ?? matches[0];
  return best ? rowKey(best) : undefined;
}

export function rowKey(m: Movement) {
  return `${m.kind}-${m.reference}-${m.createdAt}`;
}

// YYYY-MM-DD of a date in UTC, as the statement's dates are read.
export function utcDay(date: Date) {
  return date.toISOString().slice(0, 10);
}

// The file name the server gives a statement, for the file the browser saves.
export function statementFileName(from: string, to: string) {
  return from ? `clearvest-statement-${from}-to-${to}.csv` : `clearvest-statement-until-${to}.csv`;
}

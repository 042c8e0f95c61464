import type { HistoryItem, HistoryType } from '../api/enhanced';

// The item types in the order the filter lists them, with the words and the mark each card
// shows. The mark is decoration: the type is always written out too.
export const HISTORY_TYPES: readonly { type: HistoryType; label: string; icon: string }[] = [
  { type: 'Transaction', label: 'Deposit', icon: '↓' },
  { type: 'Investment', label: 'Investment', icon: '◆' },
  { type: 'Withdrawal', label: 'Withdrawal', icon: '↑' },
  { type: 'Adjustment', label: 'Adjustment', icon: '±' },
  { type: 'Fee', label: 'Fee', icon: '%' },
  { type: 'Bonus', label: 'Bonus', icon: '★' },
];

export function typeInfo(type: HistoryType) {
  return HISTORY_TYPES.find((t) => t.type === type) ?? { type, label: type, icon: '•' };
}

// The badge tone of a status: settled in the user's favour, refused, or waiting.
export function statusTone(status: string): 'success' | 'danger' | 'warning' | 'neutral' {
  if (status === 'Pending') return 'warning';
  if (status === 'Rejected') return 'danger';
  if (['Confirmed', 'Approved', 'Active', 'Ended', 'Completed'].includes(status)) return 'success';
  return 'neutral';
}

// The words a detail key is shown with in the details dialog; unknown keys show as they are.
const DETAIL_LABELS: Record<string, string> = {
  plan: 'Plan',
  planId: 'Plan ID',
  planVersion: 'Plan version',
  termDays: 'Term (days)',
  termRate: 'Return for the term',
  return: 'Return',
  principal: 'Principal',
  startDate: 'Start date',
  endDate: 'End date',
  asset: 'Asset',
  network: 'Network',
  address: 'Address',
  txHash: 'Transaction hash',
  onChainAmount: 'On-chain amount',
  usdRate: 'USD rate',
  receive: 'You receive',
  reason: 'Reason',
  notes: 'Notes',
  category: 'Category',
  decision: 'Staff decision',
  withdrawalId: 'Withdrawal',
};

export function detailLabel(key: string) {
  return DETAIL_LABELS[key] ?? key;
}

// A detail's value in words: a rate as a percentage, anything else as text.
export function detailValue(key: string, value: unknown): string {
  if (key === 'termRate' && typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)) {
    return `${(Number(value) * 100).toFixed(2).replace(/\.?0+$/, '')} %`;
  }
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

// The one line a card shows under its title: what people wrote, else where the money went.
export function summary(item: HistoryItem): string {
  const d = item.details as Record<string, unknown>;
  for (const key of ['reason', 'notes', 'plan', 'address']) {
    const v = d[key];
    if (typeof v === 'string' && v) return v;
  }
  return '';
}

// YYYY-MM-DD of a date in UTC, as the API's date filters read it.
export function utcDay(date: Date) {
  return date.toISOString().slice(0, 10);
}

// The file name the server gives a statement, for the file the browser saves.
export function statementFileName(from: string, to: string) {
  return from ? `clearvest-statement-${from}-to-${to}.csv` : `clearvest-statement-until-${to}.csv`;
}

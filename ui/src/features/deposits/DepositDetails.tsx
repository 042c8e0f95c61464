import type { ReactNode } from 'react';
import type { Deposit } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { useTranslation } from '../../i18n';
import { routeLabel, statusBadge } from './depositWords';

// A deposit's facts, for its owner and for staff.
export function DepositDetails({ deposit }: { deposit: Deposit }) {
  const { t } = useTranslation('deposits');
  const rows: [string, ReactNode][] = [
    ['Transaction ID', <strong data-testid="transaction-id">{deposit.transactionId}</strong>],
    [
      'Status',
      <span className={statusBadge(deposit.status)} data-testid="deposit-status">
        {deposit.status}
      </span>,
    ],
    ['Amount', <Amount amount={deposit.amount} />],
    ['Sent', `${deposit.onChainAmount} ${deposit.asset} (${routeLabel(deposit.asset, deposit.network)})`],
    ['To address', <code className="break-anywhere">{deposit.address}</code>],
  ];
  if (deposit.txHash) rows.push(['Transaction hash', <code className="break-anywhere">{deposit.txHash}</code>]);
  if (deposit.user) rows.push(['Investor', `${deposit.user.name} (${deposit.user.email})`]);
  rows.push(['Requested', formatDateTime(deposit.requestedAt)]);
  if (deposit.status === 'Confirmed') rows.push(['Credited', <Amount amount={deposit.received} />]);
  // A rejection's notes are its reason, which the investor is owed (docs/deposits.md).
  if (deposit.notes) rows.push([deposit.status === 'Rejected' ? t('details.reason') : t('details.notes'), <span data-testid="deposit-notes">{deposit.notes}</span>]);
  if (deposit.decidedAt) rows.push(['Decided', formatDateTime(deposit.decidedAt)]);
  return (
    <dl className="facts" data-testid="deposit-details">
      {rows.map(([term, value]) => (
        <div key={term} className="facts__row">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

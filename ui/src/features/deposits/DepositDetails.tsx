import type { ReactNode } from 'react';
import type { Deposit } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { useLabels } from '../../components/labels';
import { useTranslation } from '../../i18n';
import { statusBadge, useRouteLabel } from './depositWords';
import { ChainProgress, followedOnChain } from '../../components/ChainProgress';

// A deposit's facts, for its owner and for staff.
export function DepositDetails({ deposit }: { deposit: Deposit }) {
  const { t } = useTranslation('deposits');
  const labels = useLabels();
  const routeLabel = useRouteLabel();
  const rows: [string, ReactNode][] = [
    [t('details.transactionId'), <strong data-testid="transaction-id">{deposit.transactionId}</strong>],
    [
      t('details.status'),
      <span className="deposit-status">
        <span className={statusBadge(deposit.status)} data-testid="deposit-status">
          {labels.deposit(deposit.status)}
        </span>{' '}
        {followedOnChain(deposit) ? (
          <ChainProgress
            audience={deposit.user ? 'staff' : 'investor'}
            confirmations={deposit.confirmations}
            confirmationsNeeded={deposit.confirmationsNeeded}
          />
        ) : null}
      </span>,
    ],
    [t('details.amount'), <Amount amount={deposit.amount} />],
    [t('details.sent'), t('details.sentValue', { amount: deposit.onChainAmount, asset: deposit.asset, route: routeLabel(deposit.asset, deposit.network) })],
    [t('details.toAddress'), <code className="break-anywhere">{deposit.address}</code>],
  ];
  if (deposit.txHash) rows.push([t('details.txHash'), <code className="break-anywhere">{deposit.txHash}</code>]);
  if (deposit.user) rows.push([t('details.investor'), t('details.investorValue', { name: deposit.user.name, email: deposit.user.email })]);
  rows.push([t('details.requested'), formatDateTime(deposit.requestedAt)]);
  if (deposit.status === 'Confirmed') rows.push([t('details.credited'), <Amount amount={deposit.received} />]);
  // A rejection's notes are its reason, which the investor is owed (docs/deposits.md).
  if (deposit.notes) rows.push([deposit.status === 'Rejected' ? t('details.reason') : t('details.notes'), <span data-testid="deposit-notes">{deposit.notes}</span>]);
  if (deposit.decidedAt) rows.push([t('details.decided'), formatDateTime(deposit.decidedAt)]);
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

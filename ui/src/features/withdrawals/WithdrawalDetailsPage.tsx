import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import {
  useApproveWithdrawalMutation,
  useGetProposalsQuery,
  useGetWithdrawalQuery,
  useRejectWithdrawalMutation,
  type Withdrawal,
} from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { isDecimal } from '../../components/money';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { TextDecisionDialog } from '../../components/TextDecisionDialog';
import { CopyButton } from '../../components/CopyButton';
import { Trans, useTranslation } from '../../i18n';
import { useRunMutation } from '../../components/useRunMutation';
import { APPROVALS_PATH, pendingFor, proposalOf, useApprovalRules, withdrawalNeedsSecond } from '../../components/approvalWords';
import { useLabels } from '../../components/labels';
import { isStaff, useCurrentUser } from '../auth/session';
import { usePayoutLabel, withdrawalBadge } from './withdrawalWords';
import { PayoutOnChainBadge } from './PayoutOnChainBadge';

function CopyAddress({ text }: { text: string }) {
  const { t } = useTranslation('forms');
  return <CopyButton text={text} label={t('copy.address')} copiedMessage={t('copy.addressCopied')} />;
}

// A withdrawal's facts: everything staff need to decide, and its status for its owner.
function WithdrawalFacts({ w }: { w: Withdrawal }) {
  const { t } = useTranslation('withdrawals');
  const { t: tc } = useTranslation('corrections');
  const labels = useLabels();
  const payoutLabel = usePayoutLabel();
  const rows: [string, ReactNode][] = [
    [t('facts.reference'), <span className="movement__ref" data-testid="withdrawal-reference">{w.reference}</span>],
    [
      t('facts.status'),
      <span className={withdrawalBadge(w.status)} data-testid="withdrawal-status">
        {labels.withdrawal(w.status)}
      </span>,
    ],
  ];
  if (w.user) rows.push([t('facts.investor'), t('facts.investorValue', { name: w.user.name, email: w.user.email })]);
  rows.push(
    [t('facts.amount'), <Amount amount={w.amount} />],
    [t('facts.fee'), <Amount amount={w.fee} />],
  );
  // A fee staff waived (refunded) in full or in part: what came back to the available balance.
  if (isDecimal(w.feeWaived) && !w.feeWaived.startsWith('-') && /[1-9]/.test(w.feeWaived)) {
    rows.push([
      tc('investor.feeRefunded'),
      <span data-testid="withdrawal-fee-refunded">
        <Trans t={tc} i18nKey="investor.feeRefundedNote" components={{ amount: <Amount amount={w.feeWaived} /> }} />
      </span>,
    ]);
  }
  rows.push(
    [
      t('facts.receives'),
      <strong data-testid="withdrawal-receives">
        <Amount amount={w.receives} />
      </strong>,
    ],
    [t('facts.network'), payoutLabel(w.network)],
    [
      t('facts.walletAddress'),
      <>
        <code className="break-anywhere" data-testid="withdrawal-address">
          {w.walletAddress}
        </code>{' '}
        <CopyAddress text={w.walletAddress} />
      </>,
    ],
    [t('facts.requested'), formatDateTime(w.requestDate)],
  );
  if (w.availableBalance !== undefined) rows.push([t('facts.availableBalance'), <Amount amount={w.availableBalance} />]);
  if (w.txHash) {
    rows.push([
      t('facts.payoutTransaction'),
      <>
        <code className="break-anywhere">{w.txHash}</code>
        {w.payoutOnChain && (
          <>
            {' '}
            <PayoutOnChainBadge seen={w.payoutOnChain} />
          </>
        )}
      </>,
    ]);
  }
  if (w.reason) rows.push([t('facts.reason'), w.reason]);
  if (w.decidedAt) rows.push([t('facts.decided'), formatDateTime(w.decidedAt)]);
  return (
    <dl className="facts" data-testid="withdrawal-details">
      {rows.map(([term, value]) => (
        <div key={term} className="facts__row">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

// One required text the staff member types in a decision dialog, with its error under it: the
// payout's transaction hash, or, above the threshold, the reason for the second staff member,
// who then pays out and records the hash themselves.
function ApproveDialog({
  w,
  needsSecond,
  onClose,
  onProposed,
}: {
  w: Withdrawal;
  needsSecond: boolean;
  onClose: () => void;
  onProposed: () => void;
}) {
  const { t } = useTranslation('withdrawals');
  const { t: staff } = useTranslation('staff');
  const payoutLabel = usePayoutLabel();
  const run = useRunMutation();
  const [approve, { isLoading }] = useApproveWithdrawalMutation();
  const send = async (body: { txHash?: string; reason?: string }, formError: (message: string | null) => void) => {
    const outcome = await run(approve({ id: w._id, approveWithdrawalRequest: body }), {
      fallback: t('approve.failed'),
      formError,
      success: (data) => (proposalOf(data) ? staff('proposal.sent') : t('approve.done')),
    });
    if (outcome.ok && proposalOf(outcome.data)) onProposed();
    return outcome;
  };
  if (needsSecond) {
    return (
      <TextDecisionDialog
        title={t('approve.title')}
        intro={<p>{t('approve.secondIntro')}</p>}
        label={t('approve.secondLabel')}
        multiline
        requiredMessage={t('approve.secondRequired')}
        field={['reason', 'notes']}
        submitLabel={t('approve.sendSecond')}
        busyLabel={t('approve.sending')}
        busy={isLoading}
        onSubmit={(reason, formError) => send({ reason }, formError)}
        onClose={onClose}
      />
    );
  }
  return (
    <TextDecisionDialog
      title={t('approve.title')}
      intro={
        <p>
          <Trans
            t={t}
            i18nKey="approve.intro"
            values={{ network: payoutLabel(w.network), address: w.walletAddress }}
            components={{ amount: <Amount amount={w.receives} />, address: <code className="break-anywhere" /> }}
          />
        </p>
      }
      label={t('approve.label')}
      requiredMessage={t('approve.required')}
      field="txHash"
      submitLabel={t('approve.submit')}
      busyLabel={t('approve.busy')}
      busy={isLoading}
      onSubmit={(txHash, formError) => send({ txHash }, formError)}
      onClose={onClose}
    />
  );
}

function RejectDialog({ w, onClose }: { w: Withdrawal; onClose: () => void }) {
  const { t } = useTranslation('withdrawals');
  const run = useRunMutation();
  const [reject, { isLoading }] = useRejectWithdrawalMutation();
  return (
    <TextDecisionDialog
      title={t('reject.title')}
      tone="danger"
      intro={
        <p>
          <Trans t={t} i18nKey="reject.intro" components={{ amount: <Amount amount={w.amount} /> }} />
        </p>
      }
      label={t('reject.label')}
      multiline
      requiredMessage={t('reject.required')}
      field="reason"
      submitLabel={t('reject.submit')}
      busyLabel={t('reject.busy')}
      busy={isLoading}
      onSubmit={(reason, formError) =>
        run(reject({ id: w._id, rejectWithdrawalRequest: { reason } }), {
          fallback: t('reject.failed'),
          formError,
          success: t('reject.done'),
        })
      }
      onClose={onClose}
    />
  );
}

// Staff decide a Pending withdrawal of someone else; another reviewer deciding first is the
// server's 409, shown as its message. Above the threshold an approval is a proposal a second
// staff member decides (202): the page says so before, and shows it waiting afterwards.
function Decision({ w }: { w: Withdrawal }) {
  const { t } = useTranslation('withdrawals');
  const { t: staff } = useTranslation('staff');
  const rules = useApprovalRules();
  const [open, setOpen] = useState<'approve' | 'reject' | null>(null);
  const [sent, setSent] = useState(false);
  const proposals = useGetProposalsQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });
  const thresholds = proposals.data?.thresholds;
  const needsSecond = withdrawalNeedsSecond(w.amount, thresholds);
  const waiting = pendingFor(proposals.data?.pending, 'withdrawal_approval', w._id);
  if (waiting || sent) {
    return (
      <div className="panel panel--warning" role="status" data-testid="withdrawal-awaiting-second">
        <h2 className="panel__title">{t('decide.waitingTitle')}</h2>
        {waiting ? (
          <p>{t('decide.waiting', { name: waiting.proposer.name, reason: waiting.reason })}</p>
        ) : (
          <p>{t('decide.sent', { sent: staff('proposal.sent') })}</p>
        )}
        <p>
          <Link to={APPROVALS_PATH}>{t('decide.openApprovals')}</Link>
        </p>
      </div>
    );
  }
  return (
    <div className="panel">
      <h2 className="panel__title">{t('decide.title')}</h2>
      {needsSecond && thresholds ? (
        <p className="notice" data-testid="withdrawal-needs-second">
          {rules.withdrawal(thresholds)} {t('decide.needsSecond')}
        </p>
      ) : null}
      <div className="button-row">
        <button type="button" className="button" onClick={() => setOpen('approve')}>
          {t('decide.approve')}
        </button>
        <button type="button" className="button button--danger" onClick={() => setOpen('reject')}>
          {t('decide.reject')}
        </button>
      </div>
      {open === 'approve' ? <ApproveDialog w={w} needsSecond={needsSecond} onClose={() => setOpen(null)} onProposed={() => setSent(true)} /> : null}
      {open === 'reject' ? <RejectDialog w={w} onClose={() => setOpen(null)} /> : null}
    </div>
  );
}

export function WithdrawalDetailsPage() {
  const { id = '' } = useParams();
  const { data: me } = useCurrentUser();
  const withdrawal = useGetWithdrawalQuery({ id }, { skip: !id });
  const staff = isStaff(me?.role);
  const { t } = useTranslation('withdrawals');
  return (
    <section className="page container page--narrow" aria-labelledby="withdrawal-title">
      <p className="eyebrow">{staff ? <Link to="/admin-pending-wallet">{t('details.backStaff')}</Link> : <Link to="/my-account">{t('details.backInvestor')}</Link>}</p>
      <h1 id="withdrawal-title">{t('details.title')}</h1>
      <QueryState query={withdrawal} loading={t('details.loading')} failed={t('details.failed')}>
        {(data) => (
          <>
            <WithdrawalFacts w={data} />
            {staff && data.status === 'Pending' && data.user && data.user._id !== me?._id ? <Decision w={data} /> : null}
          </>
        )}
      </QueryState>
    </section>
  );
}

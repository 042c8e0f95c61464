import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useApproveWithdrawalMutation, useGetWithdrawalQuery, useRejectWithdrawalMutation, type Withdrawal } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { TextDecisionDialog } from '../../components/TextDecisionDialog';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { isStaff, useCurrentUser } from '../auth/session';
import { payoutLabel, withdrawalBadge } from './withdrawalWords';

function CopyAddress({ text }: { text: string }) {
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success('Address copied to clipboard!');
    } catch {
      toast.error('The address could not be copied. Please select it and copy it by hand.');
    }
  };
  return (
    <button type="button" className="button button--secondary" onClick={() => void copy()}>
      Copy address
    </button>
  );
}

// A withdrawal's facts: everything staff need to decide, and its status for its owner.
function WithdrawalFacts({ w }: { w: Withdrawal }) {
  const rows: [string, ReactNode][] = [
    [
      'Status',
      <span className={withdrawalBadge(w.status)} data-testid="withdrawal-status">
        {w.status}
      </span>,
    ],
  ];
  if (w.user) rows.push(['Investor', `${w.user.name} (${w.user.email})`]);
  rows.push(
    ['Amount', <Amount amount={w.amount} />],
    ['Fee', <Amount amount={w.fee} />],
    [
      'Receives',
      <strong data-testid="withdrawal-receives">
        <Amount amount={w.receives} />
      </strong>,
    ],
    ['Network', payoutLabel(w.network)],
    [
      'Wallet address',
      <>
        <code className="break-anywhere" data-testid="withdrawal-address">
          {w.walletAddress}
        </code>{' '}
        <CopyAddress text={w.walletAddress} />
      </>,
    ],
    ['Requested', formatDateTime(w.requestDate)],
  );
  if (w.availableBalance !== undefined) rows.push(['Investor’s available balance', <Amount amount={w.availableBalance} />]);
  if (w.txHash) rows.push(['Payout transaction', <code className="break-anywhere">{w.txHash}</code>]);
  if (w.reason) rows.push(['Reason', w.reason]);
  if (w.decidedAt) rows.push(['Decided', formatDateTime(w.decidedAt)]);
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

// One required text the staff member types in a decision dialog, with its error under it.
function ApproveDialog({ w, onClose }: { w: Withdrawal; onClose: () => void }) {
  const run = useRunMutation();
  const [approve, { isLoading }] = useApproveWithdrawalMutation();
  return (
    <TextDecisionDialog
      title="Approve withdrawal"
      intro={
        <p>
          Send <Amount amount={w.receives} /> in {payoutLabel(w.network)} to <code className="break-anywhere">{w.walletAddress}</code> first, then
          record the transaction.
        </p>
      }
      label="Payout transaction hash"
      requiredMessage="Please enter the payout transaction hash"
      field="txHash"
      submitLabel="Approve"
      busyLabel="Approving…"
      busy={isLoading}
      onSubmit={(txHash) => run(approve({ id: w._id, approveWithdrawalRequest: { txHash } }), { fallback: 'Failed to approve withdrawal.', success: 'Withdrawal approved!' })}
      onClose={onClose}
    />
  );
}

function RejectDialog({ w, onClose }: { w: Withdrawal; onClose: () => void }) {
  const run = useRunMutation();
  const [reject, { isLoading }] = useRejectWithdrawalMutation();
  return (
    <TextDecisionDialog
      title="Reject withdrawal"
      tone="danger"
      intro={
        <p>
          <Amount amount={w.amount} /> goes back to the investor’s available balance and no fee is charged.
        </p>
      }
      label="Reason (e-mailed to the investor)"
      multiline
      requiredMessage="Please enter a reason"
      field="reason"
      submitLabel="Reject"
      busyLabel="Rejecting…"
      busy={isLoading}
      onSubmit={(reason) => run(reject({ id: w._id, rejectWithdrawalRequest: { reason } }), { fallback: 'Failed to reject withdrawal.', success: 'Withdrawal rejected!' })}
      onClose={onClose}
    />
  );
}

// Staff decide a Pending withdrawal of someone else; another reviewer deciding first is the
// server's 409, shown as its message.
function Decision({ w }: { w: Withdrawal }) {
  const [open, setOpen] = useState<'approve' | 'reject' | null>(null);
  return (
    <div className="panel">
      <h2 className="panel__title">Decide</h2>
      <div className="button-row">
        <button type="button" className="button" onClick={() => setOpen('approve')}>
          Approve withdrawal
        </button>
        <button type="button" className="button button--danger" onClick={() => setOpen('reject')}>
          Reject withdrawal
        </button>
      </div>
      {open === 'approve' ? <ApproveDialog w={w} onClose={() => setOpen(null)} /> : null}
      {open === 'reject' ? <RejectDialog w={w} onClose={() => setOpen(null)} /> : null}
    </div>
  );
}

export function WithdrawalDetailsPage() {
  const { id = '' } = useParams();
  const { data: me } = useCurrentUser();
  const withdrawal = useGetWithdrawalQuery({ id }, { skip: !id });
  const staff = isStaff(me?.role);
  return (
    <section className="page container page--narrow" aria-labelledby="withdrawal-title">
      <p className="eyebrow">{staff ? <Link to="/admin-pending-wallet">Pending Withdrawals</Link> : <Link to="/my-account">My Account</Link>}</p>
      <h1 id="withdrawal-title">Withdrawal Details</h1>
      <QueryState query={withdrawal} loading="Loading the withdrawal…" failed="Failed to fetch withdrawal details.">
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

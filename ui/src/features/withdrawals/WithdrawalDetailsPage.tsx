import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useApproveWithdrawalMutation, useGetWithdrawalQuery, useRejectWithdrawalMutation, type Withdrawal } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Dialog } from '../../components/Dialog';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
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
function DialogField({ id, label, error, children }: { id: string; label: string; error: string; children: ReactNode }) {
  return (
    <div className="field" data-invalid={error ? true : undefined}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {children}
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function ApproveDialog({ w, onClose }: { w: Withdrawal; onClose: () => void }) {
  const run = useRunMutation();
  const formId = useId();
  const [approve, { isLoading }] = useApproveWithdrawalMutation();
  const [txHash, setTxHash] = useState('');
  const [error, setError] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading) return;
    if (!txHash.trim()) {
      setError('Please enter the payout transaction hash');
      return;
    }
    const outcome = await run(approve({ id: w._id, approveWithdrawalRequest: { txHash: txHash.trim() } }), {
      fallback: 'Failed to approve withdrawal.',
      success: 'Withdrawal approved!',
    });
    if (outcome.ok) onClose();
    else if (outcome.error.field === 'txHash') setError(outcome.message);
  };
  return (
    <Dialog
      title="Approve withdrawal"
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" aria-disabled={isLoading || undefined}>
            {isLoading ? 'Approving…' : 'Approve'}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            Cancel
          </button>
        </>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        <p>
          Send <Amount amount={w.receives} /> in {payoutLabel(w.network)} to <code className="break-anywhere">{w.walletAddress}</code> first, then
          record the transaction.
        </p>
        <DialogField id={`${formId}-tx`} label="Payout transaction hash" error={error}>
          <input
            id={`${formId}-tx`}
            className="field__input"
            value={txHash}
            onChange={(e) => {
              setTxHash(e.target.value);
              setError('');
            }}
            autoCapitalize="none"
            spellCheck={false}
            data-autofocus
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${formId}-tx-error` : undefined}
          />
        </DialogField>
      </form>
    </Dialog>
  );
}

function RejectDialog({ w, onClose }: { w: Withdrawal; onClose: () => void }) {
  const run = useRunMutation();
  const formId = useId();
  const [reject, { isLoading }] = useRejectWithdrawalMutation();
  const [reason, setReason] = useState('');
  const [error, setError] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading) return;
    if (!reason.trim()) {
      setError('Please enter a reason');
      return;
    }
    const outcome = await run(reject({ id: w._id, rejectWithdrawalRequest: { reason: reason.trim() } }), {
      fallback: 'Failed to reject withdrawal.',
      success: 'Withdrawal rejected!',
    });
    if (outcome.ok) onClose();
    else if (outcome.error.field === 'reason') setError(outcome.message);
  };
  return (
    <Dialog
      title="Reject withdrawal"
      tone="danger"
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button button--danger" aria-disabled={isLoading || undefined}>
            {isLoading ? 'Rejecting…' : 'Reject'}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            Cancel
          </button>
        </>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        <p>
          <Amount amount={w.amount} /> goes back to the investor’s available balance and no fee is charged.
        </p>
        <DialogField id={`${formId}-reason`} label="Reason (e-mailed to the investor)" error={error}>
          <textarea
            id={`${formId}-reason`}
            className="field__input"
            rows={3}
            maxLength={500}
            value={reason}
            onChange={(e) => {
              setReason(e.target.value);
              setError('');
            }}
            data-autofocus
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${formId}-reason-error` : undefined}
          />
        </DialogField>
      </form>
    </Dialog>
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

import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import {
  useApproveProposalMutation,
  useGetProposalsQuery,
  useRejectProposalMutation,
  type ApprovalThresholds,
  type Proposal,
  type User,
} from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Dialog } from '../../components/Dialog';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { TextDecisionDialog } from '../../components/TextDecisionDialog';
import { useRunMutation } from '../../components/useRunMutation';
import { useCurrentUser } from '../auth/session';
import { useLabels } from '../../components/labels';

// The four-eyes queue (docs/security.md, "Separation of duties"): decisions one staff member
// proposed that a second must take. Every staff member sees it; only an admin who did not make
// a proposal approves or rejects it, and the server says so again (403) whatever this page shows.

function Thresholds({ t }: { t: ApprovalThresholds }) {
  const rows: [string, ReactNode][] = [
    [
      'Deposit confirmations',
      <>
        above <Amount amount={t.depositThreshold} />, or more than {t.depositTolerancePercent} % from the declared amount
      </>,
    ],
    [
      'Withdrawal payouts',
      <>
        above <Amount amount={t.withdrawalThreshold} />
      </>,
    ],
    ['Admin role, account closure', 'always'],
  ];
  return (
    <section className="panel stack" aria-labelledby="approval-rules-title" data-testid="approval-thresholds">
      <h2 id="approval-rules-title" className="panel__title">
        What needs a second staff member
      </h2>
      <dl className="facts">
        {rows.map(([term, value]) => (
          <div key={term} className="facts__row">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        No amount anyone enters may be more than <Amount amount={t.maxAmount} />.
      </p>
    </section>
  );
}

// What the proposal is about, linked to its page where it has one.
function Subject({ p }: { p: Proposal }) {
  const who = p.user.name || 'Unnamed user';
  if (p.kind === 'deposit_confirmation') {
    return (
      <>
        Deposit <Link to={`/transaction/${encodeURIComponent(p.subjectId)}`}>{p.subjectId}</Link> of {who}
      </>
    );
  }
  if (p.kind === 'withdrawal_approval') {
    return (
      <>
        <Link to={`/withdrawal/${encodeURIComponent(p.subjectId)}`}>Withdrawal</Link> of {who}
      </>
    );
  }
  return <>{who}</>;
}

function ApproveDialog({ p, onClose }: { p: Proposal; onClose: () => void }) {
  const labels = useLabels();
  const run = useRunMutation();
  const [approve, { isLoading }] = useApproveProposalMutation();
  const formId = useId();
  const payout = p.kind === 'withdrawal_approval';
  const [txHash, setTxHash] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ txHash?: string; reason?: string }>({});

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading) return;
    if (payout && !txHash.trim()) {
      setErrors({ txHash: 'Please enter the payout transaction hash' });
      return;
    }
    const body = {
      ...(payout ? { txHash: txHash.trim() } : {}),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    };
    const outcome = await run(approve({ proposalId: p.id, approveProposalRequest: body }), {
      fallback: 'The proposal could not be approved. Please try again.',
      success: ({ message }) => message,
    });
    if (outcome.ok) onClose();
    else if (outcome.error.field === 'txHash' || outcome.error.field === 'reason') setErrors({ [outcome.error.field]: outcome.message });
  };
  const fieldProps = (name: 'txHash' | 'reason', id: string) => ({
    id,
    className: 'field__input',
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `${id}-error` : undefined,
  });
  const error = (name: 'txHash' | 'reason', id: string) =>
    errors[name] ? (
      <p id={`${id}-error`} className="field__error">
        {errors[name]}
      </p>
    ) : null;

  return (
    <Dialog
      title={`Approve: ${labels.proposalKind(p.kind)}`}
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
        {payout ? (
          <p>
            You pay this out: send the amount the investor receives to the address on the{' '}
            <Link to={`/withdrawal/${encodeURIComponent(p.subjectId)}`}>withdrawal’s page</Link> first, then record the transaction here.
          </p>
        ) : (
          <p>Approving carries the decision out at once, recorded under your name.</p>
        )}
        {payout ? (
          <div className="field" data-invalid={errors.txHash ? true : undefined}>
            <label className="field__label" htmlFor={`${formId}-tx`}>
              Payout transaction hash
            </label>
            <input
              {...fieldProps('txHash', `${formId}-tx`)}
              value={txHash}
              maxLength={200}
              autoCapitalize="none"
              spellCheck={false}
              data-autofocus
              onChange={(e) => {
                setTxHash(e.target.value);
                setErrors({});
              }}
            />
            {error('txHash', `${formId}-tx`)}
          </div>
        ) : null}
        <div className="field" data-invalid={errors.reason ? true : undefined}>
          <label className="field__label" htmlFor={`${formId}-reason`}>
            Reason
            <span className="field__optional"> (optional, kept with the approval)</span>
          </label>
          <textarea
            {...fieldProps('reason', `${formId}-reason`)}
            rows={3}
            maxLength={500}
            value={reason}
            data-autofocus={payout ? undefined : true}
            onChange={(e) => {
              setReason(e.target.value);
              setErrors({});
            }}
          />
          {error('reason', `${formId}-reason`)}
        </div>
      </form>
    </Dialog>
  );
}

function RejectDialog({ p, onClose }: { p: Proposal; onClose: () => void }) {
  const labels = useLabels();
  const run = useRunMutation();
  const [reject, { isLoading }] = useRejectProposalMutation();
  return (
    <TextDecisionDialog
      title={`Reject: ${labels.proposalKind(p.kind)}`}
      tone="danger"
      intro={
        <p>
          Nothing is decided: the{' '}
          {p.kind === 'deposit_confirmation' || p.kind === 'withdrawal_approval' ? 'request stays in its queue' : 'user stays as they are'}, and the
          proposer sees your reason.
        </p>
      }
      label="Reason (shown to the proposer)"
      multiline
      requiredMessage="Please enter a reason"
      field="reason"
      submitLabel="Reject"
      busyLabel="Rejecting…"
      busy={isLoading}
      onSubmit={(reason) =>
        run(reject({ proposalId: p.id, rejectProposalRequest: { reason } }), {
          fallback: 'The proposal could not be rejected. Please try again.',
          success: ({ message }) => message,
        })
      }
      onClose={onClose}
    />
  );
}

function Decision({ p, me }: { p: Proposal; me: User | undefined }) {
  const [open, setOpen] = useState<'approve' | 'reject' | null>(null);
  if (!me) return null;
  if (p.proposer._id === me._id) {
    return (
      <p className="badge badge--warning" data-testid="proposal-waiting">
        Waiting for a second staff member
      </p>
    );
  }
  if (me.role !== 'admin') return <p className="muted">An admin who did not propose it decides.</p>;
  return (
    <>
      <div className="button-row">
        <button type="button" className="button" onClick={() => setOpen('approve')}>
          Approve
        </button>
        <button type="button" className="button button--danger" onClick={() => setOpen('reject')}>
          Reject
        </button>
      </div>
      {open === 'approve' ? <ApproveDialog p={p} onClose={() => setOpen(null)} /> : null}
      {open === 'reject' ? <RejectDialog p={p} onClose={() => setOpen(null)} /> : null}
    </>
  );
}

const movesMoney = (p: Proposal) => p.kind === 'deposit_confirmation' || p.kind === 'withdrawal_approval';

function PendingItem({ p, me }: { p: Proposal; me: User | undefined }) {
  const labels = useLabels();
  return (
    <li className="queue-item queue-item--decide" data-testid="proposal-item">
      <div className="queue-item__who">
        <h3 className="queue-item__name">
          {labels.proposalKind(p.kind)}
          {movesMoney(p) ? (
            <>
              {' '}
              of <Amount amount={p.amount} />
            </>
          ) : null}
        </h3>
        <p className="break-anywhere">
          <Subject p={p} />
        </p>
        <p className="muted">{p.why}</p>
      </div>
      <p className="queue-item__meta">
        <span>
          Proposed by <strong>{p.proposer.name}</strong>: “{p.reason}”
        </span>
        <span>
          <time dateTime={p.openedAt}>{formatDateTime(p.openedAt)}</time>
        </span>
      </p>
      <div className="queue-item__decision">
        <Decision p={p} me={me} />
      </div>
    </li>
  );
}

function DecidedItem({ p }: { p: Proposal }) {
  const labels = useLabels();
  const approved = p.status === 'approved';
  return (
    <li className="queue-item" data-testid="proposal-decided">
      <div className="queue-item__who">
        <h3 className="queue-item__name">
          {labels.proposalKind(p.kind)}
          {movesMoney(p) ? (
            <>
              {' '}
              of <Amount amount={p.amount} />
            </>
          ) : null}
          <span className={`queue-item__badge badge ${approved ? 'badge--success' : 'badge--danger'}`}>{labels.proposal(p.status)}</span>
        </h3>
        <p className="break-anywhere">
          <Subject p={p} />
        </p>
        <p className="muted">
          Proposed by {p.proposer.name}: “{p.reason}”
        </p>
      </div>
      <p className="queue-item__meta">
        <span>
          {labels.proposal(p.status)} by <strong>{p.decider?.name ?? 'a staff member'}</strong>
          {p.decisionReason ? `: “${p.decisionReason}”` : ''}
        </span>
        {p.decidedAt ? (
          <span>
            <time dateTime={p.decidedAt}>{formatDateTime(p.decidedAt)}</time>
          </span>
        ) : null}
      </p>
    </li>
  );
}

export function ApprovalsPage() {
  const queue = useGetProposalsQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });
  const { data: me } = useCurrentUser();
  return (
    <section className="page container stack" aria-labelledby="approvals-title">
      <div>
        <p className="eyebrow">Staff</p>
        <h1 id="approvals-title">Second Approvals</h1>
        <p className="muted">
          Decisions one staff member proposed that a second must take, oldest first. An admin who did not propose a decision approves or rejects it;
          approving carries it out.
        </p>
      </div>
      <QueryState query={queue} loading="Loading the proposals…" failed="Failed to fetch the proposals.">
        {(data) => (
          <>
            <Thresholds t={data.thresholds} />
            <section aria-labelledby="approvals-pending-title">
              <h2 id="approvals-pending-title">Waiting for a second staff member</h2>
              {data.pending.length === 0 ? (
                <p className="empty">Nothing waits for a second approval.</p>
              ) : (
                <ol className="queue" aria-busy={queue.isFetching || undefined}>
                  {data.pending.map((p) => (
                    <PendingItem key={p.id} p={p} me={me} />
                  ))}
                </ol>
              )}
            </section>
            <section aria-labelledby="approvals-recent-title">
              <h2 id="approvals-recent-title">Recently decided</h2>
              {data.recent.length === 0 ? (
                <p className="empty">Nothing has been decided yet.</p>
              ) : (
                <ol className="queue">
                  {data.recent.map((p) => (
                    <DecidedItem key={p.id} p={p} />
                  ))}
                </ol>
              )}
            </section>
          </>
        )}
      </QueryState>
    </section>
  );
}

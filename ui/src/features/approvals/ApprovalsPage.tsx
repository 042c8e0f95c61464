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
import { KeyboardQueue } from '../../components/QueueShortcuts';
import { queueAction } from '../../components/useQueueKeyboard';
import { useRunMutation } from '../../components/useRunMutation';
import { useStepUpFirst } from '../auth/useStepUpFirst';
import { FormError, useFormError } from '../../components/form/FormError';
import { useCurrentUser } from '../auth/session';
import { useLabels } from '../../components/labels';
import { Trans, useTranslation } from '../../i18n';

// The four-eyes queue (docs/security.md, "Separation of duties"): decisions one staff member
// proposed that a second must take. Every staff member sees it; only an admin who did not make
// a proposal approves or rejects it, and the server says so again (403) whatever this page shows.

function Thresholds({ thresholds }: { thresholds: ApprovalThresholds }) {
  const { t } = useTranslation('staff');
  const rows: [string, ReactNode][] = [
    [
      t('approvals.deposits'),
      <Trans
        key="d"
        t={t}
        i18nKey="approvals.depositRule"
        values={{ percent: thresholds.depositTolerancePercent }}
        components={{ amount: <Amount amount={thresholds.depositThreshold} /> }}
      />,
    ],
    [t('approvals.withdrawals'), <Trans key="w" t={t} i18nKey="approvals.withdrawalRule" components={{ amount: <Amount amount={thresholds.withdrawalThreshold} /> }} />],
    [t('approvals.others'), t('approvals.always')],
  ];
  return (
    <section className="panel stack" aria-labelledby="approval-rules-title" data-testid="approval-thresholds">
      <h2 id="approval-rules-title" className="panel__title">
        {t('approvals.rulesTitle')}
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
        <Trans t={t} i18nKey="approvals.maxAmount" components={{ amount: <Amount amount={thresholds.maxAmount} /> }} />
      </p>
    </section>
  );
}

// What the proposal is about, linked to its page where it has one.
function Subject({ p }: { p: Proposal }) {
  const { t } = useTranslation('staff');
  const who = p.user.name || t('common.unnamed');
  if (p.kind === 'deposit_confirmation') {
    return (
      <Trans
        t={t}
        i18nKey="approvals.deposit"
        values={{ id: p.subjectId, who }}
        components={{ page: <Link to={`/transaction/${encodeURIComponent(p.subjectId)}`} /> }}
      />
    );
  }
  if (p.kind === 'withdrawal_approval') {
    return <Trans t={t} i18nKey="approvals.withdrawal" values={{ who }} components={{ page: <Link to={`/withdrawal/${encodeURIComponent(p.subjectId)}`} /> }} />;
  }
  if (p.kind === 'balance_correction') return <CorrectionSubject p={p} who={who} />;
  return <>{who}</>;
}

// A balance correction: which way, its category and whose balance, linked to their correction page.
function CorrectionSubject({ p, who }: { p: Proposal; who: string }) {
  const { t } = useTranslation('corrections');
  const direction = p.params.direction === 'deduct' ? 'deduct' : 'add';
  const known = ['correction', 'goodwill', 'chargeback', 'other'] as const;
  const category = known.find((c) => c === p.params.category) ?? 'other';
  return (
    <Trans
      t={t}
      i18nKey="proposal.subject"
      values={{ direction: t(`direction.${direction}`), category: t(`category.${category}`), who }}
      components={{ page: <Link to={`/edit-user-balance/${encodeURIComponent(p.user._id)}`} /> }}
    />
  );
}

function ApproveDialog({ p, onClose }: { p: Proposal; onClose: () => void }) {
  const { t } = useTranslation('staff');
  const labels = useLabels();
  const run = useRunMutation();
  const [approve, { isLoading }] = useApproveProposalMutation();
  const stepUpFirst = useStepUpFirst();
  const formId = useId();
  const payout = p.kind === 'withdrawal_approval';
  const [txHash, setTxHash] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ txHash?: string; reason?: string }>({});
  const [formError, setFormError] = useFormError();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading) return;
    if (payout && !txHash.trim()) {
      setErrors({ txHash: t('approvals.txRequired') });
      return;
    }
    const body = {
      ...(payout ? { txHash: txHash.trim() } : {}),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
    };
    if (!(await stepUpFirst())) return;
    const outcome = await run(approve({ proposalId: p.id, approveProposalRequest: body }), {
      fallback: t('approvals.approveFailed'),
      success: ({ message }) => message,
      formError: setFormError,
      handled: ({ field, message }) => {
        if (field !== 'txHash' && field !== 'reason') return false;
        setErrors({ [field]: message ?? t('approvals.approveFailed') });
        document.getElementById(`${formId}-${field === 'txHash' ? 'tx' : field}`)?.focus();
        return true;
      },
    });
    if (outcome.ok) onClose();
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
      title={t('approvals.approveTitle', { kind: labels.proposalKind(p.kind) })}
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" aria-disabled={isLoading || undefined}>
            {isLoading ? t('approvals.approving') : t('approvals.approve')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('approvals.cancel')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        {payout ? (
          <p>
            <Trans t={t} i18nKey="approvals.payoutIntro" components={{ page: <Link to={`/withdrawal/${encodeURIComponent(p.subjectId)}`} /> }} />
          </p>
        ) : (
          <p>{t('approvals.approveIntro')}</p>
        )}
        {payout ? (
          <div className="field" data-invalid={errors.txHash ? true : undefined}>
            <label className="field__label" htmlFor={`${formId}-tx`}>
              {t('approvals.txHash')}
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
            {t('approvals.reason')}
            <span className="field__optional">{t('approvals.reasonOptional')}</span>
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
  const { t } = useTranslation('staff');
  const labels = useLabels();
  const run = useRunMutation();
  const [reject, { isLoading }] = useRejectProposalMutation();
  const stepUpFirst = useStepUpFirst();
  return (
    <TextDecisionDialog
      title={t('approvals.rejectTitle', { kind: labels.proposalKind(p.kind) })}
      tone="danger"
      intro={
        <p>{movesMoney(p) ? t('approvals.rejectIntroQueue') : t('approvals.rejectIntroUser')}</p>
      }
      label={t('approvals.rejectLabel')}
      multiline
      requiredMessage={t('approvals.reasonRequired')}
      field="reason"
      submitLabel={t('approvals.reject')}
      busyLabel={t('approvals.rejecting')}
      busy={isLoading}
      onSubmit={async (reason, formError) => {
        // A decision needs a fresh confirmation (docs/staff.md): asked before it is sent.
        if (!(await stepUpFirst())) return { ok: false, error: { status: 403, code: 'step_up_required' }, message: '' };
        return run(reject({ proposalId: p.id, rejectProposalRequest: { reason } }), {
          fallback: t('approvals.rejectFailed'),
          success: ({ message }) => message,
          formError,
        });
      }}
      onClose={onClose}
    />
  );
}

function Decision({ p, me }: { p: Proposal; me: User | undefined }) {
  const { t } = useTranslation('staff');
  const [open, setOpen] = useState<'approve' | 'reject' | null>(null);
  if (!me) return null;
  if (p.proposer._id === me._id) {
    return (
      <p className="badge badge--warning" data-testid="proposal-waiting">
        {t('approvals.waiting')}
      </p>
    );
  }
  if (me.role !== 'admin') return <p className="muted">{t('approvals.adminDecides')}</p>;
  return (
    <>
      <div className="button-row">
        <button type="button" className="button" onClick={() => setOpen('approve')} {...queueAction('approve')}>
          {t('approvals.approve')}
        </button>
        <button type="button" className="button button--danger" onClick={() => setOpen('reject')} {...queueAction('reject')}>
          {t('approvals.reject')}
        </button>
      </div>
      {open === 'approve' ? <ApproveDialog p={p} onClose={() => setOpen(null)} /> : null}
      {open === 'reject' ? <RejectDialog p={p} onClose={() => setOpen(null)} /> : null}
    </>
  );
}

const movesMoney = (p: Proposal) => p.kind === 'deposit_confirmation' || p.kind === 'withdrawal_approval' || p.kind === 'balance_correction';

function PendingItem({ p, me }: { p: Proposal; me: User | undefined }) {
  const { t } = useTranslation('staff');
  const labels = useLabels();
  return (
    <li className="queue-item queue-item--decide" data-testid="proposal-item">
      <div className="queue-item__who">
        <h3 className="queue-item__name">
          {movesMoney(p) ? (
            <Trans t={t} i18nKey="approvals.kindOf" values={{ kind: labels.proposalKind(p.kind) }} components={{ amount: <Amount amount={p.amount} /> }} />
          ) : (
            labels.proposalKind(p.kind)
          )}
        </h3>
        <p className="break-anywhere">
          <Subject p={p} />
        </p>
        <p className="muted">{p.why}</p>
      </div>
      <p className="queue-item__meta">
        <span>
          <Trans t={t} i18nKey="approvals.proposedBy" values={{ name: p.proposer.name, reason: p.reason }} components={{ name: <strong /> }} />
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
  const { t } = useTranslation('staff');
  const labels = useLabels();
  const approved = p.status === 'approved';
  return (
    <li className="queue-item" data-testid="proposal-decided">
      <div className="queue-item__who">
        <h3 className="queue-item__name">
          {movesMoney(p) ? (
            <Trans t={t} i18nKey="approvals.kindOf" values={{ kind: labels.proposalKind(p.kind) }} components={{ amount: <Amount amount={p.amount} /> }} />
          ) : (
            labels.proposalKind(p.kind)
          )}
          <span className={`queue-item__badge badge ${approved ? 'badge--success' : 'badge--danger'}`}>{labels.proposal(p.status)}</span>
        </h3>
        <p className="break-anywhere">
          <Subject p={p} />
        </p>
        <p className="muted">{t('approvals.proposedByPlain', { name: p.proposer.name, reason: p.reason })}</p>
      </div>
      <p className="queue-item__meta">
        <span>
          <Trans
            t={t}
            i18nKey={p.decisionReason ? 'approvals.decidedByReason' : 'approvals.decidedBy'}
            values={{ status: labels.proposal(p.status), name: p.decider?.name ?? t('approvals.someone'), reason: p.decisionReason }}
            components={{ name: <strong /> }}
          />
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
  const { t } = useTranslation('staff');
  return (
    <section className="page container stack" aria-labelledby="approvals-title">
      <div>
        <p className="eyebrow">{t('common.eyebrow')}</p>
        <h1 id="approvals-title">{t('approvals.title')}</h1>
        <p className="muted">{t('approvals.lead')}</p>
      </div>
      <QueryState query={queue} loading={t('approvals.loading')} failed={t('approvals.failed')}>
        {(data) => (
          <>
            <Thresholds thresholds={data.thresholds} />
            <section aria-labelledby="approvals-pending-title">
              <h2 id="approvals-pending-title">{t('approvals.pending')}</h2>
              {data.pending.length === 0 ? (
                <p className="empty">{t('approvals.nonePending')}</p>
              ) : (
                <KeyboardQueue decides={me?.role === 'admin'}>
                  <ol className="queue" aria-busy={queue.isFetching || undefined}>
                    {data.pending.map((p) => (
                      <PendingItem key={p.id} p={p} me={me} />
                    ))}
                  </ol>
                </KeyboardQueue>
              )}
            </section>
            <section aria-labelledby="approvals-recent-title">
              <h2 id="approvals-recent-title">{t('approvals.recent')}</h2>
              {data.recent.length === 0 ? (
                <p className="empty">{t('approvals.noneRecent')}</p>
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

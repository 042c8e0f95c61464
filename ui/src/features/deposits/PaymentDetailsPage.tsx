import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import {
  useConfirmDepositMutation,
  useGetProposalsQuery,
  useRejectDepositMutation,
  useViewPaymentStatusQuery,
  type Deposit,
} from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { QueryState } from '../../components/QueryState';
import { TextDecisionDialog } from '../../components/TextDecisionDialog';
import { Trans, useTranslation } from '../../i18n';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { APPROVALS_PATH, depositNeedsSecond, pendingFor, proposalOf, useApprovalRules } from '../../components/approvalWords';
import { isStaff, useCurrentUser } from '../auth/session';
import { DepositDetails } from './DepositDetails';
import { CHAIN_POLL_MS, followedOnChain } from '../../components/ChainProgress';

// A deposit the chain watcher decides: staff see why there is nothing to decide.
function ChainNotice({ deposit }: { deposit: Deposit }) {
  const { t } = useTranslation('chain');
  return (
    <div className="panel" role="note" data-testid="deposit-chain-notice">
      <h2 className="panel__title">{t('staff.title')}</h2>
      <p>{t('staff.body', { needed: deposit.confirmationsNeeded ?? 0 })}</p>
    </div>
  );
}

// Staff decide a Pending deposit: confirm with the amount that actually arrived, or reject.
// Another reviewer deciding first is the server's 409, shown as its message. A confirmation
// above the threshold, or too far from what the investor declared, is a proposal a second staff
// member approves (202): the page says so before it is sent, asks for the reason in the notes,
// and afterwards shows the proposal waiting instead of the form.
function Decision({ deposit }: { deposit: Deposit }) {
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [confirm, confirming] = useConfirmDepositMutation();
  const [reject, rejecting] = useRejectDepositMutation();
  const proposals = useGetProposalsQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });
  const [received, setReceived] = useState(deposit.amount);
  const [notes, setNotes] = useState('');
  const [notesError, setNotesError] = useState('');
  const [sent, setSent] = useState(false);
  const [rejectOpen, setRejectOpen] = useState(false);
  const { t } = useTranslation('deposits');
  const { t: staff } = useTranslation('staff');
  const rules = useApprovalRules();
  const busy = confirming.isLoading || rejecting.isLoading;
  const thresholds = proposals.data?.thresholds;
  const needsSecond = depositNeedsSecond(deposit.amount, received, thresholds);
  const waiting = pendingFor(proposals.data?.pending, 'deposit_confirmation', deposit.transactionId);

  const onConfirm = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (needsSecond && !notes.trim()) {
      setNotesError(t('decide.notesMissing'));
      document.getElementById('notes')?.focus();
      return;
    }
    const outcome = await run(
      confirm({
        confirmDepositRequest: {
          transactionId: deposit.transactionId,
          amount: received.trim(),
          ...(notes.trim() ? { notes: notes.trim() } : {}),
        },
      }),
      {
        fallback: t('decide.failed'),
        success: (data) => (proposalOf(data) ? staff('proposal.sent') : t('decide.done')),
        formError: setFormError,
        handled: ({ field, message }) => {
          if (field !== 'notes') return false;
          setNotesError(message ?? t('decide.failed'));
          document.getElementById('notes')?.focus();
          return true;
        },
      },
    );
    if (outcome.ok && proposalOf(outcome.data)) setSent(true);
  };
  // A rejection needs a reason, which the investor is shown: asked in a dialog, never sent empty.
  const onReject = (reason: string, formError: (message: string | null) => void) =>
    run(reject({ rejectDepositRequest: { transactionId: deposit.transactionId, notes: reason } }), {
      fallback: t('reject.failed'),
      success: t('reject.done'),
      formError,
    });

  if (waiting || sent) {
    return (
      <div className="panel panel--warning" role="status" data-testid="deposit-awaiting-second">
        <h2 className="panel__title">{t('decide.waitingTitle')}</h2>
        {waiting ? (
          <p>
            <Trans
              t={t}
              i18nKey="decide.waiting"
              values={{ name: waiting.proposer.name, reason: waiting.reason }}
              components={{ amount: <Amount amount={waiting.amount} /> }}
            />
          </p>
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
    <form className="form panel" onSubmit={(e) => void onConfirm(e)} noValidate>
      <h2 className="panel__title">{t('decide.title')}</h2>
      <FormError message={formError} />
      {thresholds ? <p className="muted">{rules.deposit(thresholds)}</p> : null}
      <div className="field">
        <label className="field__label" htmlFor="received">
          {t('decide.received')}
        </label>
        <p className="field__hint">{t('decide.receivedHint')}</p>
        <input id="received" className="field__input" inputMode="decimal" value={received} onChange={(e) => setReceived(e.target.value)} />
      </div>
      {needsSecond ? (
        <p className="notice" data-testid="deposit-needs-second">
          {needsSecond === 'above' ? t('decide.needsSecondAbove') : t('decide.needsSecondDiffers')}
        </p>
      ) : null}
      <div className="field" data-invalid={notesError ? true : undefined}>
        <label className="field__label" htmlFor="notes">
          {t('decide.notes')}
          <span className="field__optional">{needsSecond ? t('decide.notesRequired') : t('decide.notesOptional')}
          </span>
        </label>
        <textarea
          id="notes"
          className="field__input"
          rows={3}
          maxLength={500}
          value={notes}
          aria-invalid={notesError ? true : undefined}
          aria-describedby={notesError ? 'notes-error' : undefined}
          onChange={(e) => {
            setNotes(e.target.value);
            setNotesError('');
          }}
        />
        {notesError ? (
          <p id="notes-error" className="field__error">
            {notesError}
          </p>
        ) : null}
      </div>
      <div className="button-row">
        <button type="submit" className="button" aria-disabled={busy || undefined}>
          {confirming.isLoading ? (needsSecond ? t('decide.sending') : t('decide.confirming')) : needsSecond ? t('decide.sendSecond') : t('decide.confirm')}
        </button>
        <button type="button" className="button button--danger" aria-disabled={busy || undefined} onClick={() => !busy && setRejectOpen(true)}>
          {t('reject.open')}
        </button>
      </div>
      {rejectOpen ? (
        <TextDecisionDialog
          title={t('reject.title')}
          tone="danger"
          intro={<p>{t('reject.intro')}</p>}
          label={t('reject.label')}
          multiline
          requiredMessage={t('reject.required')}
          field="notes"
          submitLabel={t('reject.submit')}
          busyLabel={t('reject.busy')}
          busy={rejecting.isLoading}
          onSubmit={onReject}
          onClose={() => setRejectOpen(false)}
        />
      ) : null}
    </form>
  );
}

export function PaymentDetailsPage() {
  const { transactionId = '' } = useParams();
  const { data: user } = useCurrentUser();
  const staff = isStaff(user?.role);
  // Asked again while the network confirms it, so its confirmations and then its credit show
  // without a reload; the polling stops once it is decided.
  const deposit = useViewPaymentStatusQuery({ transactionId }, { skip: !transactionId });
  const following = followedOnChain(deposit.data);
  useViewPaymentStatusQuery({ transactionId }, { skip: !transactionId || !following, pollingInterval: CHAIN_POLL_MS });
  const { t } = useTranslation('deposits');
  const chain = useTranslation('chain').t;
  return (
    <section className="page container page--narrow" aria-labelledby="payment-title">
      {staff ? (
        <p className="eyebrow">
          <Link to="/admin-pending-deposit">{t('payment.back')}</Link>
        </p>
      ) : null}
      <h1 id="payment-title">{t('payment.title')}</h1>
      {!transactionId ? (
        <p role="alert">{t('payment.missing')}</p>
      ) : (
        <QueryState query={deposit} loading={t('payment.loading')} failed={t('payment.failed')}>
          {(data) => (
            <>
              <div aria-live="polite">
                <DepositDetails deposit={data} />
              </div>
              {!staff && followedOnChain(data) ? <p className="muted">{chain('investor.hint')}</p> : null}
              {staff && data.status === 'Pending' ? data.source === 'chain' ? <ChainNotice deposit={data} /> : <Decision deposit={data} /> : null}
            </>
          )}
        </QueryState>
      )}
    </section>
  );
}

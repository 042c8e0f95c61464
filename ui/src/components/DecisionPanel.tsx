import { useState, type FormEvent } from 'react';
import { useTranslation } from '../i18n';
import { FormError, useFormError } from './form/FormError';
import type { RunOutcome } from './useRunMutation';

// The words of one queue's decision; what the panel does is the same for every queue.
export interface DecisionWords {
  approve: string;
  approving: string;
  // The submit button of the rejection form, e.g. "Reject investment".
  reject: string;
  // Says who reads the reason, e.g. "Reason (e-mailed to the investor)".
  reasonLabel: string;
  // Set when a rejection needs a reason: what to say when it is missing.
  reasonRequired?: string;
}

interface Props {
  // Unique on the page: the reason field's id derives from it.
  id: string;
  words: DecisionWords;
  approving: boolean;
  rejecting: boolean;
  // Each runs its request with `formError` (pass it to useRunMutation): a refusal the panel does
  // not place itself (another reviewer was first, a bad reason) is shown above its buttons.
  onApprove: (formError: (message: string | null) => void) => Promise<RunOutcome<unknown>>;
  onReject: (reason: string, formError: (message: string | null) => void) => Promise<RunOutcome<unknown>>;
}

// Staff approve or reject one pending item, from its queue or its page. Another reviewer
// deciding first is the server's 409: its message stays on the item, not only in a toast.
export function DecisionPanel({ id, words, approving, rejecting, onApprove, onReject }: Props) {
  const { t } = useTranslation('staff');
  const [rejectOpen, setRejectOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState('');
  const [conflict, setConflict] = useState('');
  const [formError, setFormError] = useFormError();
  const busy = approving || rejecting;
  const reasonId = `decision-reason-${id}`;

  const settle = (outcome: RunOutcome<unknown>) => {
    if (outcome.ok) return;
    if (outcome.error.status === 409) setConflict(outcome.message);
    else if (outcome.error.field === 'reason') setReasonError(outcome.message);
    else return;
    setFormError(null); // said where it belongs instead

  };
  const approve = async () => {
    if (busy) return;
    settle(await onApprove(setFormError));
  };
  const reject = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (words.reasonRequired && !reason.trim()) {
      setReasonError(words.reasonRequired);
      return;
    }
    settle(await onReject(reason.trim(), setFormError));
  };

  if (conflict) {
    return (
      <p className="panel panel--warning" role="alert" data-testid="decision-conflict">
        {t('decision.conflict', { message: /[.!?]$/.test(conflict) ? conflict : `${conflict}.` })}
      </p>
    );
  }
  return (
    <div className="stack">
      <FormError message={formError} />
      <div className="button-row">
        <button type="button" className="button" aria-disabled={busy || undefined} onClick={() => void approve()}>
          {approving ? words.approving : words.approve}
        </button>
        <button type="button" className="button button--danger" aria-expanded={rejectOpen} aria-controls={`${reasonId}-form`} onClick={() => setRejectOpen((o) => !o)}>
          {t('decision.rejectOpen')}
        </button>
      </div>
      {rejectOpen ? (
        <form id={`${reasonId}-form`} className="form" onSubmit={(e) => void reject(e)} noValidate>
          <div className="field" data-invalid={reasonError ? true : undefined}>
            <label className="field__label" htmlFor={reasonId}>
              {words.reasonLabel}
            </label>
            <textarea
              id={reasonId}
              className="field__input"
              rows={3}
              maxLength={500}
              value={reason}
              onChange={(e) => {
                setReason(e.target.value);
                setReasonError('');
              }}
              aria-invalid={reasonError ? true : undefined}
              aria-describedby={reasonError ? `${reasonId}-error` : undefined}
            />
            {reasonError ? (
              <p id={`${reasonId}-error`} className="field__error">
                {reasonError}
              </p>
            ) : null}
          </div>
          <button type="submit" className="button button--danger" aria-disabled={busy || undefined}>
            {rejecting ? t('decision.rejecting') : words.reject}
          </button>
        </form>
      ) : null}
    </div>
  );
}

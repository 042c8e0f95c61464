import { useId, useState, type FormEvent } from 'react';
import { useApproveKycMutation, useRejectKycMutation, type KycDocumentRejection, type KycRejectionReason, type KycSide } from '../../api/enhanced';
import { Dialog } from '../../components/Dialog';
import { FormError, useFormError } from '../../components/form/FormError';
import { useKycWords } from '../../components/kycWords';
import { useTranslation } from '../../i18n';
import { useRunMutation, type RunOutcome } from '../../components/useRunMutation';

interface DecisionProps {
  userId: string;
  name: string;
  // The submission the reviewer looked at; the server answers 409 if another is pending now.
  submission: number;
  onClose: () => void;
  // Called with the outcome once the server has answered (success or refusal).
  onDecided: (outcome: RunOutcome<{ message: string }>) => void;
}

export function ApproveDialog({ userId, name, submission, onClose, onDecided }: DecisionProps) {
  const { t } = useTranslation('staff');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [approve, { isLoading }] = useApproveKycMutation();
  const confirm = async () => {
    if (isLoading) return;
    const outcome = await run(approve({ id: userId, kycApproveRequest: { submission } }), {
      fallback: t('kycDecision.approveFailed'),
      formError: setFormError,
    });
    onDecided(outcome);
  };
  return (
    <Dialog
      title={t('kycDecision.approveTitle', { name })}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void confirm()}>
            {isLoading ? t('kycDecision.approving') : t('kycDecision.approve')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('kycDecision.cancel')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <p>{t('kycDecision.approveText', { submission, name: name || t('kycDecision.theUser') })}</p>
    </Dialog>
  );
}

type Choices = Partial<Record<KycSide, { rejected: boolean; reason: KycRejectionReason | '' }>>;

// What the reject dialog sends: the ticked documents that have a reason, the comment, and the
// submission it is about.
export function rejectionBody(choices: Choices, comment: string, submission: number) {
  const documents: KycDocumentRejection[] = [];
  for (const side of ['front', 'back'] as const) {
    const choice = choices[side];
    if (choice?.rejected && choice.reason) documents.push({ side, reason: choice.reason });
  }
  const reason = comment.trim();
  return { documents, submission, ...(reason ? { reason } : {}) };
}

export function RejectDialog({ userId, name, submission, sides, onClose, onDecided }: DecisionProps & { sides: readonly KycSide[] }) {
  const { t } = useTranslation('staff');
  const words = useKycWords();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const formId = useId();
  const commentId = useId();
  const [reject, { isLoading }] = useRejectKycMutation();
  const [choices, setChoices] = useState<Choices>({});
  const [comment, setComment] = useState('');
  const body = rejectionBody(choices, comment, submission);
  const ready = body.documents.length > 0;

  const update = (side: KycSide, change: Partial<{ rejected: boolean; reason: KycRejectionReason | '' }>) =>
    setChoices((current) => ({ ...current, [side]: { rejected: false, reason: '', ...current[side], ...change } }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading || !ready) return;
    const outcome = await run(reject({ id: userId, kycRejectRequest: body }), {
      fallback: t('kycDecision.rejectFailed'),
      formError: setFormError,
    });
    onDecided(outcome);
  };

  return (
    <Dialog
      title={t('kycDecision.rejectTitle', { name })}
      tone="danger"
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button button--danger" disabled={!ready} aria-disabled={isLoading || undefined}>
            {isLoading ? t('kycDecision.rejecting') : t('kycDecision.reject')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('kycDecision.cancel')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <form id={formId} className="form" noValidate onSubmit={(event) => void submit(event)}>
        <p>{t('kycDecision.rejectIntro')}</p>
        {sides.map((side, index) => {
          const choice = choices[side];
          const reasonId = `${formId}-${side}-reason`;
          return (
            <fieldset key={side} className="reject-side">
              <legend className="field__label">{words.side(side)}</legend>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={choice?.rejected ?? false}
                  data-autofocus={index === 0 ? true : undefined}
                  onChange={(event) => update(side, { rejected: event.target.checked })}
                />{' '}
                {t(`kycDecision.rejectSide_${side}`)}
              </label>
              <div className="field">
                <label className="field__label field__label--plain" htmlFor={reasonId}>
                  {t(`kycDecision.reasonFor_${side}`)}
                </label>
                <select
                  id={reasonId}
                  className="field__input"
                  value={choice?.reason ?? ''}
                  disabled={!choice?.rejected}
                  onChange={(event) => update(side, { reason: event.target.value as KycRejectionReason | '' })}
                >
                  <option value="">{t('kycDecision.chooseReason')}</option>
                  {words.reasonOptions.map((option) => (
                    <option key={option.value} value={option.value}>
                      {option.label}
                    </option>
                  ))}
                </select>
              </div>
            </fieldset>
          );
        })}
        <div className="field">
          <label className="field__label" htmlFor={commentId}>
            {t('kycDecision.comment')} <span className="field__optional">{t('kycDecision.optional')}</span>
          </label>
          <textarea id={commentId} className="field__input field__textarea" rows={3} maxLength={1000} value={comment} onChange={(event) => setComment(event.target.value)} />
        </div>
        {!ready ? <p className="field__hint">{t('kycDecision.tickOne')}</p> : null}
      </form>
    </Dialog>
  );
}

import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { usePostCorrectionMutation, type CorrectionRequest, type UserMoney } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { APPROVALS_PATH, proposalOf } from '../../components/approvalWords';
import { Dialog } from '../../components/Dialog';
import { FormError, useFormError } from '../../components/form/FormError';
import { SelectField } from '../../components/form/SelectField';
import { FieldMessage, TextField } from '../../components/form/TextField';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { formatUsd } from '../../components/money';
import { useRunMutation } from '../../components/useRunMutation';
import { Trans, useLocale, useTranslation } from '../../i18n';
import { useStepUpFirst } from '../auth/useStepUpFirst';
import { cents, plain, UserMoneyFrame, useUserID } from './shared';

// /edit-user-balance/:id: an admin adds to or deducts from a user's available balance, with a
// category and a reason the investor sees (PUT /api/users/editDepositBalance/{id}). Above the
// threshold the correction waits for a second admin in the approvals queue.

const CATEGORIES = ['correction', 'goodwill', 'chargeback', 'other'] as const satisfies CorrectionRequest['category'][];
type Direction = CorrectionRequest['direction'];

interface Draft {
  direction: Direction;
  amount: string;
  category: CorrectionRequest['category'];
  reason: string;
}

function ConfirmDialog({ money, draft, onClose, onDone }: { money: UserMoney; draft: Draft; onClose: () => void; onDone: (proposalId?: string) => void }) {
  const { t } = useTranslation('corrections');
  const id = useUserID();
  const run = useRunMutation();
  const [post, { isLoading }] = usePostCorrectionMutation();
  const [formError, setFormError] = useFormError();
  // One key for this attempt: a second press, or a retry after a lost answer, posts once.
  const [key] = useState(newIdempotencyKey);
  const amount = cents(draft.amount) ?? 0n;
  const available = cents(money.balances.available) ?? 0n;
  const after = draft.direction === 'add' ? available + amount : available - amount;
  const threshold = cents(money.correctionThreshold) ?? 0n;
  const needsSecond = threshold > 0n && amount > threshold;
  const name = money.user.name || t('unnamed');
  const stepUpFirst = useStepUpFirst();
  const submit = async () => {
    if (isLoading) return;
    // A change of a user's money needs the admin, not just their session.
    if (!(await stepUpFirst())) return;
    const outcome = await run(post({ id, 'Idempotency-Key': key, correctionRequest: { ...draft, amount: plain(amount), reason: draft.reason.trim() } }), {
      fallback: t('correction.failed'),
      success: ({ message }) => message,
      formError: setFormError,
    });
    if (outcome.ok) onDone(proposalOf(outcome.data));
  };
  return (
    <Dialog
      title={t('correction.confirmTitle')}
      onClose={onClose}
      tone={draft.direction === 'deduct' ? 'warning' : 'default'}
      actions={
        <>
          <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void submit()} data-testid="correction-submit">
            {isLoading ? t('correction.posting') : needsSecond ? t('correction.propose') : t('correction.post')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('fees.back')}
          </button>
        </>
      }
    >
      <FormError message={formError} testId="correction-error" />
      <p>
        <Trans
          t={t}
          i18nKey={draft.direction === 'add' ? 'correction.confirmAdd' : 'correction.confirmDeduct'}
          values={{ name }}
          components={{ amount: <strong><Amount amount={plain(amount)} /></strong> }}
        />
      </p>
      <dl className="facts">
        <div className="facts__row">
          <dt>{t('correction.before')}</dt>
          <dd>
            <Amount amount={money.balances.available} />
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('correction.after')}</dt>
          <dd data-testid="correction-after">
            <Amount amount={plain(after)} />
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('correction.category')}</dt>
          <dd>{t(`category.${draft.category}`)}</dd>
        </div>
        <div className="facts__row">
          <dt>{t('correction.reason')}</dt>
          <dd className="break-anywhere">{draft.reason.trim()}</dd>
        </div>
      </dl>
      {needsSecond ? (
        <p className="panel panel--warning">
          <Trans t={t} i18nKey="correction.secondAdmin" components={{ amount: <Amount amount={money.correctionThreshold} /> }} />
        </p>
      ) : null}
    </Dialog>
  );
}

function CorrectionForm({ money }: { money: UserMoney }) {
  const { t } = useTranslation('corrections');
  const locale = useLocale();
  const formId = useId();
  const [draft, setDraft] = useState<Draft>({ direction: 'add', amount: '', category: 'correction', reason: '' });
  const [errors, setErrors] = useState<{ amount?: string; reason?: string }>({});
  const [confirming, setConfirming] = useState(false);
  const [proposed, setProposed] = useState(false);
  const max = formatUsd(money.balances.available, locale);
  const amountRef = useRef<HTMLInputElement>(null);

  const review = (event: FormEvent) => {
    event.preventDefault();
    const amount = cents(draft.amount);
    const next: typeof errors = {};
    if (amount === null || amount <= 0n) next.amount = t('correction.amountInvalid');
    else if (draft.direction === 'deduct' && amount > (cents(money.balances.available) ?? 0n)) next.amount = t('correction.tooMuch', { max });
    if (!draft.reason.trim()) next.reason = t('correction.reasonRequired');
    setErrors(next);
    const first = next.amount ? 'amount' : next.reason ? 'reason' : undefined;
    if (first === 'amount') amountRef.current?.focus();
    if (first === 'reason') document.getElementById(`${formId}-reason`)?.focus();
    if (first) return;
    setProposed(false);
    setConfirming(true);
  };
  const done = (proposalId?: string) => {
    setConfirming(false);
    setProposed(Boolean(proposalId));
    setDraft({ direction: 'add', amount: '', category: 'correction', reason: '' });
  };
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => {
    setDraft((d) => ({ ...d, [k]: v }));
    if (k === 'amount' || k === 'reason' || k === 'direction') setErrors({});
  };
  const fieldError = (name: 'amount' | 'reason') =>
    errors[name] ? { invalid: true, describedBy: `${formId}-${name}-error`, message: errors[name] } : undefined;

  return (
    <section className="panel stack" aria-labelledby={`${formId}-title`}>
      <h2 id={`${formId}-title`} className="panel__title">
        {t('correction.heading')}
      </h2>
      <p>{t('correction.intro')}</p>
      <p className="muted">
        <Trans t={t} i18nKey="correction.threshold" components={{ amount: <Amount amount={money.correctionThreshold} /> }} />
      </p>
      {proposed ? (
        <p className="panel" role="status" data-testid="correction-proposed">
          <Trans t={t} i18nKey="correction.proposed" components={{ queue: <Link to={APPROVALS_PATH} /> }} />
        </p>
      ) : null}
      <form className="stack" onSubmit={review} noValidate>
        <fieldset className="field segmented">
          <legend className="field__label">{t('correction.direction')}</legend>
          {(['add', 'deduct'] as const).map((d) => (
            <label key={d} className="segmented__option">
              <input type="radio" name={`${formId}-direction`} value={d} checked={draft.direction === d} onChange={() => set('direction', d)} />
              <span>{t(`direction.${d}`)}</span>
            </label>
          ))}
        </fieldset>
        <TextField
          ref={amountRef}
          label={t('correction.amount')}
          hint={draft.direction === 'deduct' ? t('correction.amountHint', { max }) : undefined}
          inputMode="decimal"
          autoComplete="off"
          value={draft.amount}
          onChange={(e) => set('amount', e.target.value)}
          error={fieldError('amount')}
          data-testid="correction-amount"
        />
        <SelectField label={t('correction.category')} value={draft.category} onChange={(e) => set('category', e.target.value as Draft['category'])}>
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {t(`category.${c}`)}
            </option>
          ))}
        </SelectField>
        <div className="field" data-invalid={errors.reason ? true : undefined}>
          <label className="field__label" htmlFor={`${formId}-reason`}>
            {t('correction.reason')}
          </label>
          <textarea
            id={`${formId}-reason`}
            className="field__input field__textarea"
            rows={3}
            maxLength={500}
            value={draft.reason}
            onChange={(e) => set('reason', e.target.value)}
            aria-invalid={errors.reason ? true : undefined}
            aria-describedby={errors.reason ? `${formId}-reason-error` : undefined}
            data-testid="correction-reason"
          />
          <FieldMessage id={`${formId}-reason-error`} message={errors.reason} />
        </div>
        <div className="button-row">
          <button type="submit" className="button" data-testid="correction-review">
            {t('correction.review')}
          </button>
        </div>
      </form>
      {confirming ? <ConfirmDialog money={money} draft={draft} onClose={() => setConfirming(false)} onDone={done} /> : null}
    </section>
  );
}

export function CorrectionPage() {
  const { t } = useTranslation('corrections');
  return (
    <UserMoneyFrame titleId="correction-title" title={t('nav.correction')}>
      {(money) => <CorrectionForm money={money} />}
    </UserMoneyFrame>
  );
}

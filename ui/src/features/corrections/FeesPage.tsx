import { useId, useRef, useState, type FormEvent } from 'react';
import { useSetFeeExemptionMutation, useWaiveFeeMutation, type StaffFee, type UserMoney } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Dialog } from '../../components/Dialog';
import { formatDate, formatDateTime } from '../../components/format';
import { FormError, useFormError } from '../../components/form/FormError';
import { FieldMessage, TextField } from '../../components/form/TextField';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { useLabels } from '../../components/labels';
import { formatUsd } from '../../components/money';
import { TextDecisionDialog } from '../../components/TextDecisionDialog';
import { useRunMutation } from '../../components/useRunMutation';
import { Trans, useLocale, useTranslation } from '../../i18n';
import { useStepUpFirst } from '../auth/useStepUpFirst';
import { cents, plain, UserMoneyFrame, useUserID } from './shared';

// /update-fee/:id: a user's withdrawal fees, each with what was refunded; a charged fee is waived
// (refunded) with a reason (POST /api/users/waive-fee/{id}), after a step that shows the figures;
// and the user's fee exemption is turned on or off with a reason (PUT /api/users/fees-toggle/{id}).

function WaiveDialog({ money, fee, onClose }: { money: UserMoney; fee: StaffFee; onClose: () => void }) {
  const { t } = useTranslation('corrections');
  const locale = useLocale();
  const id = useUserID();
  const formId = useId();
  const run = useRunMutation();
  const [waive, { isLoading }] = useWaiveFeeMutation();
  const [formError, setFormError] = useFormError();
  const left = (cents(fee.fee) ?? 0n) - (cents(fee.feeWaived) ?? 0n);
  const [amount, setAmount] = useState(plain(left));
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<{ amount?: string; reason?: string }>({});
  const [step, setStep] = useState<'edit' | 'confirm'>('edit');
  const [key, setKey] = useState(newIdempotencyKey);
  const amountRef = useRef<HTMLInputElement>(null);
  const max = formatUsd(plain(left), locale);

  const review = (event: FormEvent) => {
    event.preventDefault();
    const c = cents(amount);
    const next: typeof errors = {};
    if (c === null || c <= 0n) next.amount = t('correction.amountInvalid');
    else if (c > left) next.amount = t('fees.waiveTooMuch', { max });
    if (!reason.trim()) next.reason = t('correction.reasonRequired');
    setErrors(next);
    if (next.amount) return amountRef.current?.focus();
    if (next.reason) return document.getElementById(`${formId}-reason`)?.focus();
    setKey(newIdempotencyKey());
    setStep('confirm');
  };
  const stepUpFirst = useStepUpFirst();
  const submit = async () => {
    if (isLoading) return;
    if (!(await stepUpFirst())) return;
    const outcome = await run(
      waive({ id, 'Idempotency-Key': key, waiveFeeRequest: { withdrawalId: fee.withdrawalId, amount: plain(cents(amount) ?? 0n), reason: reason.trim() } }),
      { fallback: t('fees.waiveFailed'), success: ({ message }) => message, formError: setFormError },
    );
    if (outcome.ok) onClose();
  };
  const fieldError = (name: 'amount' | 'reason') =>
    errors[name] ? { invalid: true, describedBy: `${formId}-${name}-error`, message: errors[name] } : undefined;

  if (step === 'confirm') {
    return (
      <Dialog
        title={t('fees.waiveTitle')}
        onClose={onClose}
        actions={
          <>
            <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void submit()} data-testid="waive-submit">
              {isLoading ? t('fees.waiving') : t('fees.waiveSubmit')}
            </button>
            <button type="button" className="button button--secondary" onClick={() => setStep('edit')}>
              {t('fees.back')}
            </button>
          </>
        }
      >
        <FormError message={formError} testId="waive-error" />
        <p>
          <Trans
            t={t}
            i18nKey="fees.waiveConfirm"
            values={{ name: money.user.name || t('unnamed') }}
            components={{ amount: <strong><Amount amount={plain(cents(amount) ?? 0n)} /></strong> }}
          />
        </p>
        <dl className="facts">
          <div className="facts__row">
            <dt>{t('fees.charged')}</dt>
            <dd>
              <Amount amount={fee.fee} />
            </dd>
          </div>
          <div className="facts__row">
            <dt>{t('fees.waived')}</dt>
            <dd>
              <Amount amount={fee.feeWaived} />
            </dd>
          </div>
          <div className="facts__row">
            <dt>{t('fees.waiveReason')}</dt>
            <dd className="break-anywhere">{reason.trim()}</dd>
          </div>
        </dl>
      </Dialog>
    );
  }
  return (
    <Dialog
      title={t('fees.waiveTitle')}
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" data-testid="waive-review">
            {t('correction.review')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('fees.back')}
          </button>
        </>
      }
    >
      <form id={formId} className="stack" onSubmit={review} noValidate>
        <TextField
          ref={amountRef}
          label={t('fees.waiveAmount')}
          hint={t('fees.waiveAmountHint', { max })}
          inputMode="decimal"
          autoComplete="off"
          value={amount}
          onChange={(e) => {
            setAmount(e.target.value);
            setErrors({});
          }}
          error={fieldError('amount')}
          data-autofocus
          data-testid="waive-amount"
        />
        <div className="field" data-invalid={errors.reason ? true : undefined}>
          <label className="field__label" htmlFor={`${formId}-reason`}>
            {t('fees.waiveReason')}
          </label>
          <textarea
            id={`${formId}-reason`}
            className="field__input field__textarea"
            rows={3}
            maxLength={500}
            value={reason}
            onChange={(e) => {
              setReason(e.target.value);
              setErrors({});
            }}
            aria-invalid={errors.reason ? true : undefined}
            aria-describedby={errors.reason ? `${formId}-reason-error` : undefined}
            data-testid="waive-reason"
          />
          <FieldMessage id={`${formId}-reason-error`} message={errors.reason} />
        </div>
      </form>
    </Dialog>
  );
}

function FeeItem({ money, fee }: { money: UserMoney; fee: StaffFee }) {
  const { t } = useTranslation('corrections');
  const labels = useLabels();
  const locale = useLocale();
  const [open, setOpen] = useState(false);
  const left = (cents(fee.fee) ?? 0n) - (cents(fee.feeWaived) ?? 0n);
  const approved = fee.status === 'Approved';
  return (
    <li className="queue-item queue-item--decide" data-testid="fee-item">
      <div className="queue-item__who">
        <h3 className="queue-item__name">
          <Trans t={t} i18nKey="fees.withdrawal" components={{ amount: <Amount amount={fee.amount} /> }} />
          <span className="queue-item__badge badge">{labels.withdrawal(fee.status)}</span>
        </h3>
        <p className="muted">{t('fees.requested', { date: formatDate(fee.requestedAt, locale) })}</p>
        {approved ? (
          <dl className="facts">
            <div className="facts__row">
              <dt>{t('fees.charged')}</dt>
              <dd>
                <Amount amount={fee.fee} />
              </dd>
            </div>
            <div className="facts__row">
              <dt>{t('fees.waived')}</dt>
              <dd data-testid="fee-waived">
                <Amount amount={fee.feeWaived} />
              </dd>
            </div>
            <div className="facts__row">
              <dt>{t('fees.left')}</dt>
              <dd>
                <Amount amount={plain(left)} />
              </dd>
            </div>
          </dl>
        ) : (
          <p className="muted">{t('fees.pending')}</p>
        )}
      </div>
      {approved && left > 0n ? (
        <div className="queue-item__decision">
          <button type="button" className="button button--secondary" onClick={() => setOpen(true)} data-testid="fee-waive">
            {t('fees.waive')}
          </button>
        </div>
      ) : null}
      {open ? <WaiveDialog money={money} fee={fee} onClose={() => setOpen(false)} /> : null}
    </li>
  );
}

function Exemption({ money }: { money: UserMoney }) {
  const { t } = useTranslation('corrections');
  const locale = useLocale();
  const id = useUserID();
  const run = useRunMutation();
  const [toggle, { isLoading }] = useSetFeeExemptionMutation();
  const [open, setOpen] = useState(false);
  const stepUpFirst = useStepUpFirst();
  const turningOn = !money.feeExempt;
  return (
    <section className="panel stack" aria-labelledby="fee-exemption-title" data-testid="fee-exemption">
      <h2 id="fee-exemption-title" className="panel__title">
        {t('fees.exemption')}
      </h2>
      <p>{money.feeExempt ? t('fees.exemptOn') : t('fees.exemptOff')}</p>
      {money.exemptionAt && money.exemptionReason ? (
        <p className="muted break-anywhere">{t('fees.exemptSince', { date: formatDateTime(money.exemptionAt, locale), reason: money.exemptionReason })}</p>
      ) : null}
      <div className="button-row">
        <button type="button" className="button button--secondary" onClick={() => setOpen(true)} data-testid="exemption-toggle">
          {turningOn ? t('fees.turnOn') : t('fees.turnOff')}
        </button>
      </div>
      {open ? (
        <TextDecisionDialog
          title={turningOn ? t('fees.turnOnTitle') : t('fees.turnOffTitle')}
          intro={turningOn ? t('fees.turnOnIntro') : t('fees.turnOffIntro')}
          label={t('fees.exemptReason')}
          multiline
          requiredMessage={t('correction.reasonRequired')}
          field="reason"
          submitLabel={turningOn ? t('fees.turnOn') : t('fees.turnOff')}
          busyLabel={t('fees.saving')}
          busy={isLoading}
          onSubmit={async (reason, formError) => {
            if (!(await stepUpFirst())) return { ok: false, error: { status: 403 }, message: '' };
            return run(toggle({ id, feeExemptionRequest: { exempt: turningOn, reason } }), {
              fallback: t('fees.exemptFailed'),
              success: ({ message }) => message,
              formError,
            });
          }}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </section>
  );
}

export function FeesPage() {
  const { t } = useTranslation('corrections');
  return (
    <UserMoneyFrame titleId="fees-title" title={t('fees.heading')}>
      {(money) => (
        <>
          <p>{t('fees.intro')}</p>
          <Exemption money={money} />
          {money.fees.length === 0 ? (
            <p className="empty">{t('fees.empty')}</p>
          ) : (
            <ul className="queue" aria-label={t('fees.listLabel')}>
              {money.fees.map((fee) => (
                <FeeItem key={fee.withdrawalId} money={money} fee={fee} />
              ))}
            </ul>
          )}
        </>
      )}
    </UserMoneyFrame>
  );
}

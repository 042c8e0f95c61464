import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { FormError, useFormError } from '../../components/form/FormError';
import { SubmitButton } from '../../components/form/SubmitButton';
import { TextField } from '../../components/form/TextField';
import type { ApiErrorInfo } from '../../api/errors';
import { useTranslation } from '../../i18n';

// The shape every change in the console takes (docs/staff.md, "Settings"): the form, a required
// reason, then a confirm step showing each value old → new; only the confirmation sends the
// change, with one Idempotency-Key for that confirmed change.

export type Values = Record<string, string>;

export interface FieldSpec {
  name: string;
  label: string;
  hint?: string;
  type?: 'text' | 'email' | 'number';
  inputMode?: 'decimal' | 'numeric' | 'email' | 'text';
  optional?: boolean;
  // How the value reads in the confirm step.
  show?: (value: string) => ReactNode;
}

export const MIN_REASON = 3;

export interface SendResult {
  ok: boolean;
  error?: ApiErrorInfo;
}

interface ChangeFormProps {
  idPrefix: string;
  fields: readonly FieldSpec[];
  initial: Values;
  // The values in force, for the confirm step's "old" column (a new plan has none).
  current?: Values;
  submitLabel: string;
  // Extra editors (the deposit address rows) rendered before the reason.
  editor?: (props: { values: Values; setValues: (v: Values) => void; errors: Record<string, string> }) => ReactNode;
  // The confirm step's rows when the fields alone do not describe the change.
  summary?: (values: Values) => ReactNode;
  send: (values: Values, reason: string, idempotencyKey: string) => Promise<SendResult>;
  onDone?: () => void;
  onCancel?: () => void;
}

export function ChangeForm({ idPrefix, fields, initial, current, submitLabel, editor, summary, send, onDone, onCancel }: ChangeFormProps) {
  const { t } = useTranslation('settings');
  const [values, setValues] = useState<Values>(initial);
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [step, setStep] = useState<'edit' | 'confirm'>('edit');
  const [busy, setBusy] = useState(false);
  const [formError, setFormError] = useFormError();
  const key = useRef('');
  const confirmRef = useRef<HTMLHeadingElement>(null);
  const formId = useId();
  const focusField = (name: string) =>
    document.getElementById(formId)?.querySelector<HTMLElement>(`[name="${name}"]`)?.focus();

  const review = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim().length < MIN_REASON) {
      setErrors({ reason: t('reasonRequired') });
      focusField('reason');
      return;
    }
    setErrors({});
    key.current = newIdempotencyKey();
    setStep('confirm');
    requestAnimationFrame(() => confirmRef.current?.focus());
  };

  const confirm = async () => {
    if (busy) return;
    setBusy(true);
    const outcome = await send(values, reason.trim(), key.current);
    setBusy(false);
    if (outcome.ok) {
      setReason('');
      setStep('edit');
      onDone?.();
      return;
    }
    setStep('edit');
    const field = outcome.error?.field;
    const message = outcome.error?.message ?? t('failed');
    if (field) {
      setErrors({ [field]: message });
      requestAnimationFrame(() => focusField(field));
    } else {
      setFormError(message);
    }
  };

  if (step === 'confirm') {
    const changed = fields.filter((f) => (current?.[f.name] ?? '') !== (values[f.name] ?? ''));
    return (
      <div className="panel stack" role="group" aria-labelledby={`${idPrefix}-confirm`} data-testid={`${idPrefix}-confirm`}>
        <h3 id={`${idPrefix}-confirm`} tabIndex={-1} ref={confirmRef}>
          {t('confirmTitle')}
        </h3>
        {summary ? (
          summary(values)
        ) : (
          <dl className="facts">
            {changed.map((f) => (
              <div key={f.name} className="facts__row">
                <dt>{f.label}</dt>
                <dd>
                  {current ? (
                    <>
                      <span className="muted">{show(f, current[f.name] ?? '', t('none'))}</span>
                      {' → '}
                    </>
                  ) : null}
                  <strong>{show(f, values[f.name] ?? '', t('none'))}</strong>
                </dd>
              </div>
            ))}
          </dl>
        )}
        <p>
          <strong>{t('reason')}:</strong> {reason.trim()}
        </p>
        <div className="button-row">
          <button type="button" className="button" aria-disabled={busy || undefined} onClick={() => void confirm()}>
            {busy ? t('saving') : t('confirm')}
          </button>
          <button type="button" className="button button--secondary" onClick={() => setStep('edit')}>
            {t('back')}
          </button>
        </div>
      </div>
    );
  }

  return (
    <form id={formId} className="form stack" onSubmit={review} noValidate aria-labelledby={`${idPrefix}-title`}>
      <FormError message={formError} />
      {fields.map((f) => (
        <TextField
          key={f.name}
          label={f.label}
          hint={f.hint}
          type={f.type ?? 'text'}
          inputMode={f.inputMode}
          optional={f.optional}
          value={values[f.name] ?? ''}
          onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
          error={errors[f.name] ? { invalid: true, describedBy: `${formId}-${f.name}-error`, message: errors[f.name] } : undefined}
          name={f.name}
        />
      ))}
      {editor?.({ values, setValues, errors })}
      <TextField
        label={t('reason')}
        hint={t('reasonHint')}
        value={reason}
        maxLength={500}
        onChange={(e) => setReason(e.target.value)}
        error={errors.reason ? { invalid: true, describedBy: `${formId}-reason-error`, message: errors.reason } : undefined}
        name="reason"
      />
      <div className="button-row">
        <SubmitButton busy={false} busyLabel={t('saving')} className="button">
          {submitLabel}
        </SubmitButton>
        {onCancel ? (
          <button type="button" className="button button--secondary" onClick={onCancel}>
            {t('cancel')}
          </button>
        ) : null}
      </div>
    </form>
  );
}

function show(f: FieldSpec, value: string, none: string): ReactNode {
  if (value.trim() === '') return none;
  return f.show ? f.show(value) : value;
}

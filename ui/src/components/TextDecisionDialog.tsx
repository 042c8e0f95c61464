import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from '../i18n';
import { Dialog } from './Dialog';
import { FormError, useFormError } from './form/FormError';
import type { RunOutcome } from './useRunMutation';

interface TextDecisionDialogProps {
  title: string;
  tone?: 'default' | 'danger';
  // What deciding does, in words, above the field.
  intro: ReactNode;
  label: string;
  multiline?: boolean;
  // The longest text the field takes (default 500 characters).
  maxLength?: number;
  // Shown when the field is left empty; nothing is sent then.
  requiredMessage: string;
  // The server's field (or fields) whose error belongs under the input (any other error is the
  // toast's).
  field: string | readonly string[];
  submitLabel: string;
  busyLabel: string;
  busy: boolean;
  // Sends the decision with the trimmed text; the dialog closes when it succeeds. A refusal that
  // is not about the field goes to `formError` (pass it to useRunMutation), shown in the dialog.
  onSubmit: (text: string, formError: (message: string | null) => void) => Promise<RunOutcome<unknown>>;
  onClose: () => void;
}

// A staff decision that needs one piece of text (a payout hash, a reason): the dialog, the field
// with its own error, and the submit and cancel buttons.
export function TextDecisionDialog(props: TextDecisionDialogProps) {
  const { title, tone = 'default', intro, label, multiline, maxLength = 500, requiredMessage, field, submitLabel, busyLabel, busy, onSubmit, onClose } = props;
  const { t } = useTranslation('staff');
  const formId = useId();
  const inputId = `${formId}-input`;
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [formError, setFormError] = useFormError();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The dialog is often opened from inside another form (a deposit's confirm form): React
    // carries a submit event up through the component tree, portal or not, and the enclosing
    // form must not take this one for its own.
    event.stopPropagation();
    if (busy) return;
    if (!text.trim()) {
      setError(requiredMessage);
      document.getElementById(inputId)?.focus();
      return;
    }
    const outcome = await onSubmit(text.trim(), setFormError);
    if (outcome.ok) onClose();
    else if (outcome.error.field !== undefined && (typeof field === 'string' ? [field] : field).includes(outcome.error.field)) {
      setFormError(null);
      setError(outcome.message);
      document.getElementById(inputId)?.focus();
    }
  };
  const inputProps = {
    id: inputId,
    className: 'field__input',
    value: text,
    onChange: (e: { target: { value: string } }) => {
      setText(e.target.value);
      setError('');
    },
    'data-autofocus': true,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${inputId}-error` : undefined,
  };
  return (
    <Dialog
      title={title}
      tone={tone}
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className={tone === 'danger' ? 'button button--danger' : 'button'} aria-disabled={busy || undefined}>
            {busy ? busyLabel : submitLabel}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('dialog.cancel')}
          </button>
        </>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        <FormError message={formError} />
        {intro}
        <div className="field" data-invalid={error ? true : undefined}>
          <label className="field__label" htmlFor={inputId}>
            {label}
          </label>
          {multiline ? <textarea {...inputProps} rows={3} maxLength={maxLength} /> : <input {...inputProps} autoCapitalize="none" spellCheck={false} />}
          {error ? (
            <p id={`${inputId}-error`} className="field__error">
              {error}
            </p>
          ) : null}
        </div>
      </form>
    </Dialog>
  );
}

import { useId, useState, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';
import { useTranslation } from '../../i18n';
import type { FieldErrorState } from './useSpecForm';

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  hint?: ReactNode;
  error?: FieldErrorState;
  ref?: Ref<HTMLInputElement>;
  // Extra content after the input inside the field's row, e.g. a "Show" button.
  addon?: ReactNode;
  // Content below the hint that describes the field (e.g. a checklist); gets an id for aria.
  details?: ReactNode;
  optional?: boolean;
}

export function describedBy(...ids: (string | undefined | false)[]) {
  const joined = ids.filter(Boolean).join(' ');
  return joined || undefined;
}

export function FieldMessage({ id, message }: { id?: string; message?: string }) {
  if (!id || !message) return null;
  return (
    <p id={id} className="field__error">
      {message}
    </p>
  );
}

export function TextField({ label, hint, error, addon, details, optional, className, ref, ...input }: TextFieldProps) {
  const id = useId();
  const { t } = useTranslation('forms');
  const hintId = hint ? `${id}-hint` : undefined;
  const detailsId = details ? `${id}-details` : undefined;
  return (
    <div className={`field${className ? ` ${className}` : ''}`} data-invalid={error?.invalid || undefined}>
      <label className="field__label" htmlFor={id}>
        {label}
        {optional ? <span className="field__optional"> {t('field.optional')}</span> : null}
      </label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      <div className="field__row">
        <input
          id={id}
          ref={ref}
          className="field__input"
          aria-invalid={error?.invalid || undefined}
          aria-describedby={describedBy(error?.describedBy, hintId, detailsId)}
          {...input}
        />
        {addon}
      </div>
      <FieldMessage id={error?.describedBy} message={error?.message} />
      {details ? <div id={detailsId}>{details}</div> : null}
    </div>
  );
}

type PasswordFieldProps = Omit<TextFieldProps, 'type' | 'addon'>;

// Beginners mistype passwords; letting them look is safer than making them guess.
export function PasswordField(props: PasswordFieldProps) {
  const [visible, setVisible] = useState(false);
  const { t, i18n } = useTranslation('forms');
  // English lowercases a label inside a sentence ("Show password"); German quotes it as it stands
  // (its nouns keep their capitals).
  const field = i18n.resolvedLanguage === 'en' ? props.label.toLowerCase() : props.label;
  return (
    <TextField
      {...props}
      type={visible ? 'text' : 'password'}
      autoCapitalize="none"
      spellCheck={false}
      addon={
        <button
          type="button"
          className="field__addon"
          aria-pressed={visible}
          aria-label={t('field.showLabel', { field })}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? t('field.hide') : t('field.show')}
        </button>
      }
    />
  );
}

// An e-mail address: no capital letter or spelling fix from a phone's keyboard, and the browser's
// saved address offered.
export function EmailField(props: Omit<TextFieldProps, 'type'>) {
  return <TextField type="email" autoComplete="email" autoCapitalize="none" spellCheck={false} {...props} />;
}

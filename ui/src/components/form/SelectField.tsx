import { useId, type ReactNode, type Ref, type SelectHTMLAttributes } from 'react';
import { describedBy, FieldMessage } from './TextField';
import type { FieldErrorState } from './useSpecForm';

interface SelectFieldProps extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> {
  label: string;
  hint?: ReactNode;
  error?: FieldErrorState;
  ref?: Ref<HTMLSelectElement>;
  children: ReactNode;
}

export function SelectField({ label, hint, error, ref, children, ...select }: SelectFieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field" data-invalid={error?.invalid || undefined}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      <select
        id={id}
        ref={ref}
        className="field__input field__select"
        aria-invalid={error?.invalid || undefined}
        aria-describedby={describedBy(error?.describedBy, hintId)}
        {...select}
      >
        {children}
      </select>
      <FieldMessage id={error?.describedBy} message={error?.message} />
    </div>
  );
}

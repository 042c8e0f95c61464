import type { Ref } from 'react';
import type { FieldErrorState } from '../../components/form/useSpecForm';
import { Trans, useTranslation } from '../../i18n';

export const TERMS_PATH = '/license';
export const PRIVACY_PATH = '/privacy-policy';

// The documents open in a new tab, so the form keeps what the person typed; each link says so.
function DocumentLink({ to, children }: { to: string; children?: React.ReactNode }) {
  const { t } = useTranslation('auth');
  return (
    <a href={to} target="_blank" rel="noopener">
      {children}
      <span className="consent__new-tab">
        {' '}
        <span aria-hidden="true">↗</span>
        <span className="visually-hidden">{t('consent.newTab')}</span>
      </span>
    </a>
  );
}

// "I agree to the Terms and the Privacy Policy": required to create an account
// (docs/identity.md, "Consent").
export function TermsConsent({ checked, onChange, error, ref, name, onBlur }: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  error: FieldErrorState;
  ref?: Ref<HTMLInputElement>;
  name: string;
  onBlur: () => void;
}) {
  const { t } = useTranslation('auth');
  return (
    <div className="field consent" data-invalid={error.invalid || undefined}>
      <label className="checkbox consent__label">
        <input
          ref={ref}
          type="checkbox"
          name={name}
          checked={checked}
          onBlur={onBlur}
          onChange={(event) => onChange(event.target.checked)}
          aria-invalid={error.invalid || undefined}
          aria-describedby={error.describedBy}
          required
        />
        <span>
          <Trans
            t={t}
            i18nKey="consent.label"
            components={{ terms: <DocumentLink to={TERMS_PATH} />, privacy: <DocumentLink to={PRIVACY_PATH} /> }}
          />
        </span>
      </label>
      {error.describedBy && error.message ? (
        <p id={error.describedBy} className="field__error">
          {error.message}
        </p>
      ) : null}
    </div>
  );
}

import type { UseFormRegisterReturn } from 'react-hook-form';
import { TextField } from '../../components/form/TextField';
import type { FieldErrorState } from '../../components/form/useSpecForm';
import { useTranslation } from '../../i18n';

// The authenticator step, shown on the same page once the server answers `totp_required`.
export function TotpField({ registration, error }: { registration: UseFormRegisterReturn; error: FieldErrorState }) {
  const { t } = useTranslation('auth');
  return (
    <TextField
      label={t('totp.label')}
      hint={t('totp.hint')}
      inputMode="numeric"
      autoComplete="one-time-code"
      autoCapitalize="none"
      spellCheck={false}
      error={error}
      {...registration}
    />
  );
}

import type { UseFormRegisterReturn } from 'react-hook-form';
import { TextField } from '../../components/form/TextField';
import type { FieldErrorState } from '../../components/form/useSpecForm';

// The authenticator step, shown on the same page once the server answers `totp_required`.
export function TotpField({ registration, error }: { registration: UseFormRegisterReturn; error: FieldErrorState }) {
  return (
    <TextField
      label="Authenticator code"
      hint="Two-step verification is on for this account. Enter the 6-digit code from your authenticator app, or one of your recovery codes."
      inputMode="numeric"
      autoComplete="one-time-code"
      autoCapitalize="none"
      spellCheck={false}
      error={error}
      {...registration}
    />
  );
}

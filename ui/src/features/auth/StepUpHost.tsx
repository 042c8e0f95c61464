import { useEffect, useId, useState, type FormEvent } from 'react';
import { useStepUpMutation } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { setStepUpPrompt } from '../../api/stepUp';
import { Dialog } from '../../components/Dialog';
import { useCurrentUser } from './session';

export const STEP_UP_CODE_EMPTY = 'Please enter the 6-digit code from your authenticator app.';
export const STEP_UP_PASSWORD_EMPTY = 'Please enter your password.';

// Answers the base query's "ask the person" (api/stepUp.ts): while a request waits for a step-up,
// the dialog asks for the authenticator code (accounts with two-step verification) or the
// password, confirms it with the server, and lets the request go again. Closing it declines.
export function StepUpHost() {
  const [resolve, setResolve] = useState<((confirmed: boolean) => void) | null>(null);
  useEffect(() => setStepUpPrompt(() => new Promise<boolean>((done) => setResolve(() => done))), []);
  if (!resolve) return null;
  const finish = (confirmed: boolean) => {
    resolve(confirmed);
    setResolve(null);
  };
  return <StepUpDialog onConfirmed={() => finish(true)} onClose={() => finish(false)} />;
}

export function StepUpDialog({ onConfirmed, onClose }: { onConfirmed: () => void; onClose: () => void }) {
  const { data: user } = useCurrentUser();
  const withCode = user?.twoFactorEnabled ?? false;
  const [stepUp, { isLoading }] = useStepUpMutation();
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const formId = useId();
  const inputId = `${formId}-input`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading) return;
    const typed = withCode ? value.trim() : value;
    if (!typed) {
      setError(withCode ? STEP_UP_CODE_EMPTY : STEP_UP_PASSWORD_EMPTY);
      return;
    }
    try {
      await stepUp({ stepUpRequest: withCode ? { code: typed } : { password: typed } }).unwrap();
    } catch (raw) {
      setError(errorMessage(raw, 'That could not be confirmed. Please try again.'));
      return;
    }
    onConfirmed();
  };

  return (
    <Dialog
      title="Confirm it's you"
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" aria-disabled={isLoading || undefined}>
            {isLoading ? 'Checking…' : 'Confirm'}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            Cancel
          </button>
        </>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        <p>
          For your safety, moving money out of your account needs you, not just a signed-in browser.{' '}
          {withCode ? 'Enter the code from your authenticator app' : 'Enter your password'} to continue. It counts for 5 minutes.
        </p>
        <div className="field" data-invalid={error ? true : undefined}>
          <label className="field__label" htmlFor={inputId}>
            {withCode ? 'Authenticator code' : 'Password'}
          </label>
          <input
            id={inputId}
            className="field__input"
            type={withCode ? 'text' : 'password'}
            inputMode={withCode ? 'numeric' : undefined}
            autoComplete={withCode ? 'one-time-code' : 'current-password'}
            autoCapitalize="none"
            spellCheck={false}
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              setError('');
            }}
            data-autofocus
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${inputId}-error` : undefined}
          />
          {error ? (
            <p id={`${inputId}-error`} className="field__error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
      </form>
    </Dialog>
  );
}

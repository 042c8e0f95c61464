import { useEffect, useId, useState, type FormEvent } from 'react';
import { useBeginPasskeyStepUpMutation, useGetStepUpQuery, useStepUpMutation } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { setStepUpPrompt } from '../../api/stepUp';
import { Dialog } from '../../components/Dialog';
import { useCurrentUser } from './session';
import { useTranslation } from '../../i18n';
import { getPasskey, isPasskeyDismissed, passkeysSupported } from './webauthn';


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
  const { t } = useTranslation('auth');
  const { data: user } = useCurrentUser();
  const withCode = user?.twoFactorEnabled ?? false;
  const { t: tp } = useTranslation('passkeys');
  const [stepUp, { isLoading: stepping }] = useStepUpMutation();
  const [beginPasskey, { isLoading: beginning }] = useBeginPasskeyStepUpMutation();
  // Asked afresh each time: a passkey added or removed since changes the answer.
  const { data: state } = useGetStepUpQuery(undefined, { refetchOnMountOrArgChange: true });
  const [waiting, setWaiting] = useState(false);
  const isLoading = stepping || beginning || waiting;
  const withPasskey = (state?.passkey ?? false) && passkeysSupported();
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [passkeyError, setPasskeyError] = useState('');
  const formId = useId();
  const inputId = `${formId}-input`;

  // "Use a passkey": the server's challenge for this session, the browser's answer, and the
  // step-up request with it instead of a code or password.
  const confirmWithPasskey = async () => {
    if (isLoading) return;
    setPasskeyError('');
    try {
      const ceremony = await beginPasskey().unwrap();
      setWaiting(true);
      let credential: Record<string, unknown>;
      try {
        credential = await getPasskey(ceremony.publicKey);
      } finally {
        setWaiting(false);
      }
      await stepUp({ stepUpRequest: { passkey: { challengeId: ceremony.challengeId, credential } } }).unwrap();
    } catch (raw) {
      if (!isPasskeyDismissed(raw)) setPasskeyError(errorMessage(raw, tp('stepUpFailed')));
      return;
    }
    onConfirmed();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (isLoading) return;
    const typed = withCode ? value.trim() : value;
    if (!typed) {
      setError(withCode ? t('stepUp.codeEmpty') : t('stepUp.passwordEmpty'));
      return;
    }
    try {
      await stepUp({ stepUpRequest: withCode ? { code: typed } : { password: typed } }).unwrap();
    } catch (raw) {
      setError(errorMessage(raw, t('stepUp.failed')));
      return;
    }
    onConfirmed();
  };

  return (
    <Dialog
      title={t('stepUp.title')}
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" aria-disabled={isLoading || undefined}>
            {isLoading ? t('stepUp.checking') : t('stepUp.confirm')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('stepUp.cancel')}
          </button>
        </>
      }
    >
      <form id={formId} className="form" onSubmit={(e) => void submit(e)} noValidate>
        <p>{withCode ? t('stepUp.whyCode') : t('stepUp.whyPassword')}</p>
        <div className="field" data-invalid={error ? true : undefined}>
          <label className="field__label" htmlFor={inputId}>
            {withCode ? t('stepUp.code') : t('stepUp.password')}
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
      {withPasskey ? (
        <div className="stack">
          <p>{tp('stepUpOr')}</p>
          {passkeyError ? (
            <p className="field__error" role="alert">
              {passkeyError}
            </p>
          ) : null}
          <button type="button" className="button button--secondary" aria-disabled={isLoading || undefined} onClick={() => void confirmWithPasskey()}>
            {waiting ? tp('stepUpWaiting') : tp('stepUpUse')}
          </button>
        </div>
      ) : null}
    </Dialog>
  );
}

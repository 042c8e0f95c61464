import { useEffect, useRef, useState } from 'react';
import { useDisableTwoFactorMutation, useEnableTwoFactorMutation, useSetupTwoFactorMutation, type User } from '../../api/enhanced';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField, TextField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { QrCode } from '../../components/QrCode';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { totpCodeSchema, totpDisableFields, totpDisableSchema } from '../auth/validation';

// Groups of four are far easier to type from one screen into another.
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const toast = useToast();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const text = `Clearvest recovery codes\nEach code works once, instead of a code from your authenticator app.\n\n${codes.join('\n')}\n`;
  const [downloadHref] = useState(() => `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`);

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      toast.success('Recovery codes copied to the clipboard');
    } catch {
      toast.error('Copying failed. Please select the codes and copy them by hand.');
    }
  };

  return (
    <div className="panel panel--success">
      <h4 ref={headingRef} tabIndex={-1} className="panel__title">
        Two-step verification is on. Save your recovery codes
      </h4>
      <p>
        If you lose your phone, each of these codes lets you sign in once. <strong>They are shown only now.</strong> Keep
        them somewhere safe, away from your password.
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="button-row">
        <button type="button" className="button button--small button--secondary" onClick={() => void copy()}>
          Copy codes
        </button>
        <a className="button button--small button--secondary" href={downloadHref} download="clearvest-recovery-codes.txt">
          Download codes
        </a>
        <button type="button" className="button button--small" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

function EnrolForm({ secret, otpauthUrl, onEnabled, onCancel }: {
  secret: string;
  otpauthUrl: string;
  onEnabled: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const run = useRunMutation();
  const [enable, { isLoading }] = useEnableTwoFactorMutation();
  const form = useSpecForm(totpCodeSchema, ['code'], { code: '' });
  const { register, handleSubmit, setError, fieldError, setFocus } = form;

  useEffect(() => {
    setFocus('code');
  }, [setFocus]);

  const onSubmit = handleSubmit(async ({ code }) => {
    const outcome = await run(enable({ twoFactorEnableRequest: { code: code.replace(/\s/g, '') } }), {
      fallback: 'That code did not work. Please try again.',
      form: { setError, fields: ['code'], otherwise: 'code' },
    });
    if (outcome.ok) onEnabled(outcome.data.recoveryCodes);
  });

  return (
    <div className="enrol">
      <ol className="enrol__steps">
        <li>Install an authenticator app on your phone (for example Google Authenticator, Microsoft Authenticator or 1Password).</li>
        <li>
          Scan this QR code with the app, or type in the key below.
          <div className="enrol__qr">
            <QrCode value={otpauthUrl} label="QR code for your authenticator app" />
          </div>
          <p className="enrol__secret">
            Key: <code data-testid="totp-secret">{grouped(secret)}</code>
          </p>
        </li>
        <li>Enter the 6-digit code the app shows to finish.</li>
      </ol>
      <form className="form" noValidate onSubmit={onSubmit} aria-label="Confirm authenticator code">
        <TextField label="Code from the app" inputMode="numeric" autoComplete="one-time-code" error={fieldError('code')} {...register('code')} />
        <div className="button-row">
          <SubmitButton busy={isLoading} busyLabel="Checking…" className="button">
            Turn on two-step verification
          </SubmitButton>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}

function DisableForm() {
  const run = useRunMutation();
  const [disable, { isLoading }] = useDisableTwoFactorMutation();
  const form = useSpecForm(totpDisableSchema, totpDisableFields, { password: '', code: '' });
  const { register, handleSubmit, setError, fieldError, reset } = form;

  const onSubmit = handleSubmit(async (values) => {
    const outcome = await run(disable({ twoFactorDisableRequest: { password: values.password, code: values.code.trim() } }), {
      fallback: 'Two-step verification could not be turned off. Please try again.',
      success: ({ message }) => message,
      form: { setError, fields: totpDisableFields },
    });
    if (outcome.ok) reset();
  });

  return (
    <form className="form" noValidate onSubmit={onSubmit} aria-label="Turn off two-step verification">
      <p>To turn it off, confirm with your password and a code from the app (or a recovery code).</p>
      <PasswordField label="Password" autoComplete="current-password" error={fieldError('password')} {...register('password')} />
      <TextField label="Authenticator or recovery code" autoComplete="one-time-code" error={fieldError('code')} {...register('code')} />
      <SubmitButton busy={isLoading} busyLabel="Turning off…" className="button button--danger">
        Turn off two-step verification
      </SubmitButton>
    </form>
  );
}

export function TwoFactorSection({ user }: { user: User }) {
  const run = useRunMutation();
  const [setup, { data: pending, isLoading, reset }] = useSetupTwoFactorMutation();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  const start = async () => {
    if (isLoading) return;
    await run(setup(), { fallback: 'Setup could not start. Please try again.' });
  };

  let body;
  if (recoveryCodes) {
    body = <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />;
  } else if (user.twoFactorEnabled) {
    body = (
      <>
        <p>
          <span className="badge badge--success">On</span> Signing in needs your password and a code from your authenticator
          app.
        </p>
        <DisableForm />
      </>
    );
  } else if (pending) {
    body = (
      <EnrolForm
        secret={pending.secret}
        otpauthUrl={pending.otpauthUrl}
        onEnabled={(codes) => {
          setRecoveryCodes(codes);
          reset();
        }}
        onCancel={reset}
      />
    );
  } else {
    body = (
      <>
        <p>
          <span className="badge">Off</span> Add a second step to signing in: a code from an app on your phone, so a stolen
          password alone is not enough.
        </p>
        <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void start()}>
          {isLoading ? 'Starting…' : 'Set up authenticator app'}
        </button>
      </>
    );
  }

  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h3 id="two-factor-title">Two-step verification</h3>
      {body}
    </section>
  );
}

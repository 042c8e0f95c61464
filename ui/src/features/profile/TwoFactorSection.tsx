import { useEffect, useRef, useState } from 'react';
import { useDisableTwoFactorMutation, useEnableTwoFactorMutation, useSetupTwoFactorMutation, type User } from '../../api/enhanced';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField, TextField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { QrCode } from '../../components/QrCode';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { Trans, useTranslation } from '../../i18n';
import { totpCodeSchema, totpDisableFields, totpDisableSchema, useFormMessages } from '../auth/validation';

// Groups of four are far easier to type from one screen into another.
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation('member');
  const toast = useToast();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const text = `${t('twoFactor.fileHeading')}\n${t('twoFactor.fileNote')}\n\n${codes.join('\n')}\n`;
  const [copyError, setCopyError] = useFormError();
  const [downloadHref] = useState(() => `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`);

  useEffect(() => {
    headingRef.current?.focus();
  }, []);

  const copy = async () => {
    setCopyError(null);
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      toast.success(t('twoFactor.copied'));
    } catch {
      setCopyError(t('twoFactor.copyFailed'));
    }
  };

  return (
    <div className="panel panel--success">
      <h4 ref={headingRef} tabIndex={-1} className="panel__title">
        {t('twoFactor.saveTitle')}
      </h4>
      <FormError message={copyError} />
      <p>
        <Trans t={t} i18nKey="twoFactor.saveText" components={{ strong: <strong /> }} />
      </p>
      <ul className="recovery-codes" aria-label={t('twoFactor.codes')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="button-row">
        <button type="button" className="button button--small button--secondary" onClick={() => void copy()}>
          {t('twoFactor.copy')}
        </button>
        <a className="button button--small button--secondary" href={downloadHref} download="clearvest-recovery-codes.txt">
          {t('twoFactor.download')}
        </a>
        <button type="button" className="button button--small" onClick={onDone}>
          {t('twoFactor.saved')}
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
  const { t } = useTranslation('member');
  const say = useFormMessages();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [enable, { isLoading }] = useEnableTwoFactorMutation();
  const form = useSpecForm(totpCodeSchema, ['code'], { code: '' });
  const { register, handleSubmit, setError, setFocus } = form;
  const fieldError = (name: 'code') => say.field(form.fieldError(name));

  useEffect(() => {
    setFocus('code');
  }, [setFocus]);

  const onSubmit = handleSubmit(async ({ code }) => {
    const outcome = await run(enable({ twoFactorEnableRequest: { code: code.replace(/\s/g, '') } }), {
      fallback: t('twoFactor.codeFailed'),
      form: { setError, fields: ['code'], otherwise: 'code' },
      formError: setFormError,
    });
    if (outcome.ok) onEnabled(outcome.data.recoveryCodes);
  });

  return (
    <div className="enrol">
      <ol className="enrol__steps">
        <li>{t('twoFactor.step1')}</li>
        <li>
          {t('twoFactor.step2')}
          <div className="enrol__qr">
            <QrCode value={otpauthUrl} label={t('twoFactor.qr')} />
          </div>
          <p className="enrol__secret">
            <Trans t={t} i18nKey="twoFactor.key" values={{ key: grouped(secret) }} components={{ key: <code data-testid="totp-secret" /> }} />
          </p>
        </li>
        <li>{t('twoFactor.step3')}</li>
      </ol>
      <FormError message={formError} />
      <form className="form" noValidate onSubmit={onSubmit} aria-label={t('twoFactor.confirmLabel')}>
        <TextField label={t('twoFactor.codeLabel')} inputMode="numeric" autoComplete="one-time-code" error={fieldError('code')} {...register('code')} />
        <div className="button-row">
          <SubmitButton busy={isLoading} busyLabel={t('twoFactor.checking')} className="button">
            {t('twoFactor.turnOn')}
          </SubmitButton>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            {t('twoFactor.cancel')}
          </button>
        </div>
      </form>
    </div>
  );
}

function DisableForm() {
  const { t } = useTranslation('member');
  const say = useFormMessages();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [disable, { isLoading }] = useDisableTwoFactorMutation();
  const form = useSpecForm(totpDisableSchema, totpDisableFields, { password: '', code: '' });
  const { register, handleSubmit, setError, reset } = form;
  const fieldError = (name: (typeof totpDisableFields)[number]) => say.field(form.fieldError(name));

  const onSubmit = handleSubmit(async (values) => {
    const outcome = await run(disable({ twoFactorDisableRequest: { password: values.password, code: values.code.trim() } }), {
      fallback: t('twoFactor.offFailed'),
      success: ({ message }) => message,
      form: { setError, fields: totpDisableFields },
      formError: setFormError,
    });
    if (outcome.ok) reset();
  });

  return (
    <>
    <FormError message={formError} />
    <form className="form" noValidate onSubmit={onSubmit} aria-label={t('twoFactor.offLabel')}>
      <p>{t('twoFactor.offIntro')}</p>
      <PasswordField label={t('twoFactor.password')} autoComplete="current-password" error={fieldError('password')} {...register('password')} />
      <TextField label={t('twoFactor.codeOrRecovery')} autoComplete="one-time-code" error={fieldError('code')} {...register('code')} />
      <SubmitButton busy={isLoading} busyLabel={t('twoFactor.turningOff')} className="button button--danger">
        {t('twoFactor.turnOff')}
      </SubmitButton>
    </form>
    </>
  );
}

export function TwoFactorSection({ user }: { user: User }) {
  const { t } = useTranslation('member');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [setup, { data: pending, isLoading, reset }] = useSetupTwoFactorMutation();
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  const start = async () => {
    if (isLoading) return;
    await run(setup(), { fallback: t('twoFactor.setupFailed'), formError: setFormError });
  };

  let body;
  if (recoveryCodes) {
    body = <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />;
  } else if (user.twoFactorEnabled) {
    body = (
      <>
        <p>
          <span className="badge badge--success">{t('twoFactor.on')}</span> {t('twoFactor.onText')}
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
          <span className="badge">{t('twoFactor.off')}</span> {t('twoFactor.offText')}
        </p>
        <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void start()}>
          {isLoading ? t('twoFactor.starting') : t('twoFactor.setup')}
        </button>
      </>
    );
  }

  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h3 id="two-factor-title">{t('twoFactor.title')}</h3>
      <FormError message={formError} />
      {body}
    </section>
  );
}

import { useChangePasswordMutation } from '../../api/enhanced';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { PasswordChecklist } from '../auth/PasswordChecklist';
import { useLogout } from '../auth/useLogout';
import { useTranslation } from '../../i18n';
import { changePasswordFields, changePasswordSchema, useFormMessages } from '../auth/validation';

export function ChangePasswordForm() {
  const { t } = useTranslation('member');
  const say = useFormMessages();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const logout = useLogout();
  const [changePassword, { isLoading }] = useChangePasswordMutation();
  const form = useSpecForm(changePasswordSchema, changePasswordFields, { oldPassword: '', password: '', confirmPassword: '' });
  const { register, handleSubmit, watch, setError } = form;
  const fieldError = (name: (typeof changePasswordFields)[number]) => say.field(form.fieldError(name));

  const onSubmit = handleSubmit(async (values) => {
    const outcome = await run(changePassword({ changePasswordRequest: values }), {
      fallback: t('password.failed'),
      success: ({ message }) => message,
      form: { setError, fields: changePasswordFields },
      formError: setFormError,
    });
    // A password change signs the user out; they sign in again with the new one.
    if (outcome.ok) await logout({ quiet: true });
  });

  return (
    <section className="card" aria-labelledby="change-password-title">
      <h3 id="change-password-title">{t('password.title')}</h3>
      <p className="muted">{t('password.lead')}</p>
      <FormError message={formError} />
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="change-password-title">
        <PasswordField label={t('password.current')} autoComplete="current-password" error={fieldError('oldPassword')} {...register('oldPassword')} />
        <PasswordField
          label={t('password.new')}
          autoComplete="new-password"
          error={fieldError('password')}
          details={<PasswordChecklist password={watch('password')} />}
          {...register('password')}
        />
        <PasswordField label={t('password.confirm')} autoComplete="new-password" error={fieldError('confirmPassword')} {...register('confirmPassword')} />
        <SubmitButton busy={isLoading} busyLabel={t('password.busy')} className="button">
          {t('password.submit')}
        </SubmitButton>
      </form>
    </section>
  );
}

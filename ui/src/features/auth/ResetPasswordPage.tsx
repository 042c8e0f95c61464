import { Link, useNavigate, useParams } from 'react-router';
import { useResetPasswordMutation } from '../../api/enhanced';
import { AuthCard } from '../../components/AuthCard';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { PasswordChecklist } from './PasswordChecklist';
import { Trans, useTranslation } from '../../i18n';
import { newPasswordFields, newPasswordSchema, useFormMessages } from './validation';

export function ResetPasswordPage() {
  const { resetToken = '' } = useParams();
  const { t } = useTranslation('auth');
  const say = useFormMessages();
  const navigate = useNavigate();
  const toast = useToast();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [resetPassword, { isLoading }] = useResetPasswordMutation();
  const form = useSpecForm(newPasswordSchema, newPasswordFields, { password: '', confirmPassword: '' });
  const { register, handleSubmit, watch, setError } = form;
  const fieldError = (name: (typeof newPasswordFields)[number]) => say.field(form.fieldError(name));

  const onSubmit = handleSubmit(async ({ password, confirmPassword }) => {
    const outcome = await run(resetPassword({ resetToken, resetPasswordRequest: { password, confirmPassword } }), {
      fallback: t('reset.failed'),
      form: { setError, fields: newPasswordFields },
      formError: setFormError,
    });
    if (!outcome.ok) return;
    const { message } = outcome.data;
    if (message.includes('Reset Successful')) {
      toast.success(message);
      navigate('/login', { replace: true });
    } else {
      toast.info(message);
    }
  });

  return (
    <AuthCard
      title={t('reset.title')}
      titleId="reset-title"
      lead={<p>{t('reset.lead')}</p>}
      footer={
        <p>
          <Trans t={t} i18nKey="reset.expired" components={{ forgot: <Link to="/forgot" /> }} />
        </p>
      }
    >
      <FormError message={formError} />
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="reset-title">
        <PasswordField
          label={t('reset.password')}
          autoComplete="new-password"
          error={fieldError('password')}
          details={<PasswordChecklist password={watch('password')} />}
          {...register('password')}
        />
        <PasswordField
          label={t('reset.confirmPassword')}
          autoComplete="new-password"
          error={fieldError('confirmPassword')}
          {...register('confirmPassword')}
        />
        <SubmitButton busy={isLoading} busyLabel={t('reset.busy')}>
          {t('reset.submit')}
        </SubmitButton>
      </form>
    </AuthCard>
  );
}

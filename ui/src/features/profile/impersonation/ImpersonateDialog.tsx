import { useNavigate } from 'react-router';
import { useImpersonateUserMutation, type User } from '../../../api/enhanced';
import { Dialog } from '../../../components/Dialog';
import { FormError, useFormError } from '../../../components/form/FormError';
import { useRunMutation } from '../../../components/useRunMutation';
import { useTranslation } from '../../../i18n';
import { useAppDispatch } from '../../../app/hooks';
import { useStepUpFirst } from '../../auth/useStepUpFirst';
import { switchUser } from './switchUser';

// Asks an admin to confirm before viewing the site as user (docs/staff.md, "Viewing as a user"),
// then asks them to confirm it is them (step-up) and opens the user's account page.
export function ImpersonateDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation('impersonation');
  const run = useRunMutation();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const stepUpFirst = useStepUpFirst();
  const [formError, setFormError] = useFormError();
  const [impersonate, { isLoading }] = useImpersonateUserMutation();

  const start = async () => {
    if (isLoading) return;
    if (!(await stepUpFirst())) return;
    const outcome = await run(impersonate({ id: user._id }), {
      fallback: t('startFailed'),
      success: () => t('started', { name: user.name }),
      formError: setFormError,
    });
    if (outcome.ok) await switchUser(dispatch, () => navigate('/my-account'));
  };

  return (
    <Dialog
      title={t('dialogTitle', { name: user.name })}
      tone="warning"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void start()} data-autofocus>
            {isLoading ? t('starting') : t('start', { name: user.name })}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('cancel')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <p>{t('dialogText', { name: user.name })}</p>
      <p>{t('dialogRecorded', { name: user.name })}</p>
    </Dialog>
  );
}

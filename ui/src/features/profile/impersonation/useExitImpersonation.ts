import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { api, useExitImpersonationMutation } from '../../../api/enhanced';
import { useAppDispatch } from '../../../app/hooks';
import { useRunMutation } from '../../../components/useRunMutation';
import { useTranslation } from '../../../i18n';
import { loggedOut } from '../../auth/authSlice';
import { switchUser } from './switchUser';

// Leaves a view-as-user session (docs/staff.md, "Viewing as a user"): back to the admin's own
// account and its users list, or to sign-in when the admin's own session has ended meanwhile.
export function useExitImpersonation(formError: (message: string | null) => void) {
  const { t } = useTranslation('impersonation');
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const run = useRunMutation();
  const [exit, { isLoading }] = useExitImpersonationMutation();
  const leave = useCallback(async () => {
    if (isLoading) return;
    const outcome = await run(exit(), {
      fallback: t('exitFailed'),
      success: (data) => (data.signedIn ? t('exited') : t('signInAgain')),
      formError,
      // The view had run out and the refresh brought the admin's own session back: already out.
      handled: (error) => error.code === 'not_impersonating',
    });
    if (!outcome.ok && outcome.error.code === 'not_impersonating') {
      await switchUser(dispatch, () => navigate('/user-profile?tab=users'));
      return;
    }
    if (!outcome.ok) return;
    if (outcome.data.signedIn) {
      await switchUser(dispatch, () => navigate('/user-profile?tab=users'));
      return;
    }
    dispatch(loggedOut());
    dispatch(api.util.invalidateTags(['AuthStatus']));
    navigate('/login');
  }, [dispatch, exit, formError, isLoading, navigate, run, t]);
  return { leave, isLoading };
}

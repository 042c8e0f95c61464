import { useEffect } from 'react';
import { formatTime } from '../../../components/format';
import { FormError, useFormError } from '../../../components/form/FormError';
import { useTranslation } from '../../../i18n';
import { useCurrentUser } from '../../auth/session';
import { useExitImpersonation } from './useExitImpersonation';

// Shown above every page while an admin views the site as a user: who they are viewing as, that
// changes are disabled, and the way out.
export function ImpersonationBanner() {
  const { t } = useTranslation('impersonation');
  const { data: user, refetch } = useCurrentUser();
  const [formError, setFormError] = useFormError();
  const { leave, isLoading } = useExitImpersonation(setFormError);
  const endsAt = user?.isImpersonated ? user.impersonationEndsAt : undefined;
  // When the view runs out, the user is read again: the session refresh brings the admin's own
  // session back (or sign-in), and the banner goes.
  useEffect(() => {
    if (!endsAt) return;
    const timer = window.setTimeout(() => void refetch(), Math.min(Math.max(Date.parse(endsAt) - Date.now() + 1000, 0), 2 ** 31 - 1));
    return () => window.clearTimeout(timer);
  }, [endsAt, refetch]);
  if (!user?.isImpersonated) return null;
  return (
    <div className="impersonation-banner" role="region" aria-label={t('title')} data-testid="impersonation-banner">
      <p className="impersonation-banner__text">
        <strong>{t('banner', { name: user.name })}</strong>
        {user.impersonationEndsAt ? ` ${t('endsAt', { time: formatTime(user.impersonationEndsAt) })}` : ''}
      </p>
      <FormError message={formError} />
      <button type="button" className="button button--secondary button--small" aria-disabled={isLoading || undefined} onClick={() => void leave()}>
        {isLoading ? t('exiting') : t('exit')}
      </button>
    </div>
  );
}

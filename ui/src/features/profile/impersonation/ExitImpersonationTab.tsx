import type { User } from '../../../api/enhanced';
import { FormError, useFormError } from '../../../components/form/FormError';
import { useTranslation } from '../../../i18n';
import { useExitImpersonation } from './useExitImpersonation';

// The profile's "Exit Impersonation" tab, shown only in a view-as-user session.
export function ExitImpersonationTab({ user }: { user: User }) {
  const { t } = useTranslation('impersonation');
  const [formError, setFormError] = useFormError();
  const { leave, isLoading } = useExitImpersonation(setFormError);
  return (
    <section className="card stack" aria-labelledby="exit-impersonation-title">
      <h2 id="exit-impersonation-title">{t('tabTitle')}</h2>
      <FormError message={formError} />
      <p>{t('tabText', { name: user.name })}</p>
      <div>
        <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void leave()}>
          {isLoading ? t('exiting') : t('tabButton')}
        </button>
      </div>
    </section>
  );
}

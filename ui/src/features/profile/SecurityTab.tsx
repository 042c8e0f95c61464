import type { User } from '../../api/enhanced';
import { ChangePasswordForm } from './ChangePasswordForm';
import { PasskeysSection } from './PasskeysSection';
import { SecurityLogSection } from './SecurityLogSection';
import { SessionsSection } from './SessionsSection';
import { TwoFactorSection } from './TwoFactorSection';
import { useTranslation } from '../../i18n';

export function SecurityTab({ user }: { user: User }) {
  const { t } = useTranslation('member');
  return (
    <div className="stack stack--lg">
      <h2 className="visually-hidden">{t('security.title')}</h2>
      <ChangePasswordForm />
      <TwoFactorSection user={user} />
      <PasskeysSection />
      <SessionsSection />
      <SecurityLogSection />
    </div>
  );
}

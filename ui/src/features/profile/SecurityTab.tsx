import type { User } from '../../api/enhanced';
import { ChangePasswordForm } from './ChangePasswordForm';
import { SecurityLogSection } from './SecurityLogSection';
import { SessionsSection } from './SessionsSection';
import { TwoFactorSection } from './TwoFactorSection';

export function SecurityTab({ user }: { user: User }) {
  return (
    <div className="stack stack--lg">
      <h2 className="visually-hidden">Security</h2>
      <ChangePasswordForm />
      <TwoFactorSection user={user} />
      <SessionsSection />
      <SecurityLogSection />
    </div>
  );
}

import { useSearchParams } from 'react-router';
import type { User } from '../../api/enhanced';
import { Avatar } from '../../components/Avatar';
import { QueryState } from '../../components/QueryState';
import { Tabs, type TabDef } from '../../components/Tabs';
import { isStaff, useCurrentUser } from '../auth/session';
import { ProfileTab } from './ProfileTab';
import { SecurityTab } from './SecurityTab';
import { UsersTab } from './UsersTab';
import { ExitImpersonationTab } from './impersonation/ExitImpersonationTab';
import { useLabels } from '../../components/labels';
import { useTranslation } from '../../i18n';

export function UserProfilePage() {
  const { t } = useTranslation('member');
  const me = useCurrentUser();
  return (
    <section className="page container" aria-labelledby="profile-title">
      <QueryState
        query={me}
        loading={t('profile.loading')}
        failed={t('profile.failed')}
        heading={<h1 id="profile-title">{t('profile.title')}</h1>}
      >
        {(user) => <Profile user={user} />}
      </QueryState>
    </section>
  );
}

function Profile({ user }: { user: User }) {
  const { t } = useTranslation('member');
  const { t: tImpersonation } = useTranslation('impersonation');
  const labels = useLabels();
  const [params, setParams] = useSearchParams();
  const tabs: TabDef[] = [
    { id: 'profile', label: t('profile.tabProfile') },
    { id: 'security', label: t('profile.tabSecurity') },
    ...(isStaff(user.role) ? [{ id: 'users', label: t('profile.tabUsers') }] : []),
    ...(user.isImpersonated ? [{ id: 'exit-impersonation', label: tImpersonation('tab') }] : []),
  ];
  const requested = params.get('tab');
  const selected = tabs.some((tab) => tab.id === requested) ? (requested as string) : 'profile';

  return (
    <>
      <div className="profile-head">
        <Avatar name={user.name} photo={user.photo} size="lg" />
        <div className="profile-head__who">
          <h1 id="profile-title" className="profile-head__title">
            {t('profile.title')}
          </h1>
          <p className="profile-head__badge">
            {/* The whole name is in the text; CSS shortens it only when it does not fit. */}
            <span className="truncate" title={user.name}>
              {user.name}
            </span>
            <span className={`badge badge--role-${user.role}`}>{labels.role(user.role)}</span>
          </p>
        </div>
      </div>
      <Tabs label={t('profile.sections')} tabs={tabs} selected={selected} onSelect={(id) => setParams({ tab: id }, { replace: true })}>
        {selected === 'profile' ? <ProfileTab user={user} /> : null}
        {selected === 'security' ? <SecurityTab user={user} /> : null}
        {selected === 'users' ? <UsersTab me={user} /> : null}
        {selected === 'exit-impersonation' ? <ExitImpersonationTab user={user} /> : null}
      </Tabs>
    </>
  );
}

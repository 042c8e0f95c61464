import { useSearchParams } from 'react-router';
import type { User } from '../../api/enhanced';
import { Avatar } from '../../components/Avatar';
import { QueryState } from '../../components/QueryState';
import { Tabs, type TabDef } from '../../components/Tabs';
import { isStaff, useCurrentUser } from '../auth/session';
import { useLogout } from '../auth/useLogout';
import { ProfileTab } from './ProfileTab';
import { SecurityTab } from './SecurityTab';
import { UsersTab } from './UsersTab';
import { useLabels } from '../../components/labels';

function LogoutTab() {
  const logout = useLogout();
  return (
    <div className="stack">
      <h2 className="visually-hidden">Logout</h2>
      <p>Sign out of Clearvest on this device. Your other sessions stay signed in; end them on the Security tab.</p>
      <p>
        <button type="button" className="button" onClick={() => void logout()}>
          Logout
        </button>
      </p>
    </div>
  );
}

export function UserProfilePage() {
  const me = useCurrentUser();
  return (
    <section className="page container" aria-labelledby="profile-title">
      <QueryState
        query={me}
        loading="Loading your profile…"
        failed="Your profile could not be loaded"
        heading={<h1 id="profile-title">Profile</h1>}
      >
        {(user) => <Profile user={user} />}
      </QueryState>
    </section>
  );
}

function Profile({ user }: { user: User }) {
  const labels = useLabels();
  const [params, setParams] = useSearchParams();
  const tabs: TabDef[] = [
    { id: 'profile', label: 'Profile' },
    { id: 'security', label: 'Security' },
    ...(isStaff(user.role) ? [{ id: 'users', label: 'Users' }] : []),
    { id: 'logout', label: 'Logout' },
  ];
  const requested = params.get('tab');
  const selected = tabs.some((t) => t.id === requested) ? (requested as string) : 'profile';

  return (
    <>
      <div className="profile-head">
        <Avatar name={user.name} photo={user.photo} size="lg" />
        <div className="profile-head__who">
          <h1 id="profile-title" className="profile-head__title">
            Profile
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
      <Tabs label="Profile sections" tabs={tabs} selected={selected} onSelect={(id) => setParams({ tab: id }, { replace: true })}>
        {selected === 'profile' ? <ProfileTab user={user} /> : null}
        {selected === 'security' ? <SecurityTab user={user} /> : null}
        {selected === 'users' ? <UsersTab me={user} /> : null}
        {selected === 'logout' ? <LogoutTab /> : null}
      </Tabs>
    </>
  );
}

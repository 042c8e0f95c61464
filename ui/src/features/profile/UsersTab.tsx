import { useId, useState } from 'react';
import { useGetUsersQuery, useReinstateUserMutation, type User } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Avatar } from '../../components/Avatar';
import { DisclosureMenu, type MenuAction } from '../../components/DisclosureMenu';
import { QueryState } from '../../components/QueryState';
import { useDebounced } from '../../components/useDebounced';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { useLabels } from '../../components/labels';
import { useTranslation } from '../../i18n';
import { ChangeRoleDialog, DeleteUserDialog, SuspendDialog } from './UserActionDialogs';
import { ImpersonateDialog } from './impersonation/ImpersonateDialog';

type Pending = { kind: 'role' | 'suspend' | 'delete' | 'impersonate'; user: User } | null;


// A user's money as the books hold it. When the server could not read the figures they are
// absent, and the card says so: an unknown balance is never shown as $0.00.
function UserFigures({ user }: { user: User }) {
  const { t } = useTranslation('staff');
  const f = user.figures;
  if (!f) {
    return (
      <p className="user-card__figures user-card__figures--unavailable" data-testid="user-figures">
        {t('users.unavailable')}
      </p>
    );
  }
  return (
    <dl className="user-card__figures" data-testid="user-figures">
      <div>
        <dt>{t('users.available')}</dt>
        <dd>
          <Amount amount={f.balance} />
        </dd>
      </div>
      <div>
        <dt>{t('users.invested')}</dt>
        <dd>
          <Amount amount={f.investmentBalance} />
        </dd>
      </div>
    </dl>
  );
}

function UserCard({ user, canManage, onAction }: { user: User; canManage: boolean; onAction: (p: NonNullable<Pending>) => void }) {
  const { t } = useTranslation('staff');
  const { t: tImpersonation } = useTranslation('impersonation');
  const labels = useLabels();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [reinstate, { isLoading: isReinstating }] = useReinstateUserMutation();
  const suspended = user.status === 'suspended' || user.role === 'suspended';

  const doReinstate = async () => {
    if (isReinstating) return;
    await run(reinstate({ id: user._id }), {
      fallback: t('users.reinstateFailed'),
      success: ({ message }) => message,
      formError: setFormError,
    });
  };

  const actions: MenuAction[] = [
    { label: t('users.changeRole'), onSelect: () => onAction({ kind: 'role', user }) },
    suspended
      ? { label: t('users.reinstate'), onSelect: () => void doReinstate() }
      : { label: t('users.suspend'), onSelect: () => onAction({ kind: 'suspend', user }) },
    { label: t('users.delete'), tone: 'danger', onSelect: () => onAction({ kind: 'delete', user }) },
    // Not of another admin, nor of a suspended account (docs/staff.md, "Viewing as a user").
    ...(user.role === 'admin' || suspended ? [] : [{ label: tImpersonation('menuItem'), onSelect: () => onAction({ kind: 'impersonate', user }) }]),
  ];

  return (
    <li className="user-card" data-testid="user-card">
      <FormError message={formError} />
      <div className="user-card__head">
        <Avatar name={user.name} photo={user.photo} />
        <div className="user-card__who">
          <h3 className="user-card__name truncate" title={user.name}>
            {user.name}
          </h3>
          <p className="user-card__email break-anywhere">{user.email}</p>
        </div>
      </div>
      <UserFigures user={user} />
      <p className="user-card__badges">
        <span className={`badge badge--role-${user.role}`}>{labels.role(user.role)}</span>
        <span className={`badge${user.isVerified ? ' badge--success' : ''}`}>{user.isVerified ? t('users.verified') : t('users.notVerified')}</span>
        <span className="badge">{t('users.kyc', { status: labels.kyc(user.kycStatus) })}</span>
      </p>
      {canManage ? (
        <DisclosureMenu label={t('users.actionsFor', { name: user.name })} actions={actions}>
          {t('users.actions')}
        </DisclosureMenu>
      ) : null}
    </li>
  );
}

export function UsersTab({ me }: { me: User }) {
  const { t } = useTranslation('staff');
  const searchId = useId();
  const [search, setSearch] = useState('');
  const term = useDebounced(search.trim(), 300);
  const all = useGetUsersQuery({});
  const filtered = useGetUsersQuery({ search: term }, { skip: term === '' });
  const shown = term === '' ? all : filtered;
  const [pending, setPending] = useState<Pending>(null);
  const isAdmin = me.role === 'admin';

  const everyone = all.data ?? [];
  const verified = everyone.filter((u) => u.isVerified).length;
  const suspended = everyone.filter((u) => u.role === 'suspended').length;

  return (
    <div className="stack stack--lg">
      <h2 className="visually-hidden">{t('users.title')}</h2>
      <dl className="figures figures--compact" aria-label={t('users.counts')}>
        <div className="figure">
          <dt className="figure__label">{t('users.users')}</dt>
          <dd className="figure__value">{all.data ? everyone.length : '–'}</dd>
        </div>
        <div className="figure">
          <dt className="figure__label">{t('users.verifiedCount')}</dt>
          <dd className="figure__value" data-testid="verified-count">
            {all.data ? verified : '–'}
          </dd>
        </div>
        <div className="figure">
          <dt className="figure__label">{t('users.suspendedCount')}</dt>
          <dd className="figure__value" data-testid="suspended-count">
            {all.data ? suspended : '–'}
          </dd>
        </div>
      </dl>

      <div className="field" role="search">
        <label className="field__label" htmlFor={searchId}>
          {t('users.search')}
        </label>
        <input
          id={searchId}
          type="search"
          className="field__input"
          value={search}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>

      <QueryState
        query={shown}
        loading={t('users.loading')}
        failed={t('users.failed')}
        empty={{ when: (users) => users.length === 0, message: term ? t('users.noMatch', { term }) : t('users.none') }}
      >
        {(users) => (
          <>
            <p className="visually-hidden" role="status">
              {t('users.shown', { count: users.length })}
            </p>
            <ul className="user-grid" aria-busy={shown.isFetching || undefined}>
              {users.map((user) => (
                <UserCard key={user._id} user={user} canManage={isAdmin && user._id !== me._id && user.status !== 'closed'} onAction={setPending} />
              ))}
            </ul>
          </>
        )}
      </QueryState>

      {pending?.kind === 'role' ? <ChangeRoleDialog user={pending.user} onClose={() => setPending(null)} /> : null}
      {pending?.kind === 'suspend' ? <SuspendDialog user={pending.user} onClose={() => setPending(null)} /> : null}
      {pending?.kind === 'delete' ? <DeleteUserDialog user={pending.user} onClose={() => setPending(null)} /> : null}
      {pending?.kind === 'impersonate' ? <ImpersonateDialog user={pending.user} onClose={() => setPending(null)} /> : null}
    </div>
  );
}

import { useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { useListUsersQuery, useReinstateUserMutation, type KycStatus, type ListUsersApiArg, type User, type UserPage } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Avatar } from '../../components/Avatar';
import { DisclosureMenu, type MenuAction } from '../../components/DisclosureMenu';
import { PagedChunks, type PageQuery } from '../../components/PagedChunks';
import { QueryState } from '../../components/QueryState';
import { formatDate } from '../../components/format';
import { useDebounced } from '../../components/useDebounced';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { LABEL_VALUES, useLabels } from '../../components/labels';
import { useTranslation } from '../../i18n';
import { ChangeRoleDialog, DeleteUserDialog, SuspendDialog } from './UserActionDialogs';
import { ImpersonateDialog } from './impersonation/ImpersonateDialog';

type Pending = { kind: 'role' | 'suspend' | 'delete' | 'impersonate'; user: User } | null;

// How many users a page of the list holds.
export const USERS_PAGE_SIZE = 24;

type RoleFilter = NonNullable<ListUsersApiArg['role']>;
type StatusFilter = NonNullable<ListUsersApiArg['status']>;
interface Filters {
  role: RoleFilter | '';
  kycStatus: KycStatus | '';
  status: StatusFilter | '';
}
const noFilters: Filters = { role: '', kycStatus: '', status: '' };
const ROLES: RoleFilter[] = ['subscriber', 'author', 'admin'];

// A user's money as the read models hold it. When the server could not read the figures they
// are absent, and the card says so: an unknown balance is never shown as $0.00.
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
      <div>
        <dt>{t('users.deposited')}</dt>
        <dd>
          <Amount amount={f.deposited} />
        </dd>
      </div>
    </dl>
  );
}

interface CardProps {
  user: User;
  canManage: boolean;
  onAction: (p: NonNullable<Pending>) => void;
  // Opens the app as this user sees it; the item shows only where the caller provides it.
}

function UserCard({ user, canManage, onAction }: CardProps) {
  const { t } = useTranslation('staff');
  const { t: tImpersonation } = useTranslation('impersonation');
  const labels = useLabels();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [reinstate, { isLoading: isReinstating }] = useReinstateUserMutation();
  const suspended = user.status === 'suspended' || user.role === 'suspended';
  const navigate = useNavigate();

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
    { label: t('users.corrections'), onSelect: () => void navigate(`/edit-user-balance/${user._id}`) },
    { label: t('users.fees'), onSelect: () => void navigate(`/update-fee/${user._id}`) },
    { label: t('users.returns'), onSelect: () => void navigate(`/edit-balance/${user._id}`) },
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
      {user.createdAt ? <p className="user-card__joined">{t('users.joined', { date: formatDate(user.createdAt) })}</p> : null}
      <p className="user-card__badges">
        <span className={`badge badge--role-${user.role}`}>{labels.role(user.role)}</span>
        <span className={`badge${user.isVerified ? ' badge--success' : ''}`}>{user.isVerified ? t('users.verified') : t('users.notVerified')}</span>
        <span className="badge" data-testid="user-kyc">
          {t('users.kyc', { status: labels.kyc(user.kycStatus) })}
        </span>
      </p>
      {canManage ? (
        <DisclosureMenu label={t('users.actionsFor', { name: user.name })} actions={actions}>
          {t('users.actions')}
        </DisclosureMenu>
      ) : null}
    </li>
  );
}

function FilterSelect<V extends string>({ label, value, options, onChange }: { label: string; value: V | ''; options: { value: V; label: string }[]; onChange: (v: V | '') => void }) {
  const { t } = useTranslation('staff');
  const id = useId();
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <select id={id} className="field__input field__select" value={value} onChange={(e) => onChange(e.target.value as V | '')}>
        <option value="">{t('users.filterAny')}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

function Counts({ page }: { page?: UserPage }) {
  const { t } = useTranslation('staff');
  const c = page?.counts;
  return (
    <dl className="figures figures--compact" aria-label={t('users.counts')}>
      <div className="figure">
        <dt className="figure__label">{t('users.users')}</dt>
        <dd className="figure__value" data-testid="users-count">
          {c ? c.users : '–'}
        </dd>
      </div>
      <div className="figure">
        <dt className="figure__label">{t('users.verifiedCount')}</dt>
        <dd className="figure__value" data-testid="verified-count">
          {c ? c.verified : '–'}
        </dd>
      </div>
      <div className="figure">
        <dt className="figure__label">{t('users.suspendedCount')}</dt>
        <dd className="figure__value" data-testid="suspended-count">
          {c ? c.suspended : '–'}
        </dd>
      </div>
    </dl>
  );
}

// The staff user list: search, filters, and the matching users a page at a time, newest first,
// read from the server (listUsers).
export function UsersTab({ me }: { me: User }) {
  const { t } = useTranslation('staff');
  const labels = useLabels();
  const searchId = useId();
  const [search, setSearch] = useState('');
  const term = useDebounced(search.trim(), 300);
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [pending, setPending] = useState<Pending>(null);
  const isAdmin = me.role === 'admin';
  const narrowed = term !== '' || filters.role !== '' || filters.kycStatus !== '' || filters.status !== '';

  const arg: ListUsersApiArg = {
    ...(term ? { search: term } : {}),
    ...(filters.role ? { role: filters.role } : {}),
    ...(filters.kycStatus ? { kycStatus: filters.kycStatus } : {}),
    ...(filters.status ? { status: filters.status } : {}),
  };
  // The counts come with every page; the first page of the current list gives them.
  const first = useListUsersQuery({ ...arg, limit: USERS_PAGE_SIZE });
  const usePage: PageQuery<UserPage> = (page, options) => useListUsersQuery({ ...arg, ...page }, options);
  const set = <K extends keyof Filters>(key: K) => (value: Filters[K]) => setFilters((f) => ({ ...f, [key]: value }));

  return (
    <div className="stack stack--lg">
      <h2 className="visually-hidden">{t('users.title')}</h2>
      <Counts page={first.data} />

      <div className="user-filters" role="search" aria-label={t('users.filters')}>
        <div className="field user-filters__search">
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
        <FilterSelect label={t('users.filterRole')} value={filters.role} options={ROLES.map((r) => ({ value: r, label: labels.role(r) }))} onChange={set('role')} />
        <FilterSelect
          label={t('users.filterKyc')}
          value={filters.kycStatus}
          options={LABEL_VALUES.kyc.map((k) => ({ value: k, label: labels.kyc(k) }))}
          onChange={set('kycStatus')}
        />
        <FilterSelect
          label={t('users.filterStatus')}
          value={filters.status}
          options={[
            { value: 'active' as const, label: labels.accountStatus('active') },
            { value: 'suspended' as const, label: labels.accountStatus('suspended') },
          ]}
          onChange={set('status')}
        />
        {narrowed ? (
          <button
            type="button"
            className="button button--small button--secondary user-filters__clear"
            onClick={() => {
              setSearch('');
              setFilters(noFilters);
            }}
          >
            {t('users.clearFilters')}
          </button>
        ) : null}
      </div>

      <PagedChunks
        key={JSON.stringify(arg)}
        usePage={usePage}
        limit={USERS_PAGE_SIZE}
        moreClassName="queue-more"
        words={{ loadMore: t('queue.loadMore'), loadingMore: t('users.loadingMore'), moreFailed: t('users.moreFailed'), tryAgain: t('queue.tryAgain') }}
        first={(query, content) => (
          <QueryState
            query={query}
            loading={t('users.loading')}
            failed={t('users.failed')}
            empty={{ when: (page) => page.users.length === 0, message: narrowed ? t('users.noMatch') : t('users.none') }}
          >
            {content}
          </QueryState>
        )}
        renderPage={({ data, index, focus, isFetching }) => (
          <>
            {index === 0 ? (
              <p className="muted" role="status" data-testid="users-total">
                {t('users.matching', { count: data.total })}
              </p>
            ) : null}
            <ul ref={focus} tabIndex={index > 0 ? -1 : undefined} className="user-grid" aria-label={t('users.page', { page: index + 1 })} aria-busy={isFetching || undefined}>
              {data.users.map((user) => (
                <UserCard
                  key={user._id}
                  user={user}
                  canManage={isAdmin && user._id !== me._id && user.status !== 'closed'}
                  onAction={setPending}
                />
              ))}
            </ul>
          </>
        )}
      />

      {pending?.kind === 'role' ? <ChangeRoleDialog user={pending.user} onClose={() => setPending(null)} /> : null}
      {pending?.kind === 'suspend' ? <SuspendDialog user={pending.user} onClose={() => setPending(null)} /> : null}
      {pending?.kind === 'delete' ? <DeleteUserDialog user={pending.user} onClose={() => setPending(null)} /> : null}
      {pending?.kind === 'impersonate' ? <ImpersonateDialog user={pending.user} onClose={() => setPending(null)} /> : null}
    </div>
  );
}

import { useMemo, type ReactNode } from 'react';
import { Navigate, Outlet, useLocation, type Location } from 'react-router';
import { useAppSelector } from '../../app/hooks';
import { Spinner } from '../../components/Spinner';
import type { Role } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { selectAuth } from './authSlice';
import { useCurrentUser } from './session';
import { useTranslation } from '../../i18n';

export interface ReturnState {
  from?: string;
}

const where = (location: Location) => `${location.pathname}${location.search}${location.hash}`;

// Pages for signed-in users. Until the server has said whether there is a session, show the
// loader rather than bounce a signed-in user to /login. A user sent away is remembered, so signing
// in brings them back, except after they chose to log out.
export function RequireAuth({ children }: { children?: ReactNode }) {
  const { t } = useTranslation('auth');
  const { known, isLoggedIn, endedBy } = useAppSelector(selectAuth);
  const location = useLocation();
  const from = where(location);
  // The same object while the page is the same: Navigate navigates again whenever its state
  // changes identity, and this guard re-renders while the way to /login loads.
  const state = useMemo<ReturnState | undefined>(() => (endedBy === 'logout' ? undefined : { from }), [endedBy, from]);
  if (!known) return <Spinner label={t('session.checking')} />;
  if (!isLoggedIn) return <Navigate to="/login" replace state={state} />;
  return children ?? <Outlet />;
}

// Where a guest-only page sends a user who is (or just became) signed in: a new account continues
// with the identity check, anyone else returns to where they were headed, else to the dashboard.
export function destinationAfterSignIn(via: string | null, state: unknown) {
  if (via === 'register') return '/upload-kyc';
  const from = (state as ReturnState | null)?.from;
  // Only paths on this site: a crafted link must not send the user elsewhere.
  if (from && from.startsWith('/') && !from.startsWith('//')) return from;
  return '/my-account';
}

// Pages only for visitors (/login, /register, /forgot). The pages themselves do not navigate on
// success: the moment the session exists this guard moves on, so there is one place that decides.
export function RequireGuest({ children }: { children?: ReactNode }) {
  const { t } = useTranslation('auth');
  const { known, isLoggedIn, signedInVia } = useAppSelector(selectAuth);
  const location = useLocation();
  if (!known) return <Spinner label={t('session.checking')} />;
  if (isLoggedIn) return <Navigate to={destinationAfterSignIn(signedInVia, location.state)} replace />;
  return children ?? <Outlet />;
}

// Hides staff pages from other roles. The server checks every request itself; this only spares
// users pages that could not work for them. Use inside RequireAuth. The role comes with the
// signed-in user; if that cannot be loaded, the page says so and offers to try again.
export function RequireRole({ roles, children }: { roles: readonly Role[]; children?: ReactNode }) {
  const { t } = useTranslation('auth');
  const me = useCurrentUser();
  return (
    <QueryState query={me} loading={t('session.loadingAccount')} failed={t('session.accountFailed')}>
      {(user) => (roles.includes(user.role) ? (children ?? <Outlet />) : <Navigate to="/my-account" replace />)}
    </QueryState>
  );
}

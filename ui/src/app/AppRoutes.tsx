import { lazy, type ComponentType } from 'react';
import { Route, Routes } from 'react-router';
import { Layout } from '../components/Layout';
import { STAFF_ROLES } from '../features/auth/authSlice';
import { RequireAuth, RequireGuest, RequireRole } from '../features/auth/guards';
import { plannedPages, type PageAccess } from '../features/coming-soon/plannedPages';
import { HomePage } from '../features/home/HomePage';

// The home page ships in the main chunk because most visits start there; every other page is
// split so the first load stays small.
const named = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  lazy(() => load().then((m) => ({ default: m[name] })));

const ComingSoonPage = lazy(() =>
  import('../features/coming-soon/ComingSoonPage').then((m) => ({ default: m.ComingSoonPage })),
);
const NotFoundPage = named(() => import('../features/not-found/NotFoundPage'), 'NotFoundPage');
const LoginPage = named(() => import('../features/auth/LoginPage'), 'LoginPage');
const RegisterPage = named(() => import('../features/auth/RegisterPage'), 'RegisterPage');
const ForgotPasswordPage = named(() => import('../features/auth/ForgotPasswordPage'), 'ForgotPasswordPage');
const ResetPasswordPage = named(() => import('../features/auth/ResetPasswordPage'), 'ResetPasswordPage');
const LoginWithCodePage = named(() => import('../features/auth/LoginWithCodePage'), 'LoginWithCodePage');
const VerifyEmailPage = named(() => import('../features/auth/VerifyEmailPage'), 'VerifyEmailPage');
const MyAccountPage = named(() => import('../features/account/MyAccountPage'), 'MyAccountPage');
const UserProfilePage = named(() => import('../features/profile/UserProfilePage'), 'UserProfilePage');
const DevMailPage = named(() => import('../features/dev-mail/DevMailPage'), 'DevMailPage');

const planned = (access: PageAccess) =>
  plannedPages
    .filter((page) => page.access === access)
    .map(({ path, title }) => <Route key={path} path={path} element={<ComingSoonPage title={title} />} />);

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<HomePage />} />
        {planned('public')}
        <Route path="/resetPassword/:resetToken" element={<ResetPasswordPage />} />
        <Route path="/loginWithCode/:email" element={<LoginWithCodePage />} />
        <Route path="/verify/:verificationToken" element={<VerifyEmailPage />} />
        <Route path="/dev/mail" element={<DevMailPage />} />

        <Route element={<RequireGuest />}>
          <Route path="/login" element={<LoginPage />} />
          <Route path="/register" element={<RegisterPage />} />
          <Route path="/forgot" element={<ForgotPasswordPage />} />
        </Route>

        <Route element={<RequireAuth />}>
          <Route path="/my-account" element={<MyAccountPage />} />
          <Route path="/user-profile" element={<UserProfilePage />} />
          {planned('account')}
          <Route element={<RequireRole roles={STAFF_ROLES} />}>{planned('staff')}</Route>
        </Route>

        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

import { lazy, Suspense, useEffect, useRef } from 'react';
import { Outlet, useLocation, useNavigation } from 'react-router';
import { Toaster } from '../components/toast/Toaster';
import { selectAuth } from '../features/auth/authSlice';
import { StepUpHost } from '../features/auth/StepUpHost';
import { ImpersonationBanner } from '../features/profile/impersonation/ImpersonationBanner';
import { DropPreviousPerson } from '../features/profile/impersonation/switchUser';
import { useAuthBootstrap } from '../features/auth/useAuthBootstrap';
import { useTranslation } from '../i18n';
import { useCurrentPage } from './currentPage';
import { Footer } from './Footer';
import { useAppSelector } from './hooks';
import { HydrateLater } from './hydration';
import { layoutFor } from './layoutFor';
import { Navbar } from './Navbar';

// The signed-in app shell is its own chunk: visitors on the public pages never load it.
const loadShell = () => import('./shell/AppShell');
const AppTopBar = lazy(() => loadShell().then((m) => ({ default: m.AppTopBar })));
const AppSidebar = lazy(() => loadShell().then((m) => ({ default: m.AppSidebar })));
const AppBottomBar = lazy(() => loadShell().then((m) => ({ default: m.AppBottomBar })));

export function Layout() {
  const { pathname } = useLocation();
  // While the next page's code loads, the current page stays and says it is busy.
  const busy = useNavigation().state === 'loading';
  const mainRef = useRef<HTMLElement>(null);
  const { t } = useTranslation();
  const shownPath = useRef(pathname);
  useAuthBootstrap();
  const auth = useAppSelector(selectAuth);
  const kind = layoutFor(useCurrentPage(), auth);

  // A client-side navigation changes nothing a screen reader notices, and keyboard focus would
  // stay on the clicked link; moving focus to the new content gives both a fresh start.
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    mainRef.current?.focus();
  }, [pathname]);

  const app = kind === 'app';
  // The page's <main> keeps its place among the frame's parts whichever frame shows, so a page
  // is never mounted a second time when the session check turns the marketing frame into the
  // app shell (a verification link must not be sent twice). The wrapper is display: contents
  // outside the app shell.
  return (
    <>
      <a className="skip-link" href="#main">
        {t('skipToContent')}
      </a>
      {auth.isLoggedIn ? <ImpersonationBanner /> : null}
      <div className={app ? 'app-shell' : 'site-frame'}>
        {kind === 'site' ? (
          <header className="site-header">
            <Navbar />
          </header>
        ) : null}
        {app ? (
          <Suspense fallback={null}>
            <AppTopBar />
          </Suspense>
        ) : null}
        {app ? (
          <Suspense fallback={null}>
            <AppSidebar />
          </Suspense>
        ) : null}
        <main
          id="main"
          ref={mainRef}
          tabIndex={-1}
          className={app ? 'app-main' : 'site-main'}
          aria-busy={busy || undefined}
          data-layout={kind}
        >
          <Outlet />
        </main>
        {app ? (
          <Suspense fallback={null}>
            <AppBottomBar />
          </Suspense>
        ) : null}
        {kind === 'site' ? <HydrateLater name="footer">{() => <Footer />}</HydrateLater> : null}
      </div>
      {/* Live-chat slot: a chat widget, when one is chosen, mounts its launcher in this container
          (fixed to the bottom corner by .chat-slot, above the footer and the app's bottom bar,
          below dialogs and toasts). Nothing renders here today: the site offers the Help Center
          form instead of a pretend chat. */}
      <div className="chat-slot" id="chat-slot" />
      <StepUpHost />
      <Toaster />
      {/* Last, so that its effect runs after the old page's queries have unsubscribed. */}
      {auth.isLoggedIn ? <DropPreviousPerson /> : null}
    </>
  );
}

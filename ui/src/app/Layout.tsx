import { useEffect, useRef } from 'react';
import { Outlet, useLocation, useNavigation } from 'react-router';
import { Toaster } from '../components/toast/Toaster';
import { StepUpHost } from '../features/auth/StepUpHost';
import { useAuthBootstrap } from '../features/auth/useAuthBootstrap';
import { useTranslation } from '../i18n';
import { Footer } from './Footer';
import { HydrateLater } from './hydration';
import { Navbar } from './Navbar';

export function Layout() {
  const { pathname } = useLocation();
  // While the next page's code loads, the current page stays and says it is busy.
  const busy = useNavigation().state === 'loading';
  const mainRef = useRef<HTMLElement>(null);
  const { t } = useTranslation();
  const shownPath = useRef(pathname);
  useAuthBootstrap();

  // A client-side navigation changes nothing a screen reader notices, and keyboard focus would
  // stay on the clicked link; moving focus to the new content gives both a fresh start.
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    mainRef.current?.focus();
  }, [pathname]);

  return (
    <>
      <a className="skip-link" href="#main">
        {t('skipToContent')}
      </a>
      <header className="site-header">
        <Navbar />
      </header>
      <main id="main" ref={mainRef} tabIndex={-1} className="site-main" aria-busy={busy || undefined}>
        <Outlet />
      </main>
      <HydrateLater name="footer">{() => <Footer />}</HydrateLater>
      {/* Live-chat slot: a chat widget, when one is chosen, mounts its launcher in this container
          (fixed to the bottom corner by .chat-slot, above the footer and below dialogs and
          toasts). Nothing renders here today: the site offers the Help Center form instead of a
          pretend chat. */}
      <div className="chat-slot" id="chat-slot" />
      <StepUpHost />
      <Toaster />
    </>
  );
}

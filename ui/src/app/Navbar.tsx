import { useEffect, useRef, useState, type FocusEvent } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { useTranslation } from '../i18n';
import { Logo } from './Logo';
import { useMenuLinks } from './pageNames';
import { pages } from './routes';
import { useViewer } from './useViewer';

const MENU_ID = 'primary-menu';
const ACCOUNT_PATH = '/my-account';
const PUBLIC_PATHS = new Set(pages.filter((page) => page.access === 'public').map((page) => page.path));

export function Navbar() {
  const location = useLocation();
  // The menu remembers which history entry it was opened on, so any navigation (a link, the back
  // button) closes it without an effect that resets state after render.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === location.key;
  const toggleRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpenOn(null);
      // Focus would otherwise be lost inside the now hidden menu.
      toggleRef.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open]);

  const close = () => setOpenOn(null);
  // Tabbing out of the open menu (past its last link, or back above the button) closes it, so a
  // keyboard user never leaves a panel open over the page they moved on to.
  const onBlur = (event: FocusEvent<HTMLElement>) => {
    if (open && !event.currentTarget.contains(event.relatedTarget)) close();
  };
  const viewer = useViewer();
  // The pages of the main menu this visitor may open; "Sign In" is last. A signed-in user sees
  // this navbar only on the public pages that keep it (the home page): the public links, then
  // the way into their account, where the app shell has everything else, "Log out" included.
  const links = useMenuLinks('main', viewer).filter((link) => !viewer.signedIn || PUBLIC_PATHS.has(link.to));
  const { t } = useTranslation();
  const signIn = links.find((link) => link.to === '/login');

  return (
    <nav className="nav" aria-label={t('nav.label')} onBlur={onBlur}>
      <Link to="/" className="nav__brand" onClick={close}>
        <Logo />
      </Link>
      <button
        ref={toggleRef}
        type="button"
        className="nav__toggle"
        aria-expanded={open}
        aria-controls={MENU_ID}
        onClick={() => setOpenOn(open ? null : location.key)}
      >
        <span className="nav__toggle-bars" data-open={open} aria-hidden="true" />
        {t('nav.menu')}
      </button>
      <ul id={MENU_ID} className="nav__menu" data-open={open}>
        {links
          .filter((link) => link !== signIn)
          .map(({ to, label }) => (
            <li key={to}>
              <NavLink to={to} end className="nav__link" onClick={close}>
                {label}
              </NavLink>
            </li>
          ))}
        {viewer.signedIn ? (
          <li>
            <NavLink to={ACCOUNT_PATH} className="nav__link nav__link--cta" onClick={close}>
              {t('nav.myAccount')}
            </NavLink>
          </li>
        ) : null}
        {signIn ? (
          <li>
            <NavLink to={signIn.to} className="nav__link nav__link--cta" onClick={close}>
              {signIn.label}
            </NavLink>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}

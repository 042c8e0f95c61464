import { useEffect, useRef, useState, type FocusEvent } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { useLogout } from '../features/auth/useLogout';
import { useTranslation } from '../i18n';
import { Logo } from './Logo';
import { useMenuLinks } from './pageNames';
import { useViewer } from './useViewer';

const MENU_ID = 'primary-menu';

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
  const logout = useLogout();
  // The pages of the main menu this visitor may open; "Sign In" is last, where "Logout" stands
  // for a signed-in user.
  const links = useMenuLinks('main', viewer);
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
            <button
              type="button"
              className="nav__link nav__link--button"
              onClick={() => {
                close();
                void logout();
              }}
            >
              {t('nav.logout')}
            </button>
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

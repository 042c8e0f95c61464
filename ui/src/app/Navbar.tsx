import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { useAppSelector } from '../app/hooks';
import { isStaff, selectAuth } from '../features/auth/authSlice';
import { useLogout } from '../features/auth/useLogout';

const MENU_ID = 'primary-menu';

const links = [
  { to: '/investment-plans', label: 'Portfolio Plans' },
  { to: '/our-story', label: 'About Us' },
  { to: '/support', label: 'Help Center' },
  { to: '/how-it-works', label: 'How It Works' },
  { to: '/market-rates', label: 'Current Rates' },
];

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
  const { isLoggedIn, user } = useAppSelector(selectAuth);
  const logout = useLogout();

  return (
    <nav className="nav" aria-label="Main">
      <Link to="/" className="nav__brand" onClick={close}>
        Clearvest
      </Link>
      <button
        ref={toggleRef}
        type="button"
        className="nav__toggle"
        aria-expanded={open}
        aria-controls={MENU_ID}
        onClick={() => setOpenOn(open ? null : location.key)}
      >
        <span className="nav__toggle-bars" aria-hidden="true" />
        Menu
      </button>
      <ul id={MENU_ID} className="nav__menu" data-open={open}>
        {isLoggedIn ? (
          <li>
            <NavLink to="/my-account" className="nav__link" onClick={close}>
              Dashboard
            </NavLink>
          </li>
        ) : null}
        {links.map(({ to, label }) => (
          <li key={to}>
            <NavLink to={to} className="nav__link" onClick={close}>
              {label}
            </NavLink>
          </li>
        ))}
        {isStaff(user?.role) ? (
          <li>
            <NavLink to="/compose-email" className="nav__link" onClick={close}>
              Send Email
            </NavLink>
          </li>
        ) : null}
        {isLoggedIn ? (
          <>
            <li>
              <NavLink to="/user-profile" end className="nav__link" onClick={close}>
                Profile
              </NavLink>
            </li>
            <li>
              <button
                type="button"
                className="nav__link nav__link--button"
                onClick={() => {
                  close();
                  void logout();
                }}
              >
                Logout
              </button>
            </li>
          </>
        ) : (
          <li>
            <NavLink to="/login" className="nav__link nav__link--cta" onClick={close}>
              Sign In
            </NavLink>
          </li>
        )}
      </ul>
    </nav>
  );
}

import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import type { QueueCounts, User } from '../../api/enhanced';
import { Avatar } from '../../components/Avatar';
import { Dialog } from '../../components/Dialog';
import { useDisclosure } from '../../components/useDisclosure';
import { isStaff, useCurrentUser } from '../../features/auth/session';
import { useLogout } from '../../features/auth/useLogout';
import { useTranslation } from '../../i18n';
import { LanguageSwitcher } from '../../i18n/LanguageSwitcher';
import { LogoMark } from '../Logo';
import {
  ACCOUNT_DESTINATIONS,
  BOTTOM_BAR_IDS,
  isCurrent,
  MONEY_ACTIONS,
  STAFF_DESTINATIONS,
  type Destination,
} from './destinations';
import { ShellIcon } from './icons';
import { useQueueCounts } from './useQueueCounts';
import { useStaffLiveRefresh } from '../../components/useStaffLiveRefresh';
import './app-shell.css';

type DestinationId = Destination['id'];

function useDestinationName() {
  const { t } = useTranslation('shell');
  return (id: DestinationId) => t(`destinations.${id}` as 'destinations.dashboard');
}

function QueueCount({ count }: { count: number | undefined }) {
  const { t } = useTranslation('shell');
  if (!count) return null;
  return (
    <>
      <span className="app-nav__count" aria-hidden="true">
        {count > 99 ? '99+' : count}
      </span>
      <span className="visually-hidden"> {t('waiting', { count })}</span>
    </>
  );
}

function DestinationLink({
  destination,
  counts,
  onNavigate,
  first,
}: {
  destination: Destination;
  counts?: QueueCounts;
  onNavigate?: () => void;
  // Where the Dialog around it puts focus when it opens.
  first?: boolean;
}) {
  const location = useLocation();
  const name = useDestinationName();
  const current = isCurrent(destination, location);
  // Unknown until the counts have loaded: then the link carries no count at all.
  const count = destination.count && counts ? (counts[destination.count] ?? 0) : undefined;
  return (
    <Link
      to={destination.to}
      className="app-nav__link"
      aria-current={current ? 'page' : undefined}
      data-destination={destination.id}
      data-count={count}
      data-autofocus={first || undefined}
      onClick={onNavigate}
    >
      <ShellIcon name={destination.icon} />
      <span className="app-nav__label">{name(destination.id)}</span>
      <QueueCount count={count} />
    </Link>
  );
}

function DestinationList({
  destinations,
  counts,
  onNavigate,
  focusFirst,
}: {
  destinations: readonly Destination[];
  counts?: QueueCounts;
  onNavigate?: () => void;
  // The account sheet starts at its first link, so it opens scrolled to its top.
  focusFirst?: boolean;
}) {
  return (
    <ul className="app-nav__list">
      {destinations.map((destination, index) => (
        <li key={destination.id}>
          <DestinationLink destination={destination} counts={counts} onNavigate={onNavigate} first={focusFirst && index === 0} />
        </li>
      ))}
    </ul>
  );
}

function StaffGroup({ counts, onNavigate, id }: { counts?: QueueCounts; onNavigate?: () => void; id: string }) {
  const { t } = useTranslation('shell');
  const { data: user } = useCurrentUser();
  const destinations = STAFF_DESTINATIONS.filter((d) => !d.adminOnly || user?.role === 'admin');
  return (
    <div className="app-nav__group" role="group" aria-labelledby={id}>
      <p id={id} className="app-nav__heading">
        {t('staff')}
      </p>
      <DestinationList destinations={destinations} counts={counts} onNavigate={onNavigate} />
    </div>
  );
}

function Sidebar({ staff, counts }: { staff: boolean; counts?: QueueCounts }) {
  const { t } = useTranslation('shell');
  return (
    <nav className="app-sidebar" aria-label={t('nav.label')}>
      <DestinationList destinations={ACCOUNT_DESTINATIONS} />
      {staff ? <StaffGroup counts={counts} id="sidebar-staff" /> : null}
    </nav>
  );
}

function MoneyActions() {
  const { t } = useTranslation('shell');
  const name = (id: DestinationId) => t(`actions.${id}` as 'actions.deposit');
  return (
    <ul className="app-actions" aria-label={t('actions.label')}>
      {MONEY_ACTIONS.map((action) => (
        <li key={action.id}>
          <Link to={action.to} className={`app-actions__link${action.id === 'invest' ? ' app-actions__link--primary' : ''}`}>
            <ShellIcon name={action.icon} />
            <span>{name(action.id)}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

function LogoutButton({ onBefore, className }: { onBefore?: () => void; className: string }) {
  const { t } = useTranslation('shell');
  const logout = useLogout();
  return (
    <button
      type="button"
      className={className}
      onClick={() => {
        onBefore?.();
        void logout();
      }}
    >
      <ShellIcon name="logout" />
      <span>{t('account.logout')}</span>
    </button>
  );
}

function Who({ user }: { user: User | undefined }) {
  const { t } = useTranslation('shell');
  if (!user) return null;
  return (
    <div className="app-who">
      <Avatar name={user.name} photo={user.photo} />
      <div className="app-who__text">
        <span className="app-who__name truncate" title={user.name}>
          {user.name}
        </span>
        <span className="app-who__meta truncate">{isStaff(user.role) ? t(`roles.${user.role}` as 'roles.admin') : user.email}</span>
      </div>
    </div>
  );
}

// The account menu of the top bar (a desktop has room for it): who is signed in, their profile,
// the language and "Log out".
function AccountMenu({ user }: { user: User | undefined }) {
  const { t } = useTranslation('shell');
  const { open, toggle, close, rootRef, toggleRef } = useDisclosure();
  const location = useLocation();
  const name = user?.name ?? '';
  return (
    <div className="app-account" ref={rootRef}>
      <button
        ref={toggleRef}
        type="button"
        className="app-account__toggle"
        aria-expanded={open}
        aria-controls="account-menu"
        onClick={toggle}
      >
        {user ? <Avatar name={user.name} photo={user.photo} /> : null}
        {/* Named by what it shows, after what it is: "Account menu: Ada Lovelace". */}
        <span className="visually-hidden">{t('account.menu')} </span>
        <span className="app-account__name truncate">{name}</span>
        <svg className="app-account__chevron" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
          <path d="m6 9 6 6 6-6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </button>
      <div id="account-menu" className="app-account__panel" hidden={!open}>
        <Who user={user} />
        <ul className="app-account__list">
          <li>
            <Link
              to="/user-profile"
              className="app-account__item"
              aria-current={location.pathname === '/user-profile' ? 'page' : undefined}
              onClick={close}
            >
              <ShellIcon name="profile" />
              <span>{t('account.profile')}</span>
            </Link>
          </li>
          <li className="app-account__language">
            <LanguageSwitcher />
          </li>
          <li>
            <LogoutButton onBefore={close} className="app-account__item app-account__item--logout" />
          </li>
        </ul>
      </div>
    </div>
  );
}

// The phone's "More": everything the bottom bar has no room for, the staff's queues, the
// language and "Log out", in a sheet over the page.
function AccountSheet({ user, staff, counts, onClose }: { user: User | undefined; staff: boolean; counts?: QueueCounts; onClose: () => void }) {
  const { t } = useTranslation('shell');
  const rest = ACCOUNT_DESTINATIONS.filter((d) => !(BOTTOM_BAR_IDS as readonly string[]).includes(d.id));
  return (
    <Dialog
      title={t('sheet.title')}
      onClose={onClose}
      variant="sheet"
      actions={
        <button type="button" className="button button--secondary button--block" onClick={onClose}>
          {t('sheet.close')}
        </button>
      }
    >
      <div className="app-sheet">
        <Who user={user} />
        <nav aria-label={t('sheet.navLabel')}>
          <DestinationList destinations={rest} onNavigate={onClose} focusFirst />
          {staff ? <StaffGroup counts={counts} onNavigate={onClose} id="sheet-staff" /> : null}
        </nav>
        <LanguageSwitcher />
        <LogoutButton onBefore={onClose} className="app-nav__link app-nav__link--logout" />
      </div>
    </Dialog>
  );
}

function BottomBar({ staff, counts, onMore, moreOpen }: { staff: boolean; counts?: QueueCounts; onMore: () => void; moreOpen: boolean }) {
  const { t } = useTranslation('shell');
  const location = useLocation();
  const name = useDestinationName();
  const main = ACCOUNT_DESTINATIONS.filter((d) => (BOTTOM_BAR_IDS as readonly string[]).includes(d.id));
  const waiting = staff ? STAFF_DESTINATIONS.reduce((sum, d) => sum + (d.count ? (counts?.[d.count] ?? 0) : 0), 0) : 0;
  return (
    <nav className="app-bottom-bar" aria-label={t('nav.label')}>
      <ul className="app-bottom-bar__list">
        {main.map((d) => (
          <li key={d.id}>
            <Link to={d.to} className="app-bottom-bar__item" aria-current={isCurrent(d, location) ? 'page' : undefined} data-destination={d.id}>
              <ShellIcon name={d.icon} />
              <span>{d.id === 'dashboard' ? t('destinations.home') : name(d.id)}</span>
            </Link>
          </li>
        ))}
        <li>
          <button type="button" className="app-bottom-bar__item" aria-expanded={moreOpen} aria-haspopup="dialog" onClick={onMore}>
            <ShellIcon name="more" />
            <span>{t('destinations.more')}</span>
            {waiting > 0 ? (
              <>
                <span className="app-bottom-bar__dot" aria-hidden="true" />
                <span className="visually-hidden">{t('waiting', { count: waiting })}</span>
              </>
            ) : null}
          </button>
        </li>
      </ul>
    </nav>
  );
}

// The parts of the frame of every signed-in page, placed by Layout around the page's <main>: a
// top bar with the logo, the money actions and the account menu; a sidebar on a desktop, a bottom
// bar with an account sheet on a phone (app-shell.css, docs/design-system.md, "App shell"). They
// are separate components so the page itself keeps its place in the tree when the frame changes.
export function AppTopBar() {
  const { t } = useTranslation('shell');
  const { data: user } = useCurrentUser();
  return (
    <header className="app-topbar">
      <Link to="/my-account" className="app-topbar__brand" aria-label={t('home')}>
        <LogoMark />
        <span className="logo__word">Clearvest</span>
      </Link>
      <MoneyActions />
      <AccountMenu user={user} />
    </header>
  );
}

export function AppSidebar() {
  const { data: user } = useCurrentUser();
  const staff = isStaff(user?.role);
  const counts = useQueueCounts(staff);
  // Mounted once in the shell, so one stream serves every queue page and the counts.
  useStaffLiveRefresh(staff);
  return <Sidebar staff={staff} counts={counts} />;
}

export function AppBottomBar() {
  const { data: user } = useCurrentUser();
  const staff = isStaff(user?.role);
  const counts = useQueueCounts(staff);
  const [sheetOpen, setSheetOpen] = useState(false);
  return (
    <>
      <BottomBar staff={staff} counts={counts} onMore={() => setSheetOpen(true)} moreOpen={sheetOpen} />
      {sheetOpen ? <AccountSheet user={user} staff={staff} counts={counts} onClose={() => setSheetOpen(false)} /> : null}
    </>
  );
}

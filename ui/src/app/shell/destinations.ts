import type { QueueCounts } from '../../api/enhanced';
import type { IconName } from './icons';

// The places the app shell links to. Each is a page of the route table (routes.ts), which keeps
// its path, title and access rule; here they get the short name, icon and order the shell shows.
export interface Destination {
  id: string;
  to: string;
  icon: IconName;
  // The queue's entry in GET /api/staff/queue-counts, shown as a count beside the link.
  count?: keyof QueueCounts;
  // Further paths that belong to this destination (a case opened from its queue).
  within?: readonly string[];
  // Shown to admins only (the page's access rule is 'admin').
  adminOnly?: boolean;
}

// Every signed-in user's destinations, in the sidebar's order.
export const ACCOUNT_DESTINATIONS: readonly Destination[] = [
  { id: 'dashboard', to: '/my-account', icon: 'home', within: ['/share-your-experience'] },
  { id: 'portfolio', to: '/invest-status', icon: 'portfolio', within: ['/investment/', '/start-invest'] },
  { id: 'history', to: '/transaction-History', icon: 'history' },
  { id: 'deposit', to: '/deposit-payment', icon: 'deposit' },
  { id: 'withdraw', to: '/withdraw-wallet', icon: 'withdraw', within: ['/withdrawal/'] },
  { id: 'referrals', to: '/referrals', icon: 'referrals' },
  { id: 'profile', to: '/user-profile', icon: 'profile' },
];

// The staff's queues and tools (authors and admins), in their own group.
export const STAFF_DESTINATIONS: readonly Destination[] = [
  { id: 'deposits', to: '/admin-pending-deposit', icon: 'deposit', count: 'deposits', within: ['/transaction/'] },
  { id: 'withdrawals', to: '/admin-pending-wallet', icon: 'withdraw', count: 'withdrawals' },
  { id: 'investments', to: '/admin-pending-investment', icon: 'invest', count: 'investments' },
  { id: 'identityChecks', to: '/pending-kyc', icon: 'identity', count: 'identityChecks' },
  { id: 'approvals', to: '/approvals', icon: 'approvals', count: 'approvals' },
  { id: 'users', to: '/user-profile?tab=users', icon: 'users' },
  { id: 'support', to: '/support-tickets', icon: 'support', count: 'supportTickets' },
  { id: 'testimonials', to: '/pending-testimonials', icon: 'testimonials', count: 'testimonials' },
  { id: 'email', to: '/compose-email', icon: 'email' },
  { id: 'audit', to: '/audit', icon: 'audit', adminOnly: true },
  { id: 'settings', to: '/settings', icon: 'settings', adminOnly: true },
];

// The phone's bottom bar: the three places visited most, then "More" (the account sheet).
export const BOTTOM_BAR_IDS = ['dashboard', 'portfolio', 'history'] as const;

// The money actions, one tap away on every signed-in page.
export const MONEY_ACTIONS: readonly Destination[] = [
  { id: 'deposit', to: '/deposit-payment', icon: 'deposit' },
  { id: 'invest', to: '/start-invest', icon: 'invest' },
  { id: 'withdraw', to: '/withdraw-wallet', icon: 'withdraw' },
];

// Whether a destination is the page showing. The profile page's users tab is the staff's "Users"
// destination, so "Profile" is current on every other tab of that page.
export function isCurrent(destination: Destination, location: { pathname: string; search: string }) {
  const [path, query] = destination.to.split('?');
  const tab = new URLSearchParams(location.search).get('tab');
  if (path === '/user-profile' && location.pathname === path) {
    const wanted = new URLSearchParams(query ?? '').get('tab');
    return wanted === 'users' ? tab === 'users' : tab !== 'users';
  }
  if (location.pathname === path) return true;
  return (destination.within ?? []).some((prefix) =>
    prefix.endsWith('/') ? location.pathname.startsWith(prefix) : location.pathname === prefix,
  );
}

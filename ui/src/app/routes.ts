import type { ComponentType } from 'react';
import type { Role } from '../api/enhanced';
import { STAFF_ROLES } from '../features/auth/session';
import { HomePage } from '../features/home/HomePage';

// The one list of the app's pages. The router, the document title, the navbar (and its mobile
// menu), the footer, the route guards and the frame of each page (layoutFor.ts) are derived from it, so
// a page has one path, one name and one access rule wherever it appears.
//
// Paths keep the original client's spelling (docs/product-rules.md, "Screens, messages and
// validation"). Every entry has its `page`: a route is added with the screen it opens.

// Who may open a page:
//   public    everyone
//   guest     only visitors who are signed out (a signed-in user is sent on to their dashboard)
//   signedIn  signed-in users (a visitor is sent to /login and brought back afterwards)
//   staff     authors and admins
//   admin     admins
export type Access = 'public' | 'guest' | 'signedIn' | 'staff' | 'admin';

// Where a page is linked from: the main navigation (navbar and mobile menu), the footer, and the
// pages signed-in users reach from their account ('account') and the staff's pages ('staff'). The
// app shell names and orders its own destinations (shell/destinations.ts) among these.
export type Menu = 'main' | 'footer' | 'account' | 'staff';

export interface PageRoute {
  path: string;
  // The page's name: document title ("<title> · Clearvest"), and
  // the link text in every menu unless `label` says otherwise. Only the home page has none.
  // This is the English name; other languages translate it in their pages.json, keyed by `path`
  // (docs/i18n.md, "Page names").
  title?: string;
  // A shorter name for links, where the page's title would not read well in a menu.
  label?: string;
  access: Access;
  menus?: readonly Menu[];
  // Linked only when the server runs in development (development tools).
  developmentOnly?: boolean;
  // The page: a loader for a split chunk, or a component for the one page in the main chunk.
  page: (() => Promise<ComponentType>) | { component: ComponentType };
}

// Order matters only within a menu: each menu lists its pages in the order they appear here.
export const pages: readonly PageRoute[] = [
  // The home page ships in the main chunk because most visits start there; every other page is
  // split so the first load stays small.
  { path: '/', access: 'public', page: { component: HomePage } },
  {
    path: '/my-account',
    title: 'My Account',
    label: 'Dashboard',
    access: 'signedIn',
    menus: ['main'],
    page: () => import('../features/account/MyAccountPage').then((m) => m.MyAccountPage),
  },
  {
    path: '/deposit-payment',
    title: 'Fund Wallet',
    access: 'signedIn',
    menus: ['account'],
    page: () => import('../features/deposits/DepositPage').then((m) => m.DepositPage),
  },
  {
    path: '/start-invest',
    title: 'New Investment',
    access: 'signedIn',
    menus: ['account'],
    page: () => import('../features/invest/StartInvestPage').then((m) => m.StartInvestPage),
  },
  {
    path: '/invest-status',
    title: 'My Portfolio',
    access: 'signedIn',
    menus: ['account'],
    page: () => import('../features/invest/InvestStatusPage').then((m) => m.InvestStatusPage),
  },
  {
    path: '/investment-plans',
    title: 'Portfolio Plans',
    access: 'public',
    menus: ['main', 'account'],
    page: () => import('../features/plans/PlansPage').then((m) => m.PlansPage),
  },
  {
    path: '/our-story',
    title: 'About Us',
    access: 'public',
    menus: ['main', 'footer'],
    page: () => import('../features/content/StaticPage').then((m) => m.OurStoryPage),
  },
  {
    path: '/support',
    title: 'Help Center',
    access: 'public',
    menus: ['main', 'footer'],
    page: () => import('../features/support/SupportPage').then((m) => m.SupportPage),
  },
  {
    path: '/how-it-works',
    title: 'How It Works',
    access: 'public',
    menus: ['main'],
    page: () => import('../features/content/HowItWorksPage').then((m) => m.HowItWorksPage),
  },
  {
    path: '/market-rates',
    title: 'Current Rates',
    access: 'public',
    menus: ['main'],
    page: () => import('../features/market/MarketRatesPage').then((m) => m.MarketRatesPage),
  },
  {
    path: '/compose-email',
    title: 'Send Email',
    access: 'staff',
    menus: ['main'],
    page: () => import('../features/compose-email/ComposeEmailPage').then((m) => m.ComposeEmailPage),
  },
  {
    path: '/user-profile',
    title: 'Profile',
    access: 'signedIn',
    menus: ['main'],
    page: () => import('../features/profile/UserProfilePage').then((m) => m.UserProfilePage),
  },
  {
    path: '/login',
    title: 'Sign In',
    access: 'guest',
    menus: ['main'],
    page: () => import('../features/auth/LoginPage').then((m) => m.LoginPage),
  },
  {
    path: '/register',
    title: 'Create an Account',
    access: 'guest',
    page: () => import('../features/auth/RegisterPage').then((m) => m.RegisterPage),
  },
  {
    path: '/forgot',
    title: 'Forgot Password',
    access: 'guest',
    page: () => import('../features/auth/ForgotPasswordPage').then((m) => m.ForgotPasswordPage),
  },
  {
    path: '/resetPassword/:resetToken',
    title: 'Reset Password',
    access: 'public',
    page: () => import('../features/auth/ResetPasswordPage').then((m) => m.ResetPasswordPage),
  },
  {
    path: '/loginWithCode/:email',
    title: 'Sign In with a Code',
    access: 'public',
    page: () => import('../features/auth/LoginWithCodePage').then((m) => m.LoginWithCodePage),
  },
  {
    path: '/secure-account/:token',
    title: 'Secure Your Account',
    access: 'public',
    page: () => import('../features/secure-account/SecureAccountPage').then((m) => m.SecureAccountPage),
  },
  {
    path: '/verify/:verificationToken',
    title: 'Verify Your E-mail',
    access: 'public',
    page: () => import('../features/auth/VerifyEmailPage').then((m) => m.VerifyEmailPage),
  },
  {
    path: '/withdraw-wallet',
    title: 'Withdraw',
    access: 'signedIn',
    menus: ['account'],
    page: () => import('../features/withdrawals/WithdrawPage').then((m) => m.WithdrawPage),
  },
  {
    path: '/referrals',
    title: 'Referrals',
    label: 'Referral Program',
    access: 'signedIn',
    menus: ['account'],
    page: () => import('../features/referrals/ReferralsPage').then((m) => m.ReferralsPage),
  },
  // The testimonial form, linked from the dashboard (docs/community.md).
  {
    path: '/share-your-experience',
    title: 'Share Your Experience',
    access: 'signedIn',
    page: () => import('../features/community/ShareExperiencePage').then((m) => m.ShareExperiencePage),
  },
  {
    path: '/transaction-History',
    title: 'Transaction History',
    label: 'Transactions',
    access: 'signedIn',
    menus: ['account'],
    page: () => import('../features/history/HistoryPage').then((m) => m.HistoryPage),
  },
  {
    path: '/upload-kyc',
    title: 'Identity Check',
    access: 'signedIn',
    page: () => import('../features/kyc/UploadKycPage').then((m) => m.UploadKycPage),
  },
  {
    path: '/investment/:investmentId',
    title: 'Investment Details',
    access: 'signedIn',
    page: () => import('../features/invest/InvestmentDetailsPage').then((m) => m.InvestmentDetailsPage),
  },
  {
    path: '/admin-pending-wallet',
    title: 'Pending Withdrawals',
    access: 'staff',
    menus: ['staff'],
    page: () => import('../features/withdrawals/PendingWithdrawalsPage').then((m) => m.PendingWithdrawalsPage),
  },
  {
    path: '/admin-pending-deposit',
    title: 'Pending Deposits',
    access: 'staff',
    menus: ['staff'],
    page: () => import('../features/deposits/PendingDepositsPage').then((m) => m.PendingDepositsPage),
  },
  // The four-eyes queue: decisions that wait for a second staff member. Every staff member sees
  // it; only admins get its buttons (the server's rule).
  {
    path: '/approvals',
    title: 'Second Approvals',
    access: 'staff',
    menus: ['staff'],
    page: () => import('../features/approvals/ApprovalsPage').then((m) => m.ApprovalsPage),
  },
  {
    path: '/admin-pending-investment',
    title: 'Investment Queue',
    access: 'staff',
    menus: ['staff'],
    page: () => import('../features/invest/PendingInvestmentsPage').then((m) => m.PendingInvestmentsPage),
  },
  {
    path: '/pending-kyc',
    title: 'Identity Check Queue',
    access: 'staff',
    menus: ['staff'],
    page: () => import('../features/kyc/PendingKycPage').then((m) => m.PendingKycPage),
  },
  {
    path: '/pending-kyc/:id',
    title: 'Identity Check Review',
    access: 'staff',
    page: () => import('../features/kyc/KycCasePage').then((m) => m.KycCasePage),
  },
  {
    path: '/pending-testimonials',
    title: 'Testimonial Review',
    access: 'staff',
    menus: ['staff'],
    page: () => import('../features/community/PendingTestimonialsPage').then((m) => m.PendingTestimonialsPage),
  },
  // Staff decide here; an investor opening their own withdrawal (the e-mails link here) sees its
  // status. Anyone else gets the server's 404.
  {
    path: '/withdrawal/:id',
    title: 'Withdrawal Details',
    access: 'signedIn',
    page: () => import('../features/withdrawals/WithdrawalDetailsPage').then((m) => m.WithdrawalDetailsPage),
  },
  {
    path: '/support-tickets',
    title: 'Support Tickets',
    access: 'staff',
    menus: ['staff'],
    page: () => import('../features/support/SupportTicketsPage').then((m) => m.SupportTicketsPage),
  },
  {
    path: '/transaction/:transactionId',
    title: 'Payment Details',
    // Staff decide deposits here; an investor sees their own (the server answers 404 for others'),
    // a rejection's reason included.
    access: 'signedIn',
    page: () => import('../features/deposits/PaymentDetailsPage').then((m) => m.PaymentDetailsPage),
  },
  // The audit screens: staff actions, stored events and the books at a log position (admins).
  {
    path: '/audit',
    title: 'Audit',
    access: 'admin',
    menus: ['staff'],
    page: () => import('../features/audit/AuditPage').then((m) => m.AuditPage),
  },
  // The admins' settings: fees, bonus, thresholds, addresses, support contact, plans (docs/staff.md).
  {
    path: '/settings',
    title: 'Settings',
    access: 'admin',
    menus: ['staff'],
    page: () => import('../features/settings/SettingsPage').then((m) => m.SettingsPage),
  },
  // Balance adjustments and fee waivers are the admin's alone (docs/product-rules.md, "Roles").
  {
    path: '/edit-balance/:id',
    title: 'Balance Adjustment',
    access: 'admin',
    page: () => import('../features/corrections/ReturnsPage').then((m) => m.ReturnsPage),
  },
  {
    path: '/edit-user-balance/:id',
    title: 'Wallet Adjustment',
    access: 'admin',
    page: () => import('../features/corrections/CorrectionPage').then((m) => m.CorrectionPage),
  },
  {
    path: '/update-fee/:id',
    title: 'Fees',
    access: 'admin',
    page: () => import('../features/corrections/FeesPage').then((m) => m.FeesPage),
  },
  {
    path: '/Hierarchy',
    title: 'Member Levels',
    access: 'public',
    page: () => import('../features/community/HierarchyPage').then((m) => m.HierarchyPage),
  },
  {
    path: '/privacy-policy',
    title: 'Privacy Policy',
    access: 'public',
    menus: ['footer'],
    page: () => import('../features/content/StaticPage').then((m) => m.PrivacyPolicyPage),
  },
  {
    path: '/license',
    title: 'License',
    access: 'public',
    menus: ['footer'],
    page: () => import('../features/content/StaticPage').then((m) => m.LicensePage),
  },
  {
    path: '/dev/mail',
    title: 'Development Mailbox',
    label: 'Development mailbox',
    access: 'public',
    menus: ['footer'],
    developmentOnly: true,
    page: () => import('../features/dev-mail/DevMailPage').then((m) => m.DevMailPage),
  },
  {
    path: '*',
    title: 'Page not found',
    access: 'public',
    page: () => import('../features/not-found/NotFoundPage').then((m) => m.NotFoundPage),
  },
];

// Whoever is looking at the page, as far as the links are concerned.
export interface Viewer {
  signedIn: boolean;
  // Unknown until the signed-in user has loaded; staff links wait for it.
  role?: Role;
  development?: boolean;
}

export function rolesFor(access: Access): readonly Role[] | null {
  if (access === 'staff') return STAFF_ROLES;
  if (access === 'admin') return ['admin'];
  return null;
}

export function mayOpen(access: Access, viewer: Viewer) {
  if (access === 'public') return true;
  if (access === 'guest') return !viewer.signedIn;
  if (!viewer.signedIn) return false;
  const roles = rolesFor(access);
  return roles === null || (viewer.role !== undefined && roles.includes(viewer.role));
}

export interface MenuLink {
  to: string;
  label: string;
}

export const labelOf = (page: PageRoute) => page.label ?? page.title ?? 'Home';

// The links of one menu that this viewer may follow, in table order. Components name them in the
// reader's language through useMenuLinks (pageNames.ts).
export function menuLinks(
  menu: Menu,
  viewer: Viewer,
  table: readonly PageRoute[] = pages,
  labelFor: (page: PageRoute) => string = labelOf,
): MenuLink[] {
  return table
    .filter((page) => page.menus?.includes(menu) && mayOpen(page.access, viewer))
    .filter((page) => !page.developmentOnly || viewer.development)
    .map((page) => ({ to: page.path, label: labelFor(page) }));
}

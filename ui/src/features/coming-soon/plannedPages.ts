// The product's routes that have no page yet. They show "Coming soon" instead of the 404
// page so links from e-mails and bookmarks already point somewhere honest. When a feature lands,
// remove its entry here and give it its own route in app/AppRoutes.tsx.
//
// access: who may open the page once it exists — 'public', 'account' (signed in) or 'staff'
// (authors and admins) — so the guards already apply.
export type PageAccess = 'public' | 'account' | 'staff';

export const plannedPages: ReadonlyArray<{ path: string; title: string; access: PageAccess }> = [
  { path: '/privacy-policy', title: 'Privacy Policy', access: 'public' },
  { path: '/license', title: 'License', access: 'public' },
  { path: '/our-story', title: 'About Us', access: 'public' },
  { path: '/investment-plans', title: 'Portfolio Plans', access: 'public' },
  { path: '/Hierarchy', title: 'Member Levels', access: 'public' },
  { path: '/how-it-works', title: 'How It Works', access: 'public' },
  { path: '/market-rates', title: 'Current Rates', access: 'public' },
  { path: '/support', title: 'Help Center', access: 'public' },
  { path: '/compose-email', title: 'Send E-mail', access: 'staff' },
  { path: '/upload-kyc', title: 'Identity Check', access: 'account' },
  { path: '/pending-kyc', title: 'Identity Check Queue', access: 'staff' },
  { path: '/referrals', title: 'Referrals', access: 'account' },
  { path: '/transaction-History', title: 'Transaction History', access: 'account' },
  { path: '/deposit-payment', title: 'Fund Wallet', access: 'account' },
  { path: '/withdraw-wallet', title: 'Withdraw', access: 'account' },
  { path: '/withdrawal/:id', title: 'Withdrawal Details', access: 'staff' },
  { path: '/admin-pending-wallet', title: 'Pending Withdrawals', access: 'staff' },
  { path: '/admin-pending-deposit', title: 'Pending Deposits', access: 'staff' },
  { path: '/admin-pending-investment', title: 'Investment Queue', access: 'staff' },
  { path: '/start-invest', title: 'New Investment', access: 'account' },
  { path: '/invest-status', title: 'My Portfolio', access: 'account' },
  { path: '/investment/:investmentId', title: 'Investment Details', access: 'account' },
  { path: '/edit-balance/:id', title: 'Balance Adjustment', access: 'staff' },
  { path: '/edit-user-balance/:id', title: 'Wallet Adjustment', access: 'staff' },
  { path: '/update-fee/:id', title: 'Fees', access: 'staff' },
  { path: '/transaction/:transactionId', title: 'Payment Details', access: 'staff' },
];

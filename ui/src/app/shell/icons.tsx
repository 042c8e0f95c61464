// The shell's line icons (24 × 24, drawn with the current text colour). Decorative: every icon
// stands beside its label, which is what assistive technology reads.
const PATHS = {
  home: 'M3 10.5 12 3l9 7.5M5 9v11h5v-6h4v6h5V9',
  portfolio: 'M12 3v9h9M12 3a9 9 0 1 0 9 9 9 9 0 0 0-9-9Z',
  history: 'M8 6h13M8 12h13M8 18h13M3.5 6h.01M3.5 12h.01M3.5 18h.01',
  deposit: 'M12 3v12m0 0-4.5-4.5M12 15l4.5-4.5M4 17v3h16v-3',
  withdraw: 'M12 15V3m0 0L7.5 7.5M12 3l4.5 4.5M4 17v3h16v-3',
  invest: 'M3 17l6-6 4 4 8-8m0 0h-5m5 0v5',
  referrals: 'M16 20v-1.5a3.5 3.5 0 0 0-3.5-3.5h-5A3.5 3.5 0 0 0 4 18.5V20M10 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7Zm10 9v-1.5a3.5 3.5 0 0 0-2.5-3.35M15.5 4.15a3.5 3.5 0 0 1 0 6.7',
  profile: 'M19 20v-1.5a3.5 3.5 0 0 0-3.5-3.5h-7A3.5 3.5 0 0 0 5 18.5V20M12 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8Z',
  more: 'M4 6h16M4 12h16M4 18h16',
  identity: 'M4 5h16v14H4zM8.5 12a2 2 0 1 0 0-4 2 2 0 0 0 0 4ZM6 16a2.5 2.5 0 0 1 5 0M14 9h4M14 13h3',
  approvals: 'M9 12l2 2 4-4M12 3l7 3v5c0 4.5-3 8-7 10-4-2-7-5.5-7-10V6l7-3Z',
  users: 'M16 20v-1.5a3.5 3.5 0 0 0-3.5-3.5h-5A3.5 3.5 0 0 0 4 18.5V20M10 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7Zm7-3v6m3-3h-6',
  support: 'M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12Z',
  testimonials: 'M7 10h4v4a3 3 0 0 1-3 3M14 10h4v4a3 3 0 0 1-3 3M7 10a3 3 0 0 1 3-3M14 10a3 3 0 0 1 3-3',
  email: 'M3 6h18v12H3zM3 7l9 6 9-6',
  audit: 'M9 4h6v3H9zM7 5H5v16h14V5h-2M8 12h8M8 16h5',
  settings: 'M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0M14 4v4M8 10v4M16 16v4',
  logout: 'M15 4h4v16h-4M10 16l4-4-4-4M14 12H3',
} as const;

export type IconName = keyof typeof PATHS;

export function ShellIcon({ name }: { name: IconName }) {
  return (
    <svg className="shell-icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

import type { Access } from './routes';

// Which frame a page is shown in:
//   site  the marketing navbar and footer: visitors, sign-in pages, the home page, and public
//         pages viewed signed out
//   app   the signed-in app shell (sidebar on a desktop, bottom bar on a phone): every page for
//         signed-in users, and the public pages (plans, help, rates) when a signed-in user opens
//         them, so the app does not turn into the marketing site under their feet
//   bare  only the content: a signed-in page while the session is being checked or the guard is
//         sending a visitor to sign in, so neither frame flashes up for a moment
export type LayoutKind = 'site' | 'app' | 'bare';

export interface LayoutAuth {
  known: boolean;
  isLoggedIn: boolean;
}

const PRIVATE: readonly Access[] = ['signedIn', 'staff', 'admin'];

export function layoutFor(page: { path: string; access: Access } | undefined, auth: LayoutAuth): LayoutKind {
  if (!page) return auth.isLoggedIn ? 'app' : 'site';
  if (PRIVATE.includes(page.access)) return auth.isLoggedIn ? 'app' : 'bare';
  if (page.access === 'guest') return 'site';
  // The home page is the marketing site's front door; a signed-in user reaches it only by asking.
  if (page.path === '/') return 'site';
  return auth.isLoggedIn ? 'app' : 'site';
}

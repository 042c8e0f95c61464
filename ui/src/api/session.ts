import { createAction } from '@reduxjs/toolkit';

// Dispatched by the base query when a request was refused as unauthenticated and refreshing the
// session did not help: the browser no longer has a usable session, so everything that assumed
// one (the auth slice, cached personal data) must be cleared. It lives here, not in the auth
// feature, because the base query sits below every feature.
export const sessionExpired = createAction('auth/sessionExpired');

// The server keeps a script-readable `cv_signed_in=1` cookie beside the (HttpOnly, path-scoped)
// refresh cookie, with the same lifetime, and clears both together (docs/identity.md). Without
// it a refresh cannot succeed, so the app does not ask: a signed-out visit then makes no request
// that the server must refuse.
export const SIGNED_IN_COOKIE = 'cv_signed_in';

export function mayHaveSession(cookies: string = document.cookie) {
  return cookies.split(';').some((cookie) => cookie.trim().startsWith(`${SIGNED_IN_COOKIE}=`));
}

import { createAction } from '@reduxjs/toolkit';

// Dispatched by the base query when a request was refused as unauthenticated and refreshing the
// session did not help: the browser no longer has a usable session, so everything that assumed
// one (the auth slice, cached personal data) must be cleared. It lives here, not in the auth
// feature, because the base query sits below every feature.
export const sessionExpired = createAction('auth/sessionExpired');

import { createAsyncThunk } from '@reduxjs/toolkit';
import { api } from '../../api/enhanced';
import { mayHaveSession } from './sessionHint';

// Whether this browser has a session, asked once when the app starts.
//
// loginStatus looks only at the 15-minute access cookie. Someone who comes back after a coffee
// break still holds a valid refresh cookie (which the browser sends to the refresh URL only, so
// the page cannot see it): one refresh attempt tells the two cases apart before any guard sends
// them to /login. The attempt is made only in a browser that has signed in before (sessionHint.ts),
// so a first-time visitor's console stays clean.
export const checkSession = createAsyncThunk<boolean, void, { state: { auth: { checking: boolean } } }>(
  'auth/checkSession',
  async (_, { dispatch }) => {
    const status = (force: boolean) =>
      dispatch(api.endpoints.loginStatus.initiate(undefined, { subscribe: false, forceRefetch: force })).unwrap();
    if (await status(false)) return true;
    if (!mayHaveSession()) return false;
    const refresh = dispatch(api.endpoints.refreshSession.initiate());
    try {
      await refresh.unwrap();
    } catch {
      return false;
    } finally {
      refresh.reset();
    }
    return status(true);
  },
  {
    // React runs mount effects twice in development; one check is enough.
    condition: (_, { getState }) => !getState().auth.checking,
  },
);

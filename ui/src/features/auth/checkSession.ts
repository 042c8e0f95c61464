import { createAsyncThunk } from '@reduxjs/toolkit';
import { api } from '../../api/enhanced';
import { mayHaveSession } from '../../api/session';

// Whether this browser has a session, asked once when the app starts.
//
// loginStatus looks only at the 15-minute access cookie. Someone who comes back after a coffee
// break still holds a valid refresh cookie (which the browser sends to the refresh URL only, so
// the page cannot see it): one refresh attempt tells the two cases apart before any guard sends
// them to /login. A browser without the signed-in hint cookie holds no refresh cookie either, so
// it is not asked (a visitor's first page makes no request that ends in a 401).
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

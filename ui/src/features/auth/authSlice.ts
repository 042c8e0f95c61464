import { createSlice } from '@reduxjs/toolkit';
import { api, isLoginPending, isNewDevice } from '../../api/enhanced';
import { sessionExpired } from '../../api/session';
import { checkSession } from './checkSession';

export type SignedInVia = 'login' | 'register' | 'code';

// What this browser tab knows about its own session. Server data (the signed-in user) is not
// copied here: it is read from the getUser query's cache (useCurrentUser in session.ts).
export interface AuthState {
  // False until the server has answered loginStatus once, so guards wait instead of guessing.
  known: boolean;
  checking: boolean;
  isLoggedIn: boolean;
  // The last sign-in attempt was answered with "new browser": a login code is on its way.
  twoFactor: boolean;
  // How this tab's session began, which decides where a guest-only page sends the user.
  signedInVia: SignedInVia | null;
  // Why the last session ended; an explicit logout forgets the page to come back to.
  endedBy: 'logout' | 'expired' | null;
}

const initialState: AuthState = {
  known: false,
  checking: false,
  isLoggedIn: false,
  twoFactor: false,
  signedInVia: null,
  endedBy: null,
};

function signedIn(state: AuthState, via: SignedInVia) {
  state.known = true;
  state.isLoggedIn = true;
  state.twoFactor = false;
  state.signedInVia = via;
  state.endedBy = null;
}

function signedOut(state: AuthState, endedBy: AuthState['endedBy']) {
  state.known = true;
  state.isLoggedIn = false;
  state.signedInVia = null;
  state.endedBy = endedBy;
}

const { endpoints } = api;

export const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    loggedOut(state) {
      signedOut(state, 'logout');
      state.twoFactor = false;
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(sessionExpired, (state) => signedOut(state, 'expired'))
      .addCase(checkSession.pending, (state) => {
        state.checking = true;
      })
      .addCase(checkSession.fulfilled, (state, { payload }) => {
        state.checking = false;
        state.known = true;
        // A sign-in that finished while the check ran is newer than the check's answer.
        if (payload) state.isLoggedIn = true;
      })
      .addCase(checkSession.rejected, (state) => {
        // The server could not be asked; treat the visitor as signed out, but let them try.
        state.checking = false;
        state.known = true;
      })
      .addMatcher(endpoints.loginStatus.matchFulfilled, (state, { payload }) => {
        if (!payload && state.isLoggedIn) signedOut(state, 'expired');
      })
      .addMatcher(endpoints.login.matchFulfilled, (state, { payload }) => {
        // A new browser: the server e-mailed a login code; the session comes with it. The
        // authenticator's step sends nothing.
        if (isNewDevice(payload)) state.twoFactor = true;
        else if (!isLoginPending(payload)) signedIn(state, 'login');
      })
      .addMatcher(endpoints.register.matchFulfilled, (state) => signedIn(state, 'register'))
      .addMatcher(endpoints.loginWithCode.matchFulfilled, (state, { payload }) => {
        // The authenticator's code is still to come.
        if (!isLoginPending(payload)) signedIn(state, 'code');
      })
      .addMatcher(endpoints.googleLink.matchFulfilled, (state, { payload }) => {
        if (!isLoginPending(payload)) signedIn(state, 'login');
      })
      .addMatcher(endpoints.loginWithPasskey.matchFulfilled, (state) => signedIn(state, 'login'))
      .addMatcher(endpoints.logout.matchFulfilled, (state) => {
        signedOut(state, 'logout');
        state.twoFactor = false;
      });
  },
  selectors: {
    selectAuth: (state) => state,
    selectIsLoggedIn: (state) => state.isLoggedIn,
  },
});

export const { loggedOut } = authSlice.actions;
export const { selectAuth, selectIsLoggedIn } = authSlice.selectors;

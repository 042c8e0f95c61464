import { createSlice, isAnyOf } from '@reduxjs/toolkit';
import { api, type User } from '../../api/enhanced';
import { apiErrorInfo } from '../../api/errors';
import { sessionExpired } from '../../api/session';
import { checkSession } from './checkSession';

export type Role = User['role'];
export type SignedInVia = 'login' | 'register' | 'code';

// The signed-in user as the specification's auth state describes it: isLoggedIn,
// user, twoFactor (a login code is pending), message (the last auth error). `known` is false
// until the server has answered loginStatus once, so guards wait instead of guessing.
export interface AuthState {
  known: boolean;
  checking: boolean;
  isLoggedIn: boolean;
  user: User | null;
  twoFactor: boolean;
  message: string;
  // How this browser tab's session began, which decides where a guest-only page sends the user.
  signedInVia: SignedInVia | null;
  // Why the last session ended; an explicit logout forgets the page to come back to.
  endedBy: 'logout' | 'expired' | null;
}

const initialState: AuthState = {
  known: false,
  checking: false,
  isLoggedIn: false,
  user: null,
  twoFactor: false,
  message: '',
  signedInVia: null,
  endedBy: null,
};

// The access token in sign-in responses is for API clients; the browser's cookie carries the
// session, so the token is not kept where any script could read it.
function withoutToken(user: User): User {
  const rest = { ...user };
  delete rest.token;
  return rest;
}

function signedIn(state: AuthState, user: User, via: SignedInVia) {
  state.known = true;
  state.isLoggedIn = true;
  state.user = withoutToken(user);
  state.twoFactor = false;
  state.message = '';
  state.signedInVia = via;
  state.endedBy = null;
}

function signedOut(state: AuthState, endedBy: AuthState['endedBy']) {
  state.known = true;
  state.isLoggedIn = false;
  state.user = null;
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
      state.message = '';
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
      .addMatcher(isAnyOf(endpoints.getUser.matchFulfilled, endpoints.updateUser.matchFulfilled, endpoints.uploadPhoto.matchFulfilled), (state, { payload }) => {
        // An answer that arrives after logging out must not sign the user back in.
        if (!state.isLoggedIn) return;
        state.user = withoutToken(payload);
      })
      .addMatcher(endpoints.login.matchFulfilled, (state, { payload }) => signedIn(state, payload, 'login'))
      .addMatcher(endpoints.register.matchFulfilled, (state, { payload }) => signedIn(state, payload, 'register'))
      .addMatcher(endpoints.loginWithCode.matchFulfilled, (state, { payload }) => signedIn(state, payload, 'code'))
      .addMatcher(endpoints.googleLink.matchFulfilled, (state, { payload }) => signedIn(state, payload, 'login'))
      .addMatcher(endpoints.login.matchRejected, (state, action) => {
        const { message = '', code } = apiErrorInfo(action.payload);
        state.isLoggedIn = false;
        state.user = null;
        state.message = message;
        if (code === 'new_device' || message.includes('New browser')) state.twoFactor = true;
      })
      .addMatcher(isAnyOf(endpoints.register.matchRejected, endpoints.loginWithCode.matchRejected), (state, action) => {
        state.message = apiErrorInfo(action.payload).message ?? '';
      })
      .addMatcher(endpoints.logout.matchFulfilled, (state) => {
        signedOut(state, 'logout');
        state.twoFactor = false;
      });
  },
  selectors: {
    selectAuth: (state) => state,
    selectIsLoggedIn: (state) => state.isLoggedIn,
    selectAuthKnown: (state) => state.known,
    selectCurrentUser: (state) => state.user,
    selectRole: (state): Role | null => state.user?.role ?? null,
  },
});

export const { loggedOut } = authSlice.actions;
export const { selectAuth, selectIsLoggedIn, selectAuthKnown, selectCurrentUser, selectRole } = authSlice.selectors;

export const isStaff = (role: Role | null | undefined) => role === 'admin' || role === 'author';
export const STAFF_ROLES: readonly Role[] = ['admin', 'author'];

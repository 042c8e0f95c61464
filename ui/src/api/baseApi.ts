import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
  type FetchBaseQueryMeta,
} from '@reduxjs/toolkit/query/react';
import { POSITION_HEADER, positionSeen, positionSlice, type PositionState } from './position';
import { sessionExpired } from './session';
import { askForStepUp, needsStepUp } from './stepUp';

const rawBaseQuery = fetchBaseQuery({
  baseUrl: '/api',
  credentials: 'same-origin',
  prepareHeaders(headers, { getState }) {
    // The server refuses cookie-authenticated unsafe requests without it (CSRF defence, §5).
    headers.set('X-Requested-With', 'XMLHttpRequest');
    const position = positionSlice.selectors.selectHighestPosition(
      getState() as { [positionSlice.reducerPath]: PositionState },
    );
    if (position !== null) headers.set(POSITION_HEADER, position);
    return headers;
  },
});

// The OpenAPI document types some header parameters as integers (X-Clearvest-Position), so the
// generated endpoints may pass numbers; fetch wants strings. Undefined headers are dropped, which
// lets prepareHeaders add the position the client has seen.
type HeaderValue = string | number | undefined;
type Args = string | (Omit<FetchArgs, 'headers'> & { headers?: FetchArgs['headers'] | Record<string, HeaderValue> });

function toFetchArgs(args: Args): string | FetchArgs {
  if (typeof args === 'string' || !args.headers || args.headers instanceof Headers || Array.isArray(args.headers)) {
    return args as string | FetchArgs;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(args.headers as Record<string, HeaderValue>)) {
    if (value !== undefined) headers[name] = String(value);
  }
  return { ...args, headers };
}

type BaseQuery = BaseQueryFn<Args, unknown, FetchBaseQueryError, object, FetchBaseQueryMeta>;

const queryNotingPosition: BaseQuery = async (args, api, extraOptions) => {
  const result = await rawBaseQuery(toFetchArgs(args), api, extraOptions);
  // Error responses count too: a 409 or 422 may still report how far the log has moved.
  const seen = result.meta?.response?.headers.get(POSITION_HEADER);
  if (seen) api.dispatch(positionSeen(seen));
  return result;
};

// The access cookie lives 15 minutes; the refresh cookie (path-scoped to this URL, so it is
// written by hand rather than taken from the generated endpoints, which are built on this file)
// buys a new one. Only a 401 whose code is `not_signed_in` means the session is gone; other 401s
// ("wrong credentials", or a next step such as totp_required or new_device) never trigger a
// refresh, so a mistyped password is not counted twice against the rate limit.
const refreshOp = 'refresh';
export const REFRESH_URL = `/users/${refreshOp}`;

// The calls that set a session, and the other calls whose 401 is an answer about credentials.
const signInOps = ['login', 'loginWithCode', 'register', 'google'];
const otherCredentialOps = [refreshOp, 'logout', 'forgotPassword', 'resetPassword'];
const userOp = (ops: string[]) => new RegExp(`^/?users/(${ops.join('|')})\\b`);
const credentialCalls = userOp([...signInOps, ...otherCredentialOps]);

const urlOf = (args: Args) => (typeof args === 'string' ? args : args.url);

function sessionMayHaveExpired(error: FetchBaseQueryError | undefined, args: Args) {
  if (error?.status !== 401 || credentialCalls.test(urlOf(args))) return false;
  const code = (error.data as { code?: unknown } | undefined)?.code;
  return code === 'not_signed_in';
}

// A refused refresh clears the session cookies. Answered after a sign-in that went out while it
// was in flight (the start-up check's refresh on the sign-in page, say), it would clear the new
// session's cookies too, and the new page would be refused. So the calls that set a session wait
// for every refresh in flight, whoever started it.
const setsSession = userOp(signInOps);
const isRefresh = userOp([refreshOp]);
const refreshesInFlight = new Set<Promise<unknown>>();

const queryAfterRefreshes: BaseQuery = async (args, api, extraOptions) => {
  if (setsSession.test(urlOf(args))) await Promise.allSettled([...refreshesInFlight]);
  const result = queryNotingPosition(args, api, extraOptions);
  if (isRefresh.test(urlOf(args))) {
    const settled = Promise.resolve(result);
    refreshesInFlight.add(settled);
    void settled.finally(() => refreshesInFlight.delete(settled));
  }
  return result;
};

// Parallel requests that all meet a 401 share one refresh: the server rotates the refresh token
// on every use and treats a second use of the old one as theft.
let refreshing: Promise<boolean> | null = null;

function refreshSession(api: Parameters<BaseQuery>[1], extraOptions: object) {
  refreshing ??= (async () => {
    try {
      const result = await queryAfterRefreshes({ url: REFRESH_URL, method: 'POST' }, api, extraOptions);
      return !result.error;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

const querySignedIn: BaseQuery = async (args, api, extraOptions) => {
  const result = await queryAfterRefreshes(args, api, extraOptions);
  if (!sessionMayHaveExpired(result.error, args)) return result;
  if (!(await refreshSession(api, extraOptions))) {
    api.dispatch(sessionExpired());
    return result;
  }
  return queryAfterRefreshes(args, api, extraOptions);
};

// A request that needs a fresh step-up is repeated, once, after the person confirmed it's them;
// the server refused it before reading it (its Idempotency-Key included), so nothing ran twice.
// If they decline, the refusal goes to the caller like any other.
const baseQuery: BaseQuery = async (args, api, extraOptions) => {
  const result = await querySignedIn(args, api, extraOptions);
  if (!needsStepUp(result.error) || !(await askForStepUp())) return result;
  return querySignedIn(args, api, extraOptions);
};

// The one API slice of the app. Endpoints are injected by the generated code (generated.ts) and
// given cache tags in enhanced.ts; components import hooks from enhanced.ts.
export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery,
  endpoints: () => ({}),
});

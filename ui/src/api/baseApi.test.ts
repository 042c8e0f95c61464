import { describe, expect, it, vi } from 'vitest';
import { makeStore } from '../app/store';
import { baseApi } from './baseApi';
import { POSITION_HEADER } from './position';

const probeApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    probe: build.query<unknown, number>({ query: (n) => `/probe/${n}` }),
  }),
});

function respondWithPositions(...positions: (string | null)[]) {
  const fetchMock = vi.fn<(request: Request) => Promise<Response>>(async () => {
    const position = positions.shift() ?? null;
    const headers = new Headers({ 'Content-Type': 'application/json' });
    if (position !== null) headers.set(POSITION_HEADER, position);
    return new Response('{}', { status: 200, headers });
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

async function probe(store: ReturnType<typeof makeStore>, n: number) {
  await store.dispatch(probeApi.endpoints.probe.initiate(n));
}

function sentHeaders(fetchMock: ReturnType<typeof respondWithPositions>) {
  return fetchMock.mock.calls.map(([request]) => ({
    url: new URL(request.url).pathname,
    requestedWith: request.headers.get('X-Requested-With'),
    position: request.headers.get(POSITION_HEADER),
  }));
}

describe('baseApi', () => {
  it('marks every request as XMLHttpRequest under /api', async () => {
    const fetchMock = respondWithPositions(null);
    const store = makeStore();

    await probe(store, 1);

    expect(sentHeaders(fetchMock)).toEqual([{ url: '/api/probe/1', requestedWith: 'XMLHttpRequest', position: null }]);
    expect(fetchMock.mock.calls[0]?.[0].credentials).toBe('same-origin');
  });

  it('sends back the highest X-Clearvest-Position seen, never a lower one', async () => {
    const fetchMock = respondWithPositions('42', '7', null, '9007199254740993', '9007199254740992', null);
    const store = makeStore();

    for (const n of [1, 2, 3, 4, 5, 6]) await probe(store, n);

    expect(sentHeaders(fetchMock).map((h) => h.position)).toEqual([
      null,
      '42',
      '42',
      '42',
      // Beyond 2^53: a float comparison would consider these equal or reorder them.
      '9007199254740993',
      '9007199254740993',
    ]);
  });

  it('learns the position from error responses too', async () => {
    const fetchMock = vi.fn<(request: Request) => Promise<Response>>(async () =>
      Response.json({ message: 'Insufficient balance' }, { status: 422, headers: { [POSITION_HEADER]: '15' } }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const store = makeStore();

    await probe(store, 1);
    await probe(store, 2);

    expect(fetchMock.mock.calls[1]?.[0].headers.get(POSITION_HEADER)).toBe('15');
  });

  it('ignores a malformed position header', async () => {
    const fetchMock = respondWithPositions('12', 'abc', '-5', null);
    const store = makeStore();

    for (const n of [1, 2, 3, 4]) await probe(store, n);

    expect(sentHeaders(fetchMock).map((h) => h.position)).toEqual([null, '12', '12', '12']);
  });
});

describe('baseApi session refresh', () => {
  const userApi = baseApi.injectEndpoints({
    endpoints: (build) => ({
      me: build.query<{ name: string }, void>({ query: () => '/users/getUser' }),
      other: build.query<unknown, void>({ query: () => '/users/sessions' }),
      signIn: build.mutation<unknown, void>({ query: () => ({ url: '/users/login', method: 'POST' }) }),
    }),
  });

  function stub(handler: (path: string, nth: number) => Response) {
    const counts = new Map<string, number>();
    const fetchMock = vi.fn<(request: Request) => Promise<Response>>(async (request) => {
      const path = `${request.method} ${new URL(request.url).pathname}`;
      const nth = (counts.get(path) ?? 0) + 1;
      counts.set(path, nth);
      return handler(path, nth);
    });
    vi.stubGlobal('fetch', fetchMock);
    return () => fetchMock.mock.calls.map(([request]) => `${request.method} ${new URL(request.url).pathname}`);
  }

  const unauthorized = () => Response.json({ message: 'Please log in to continue.', code: 'not_signed_in' }, { status: 401 });

  it('on a 401 refreshes the session once and retries the request', async () => {
    const calls = stub((path, nth) => {
      if (path === 'POST /api/users/refresh') return Response.json({ token: 't', expiresAt: '2030-01-01T00:00:00Z' });
      return nth === 1 ? unauthorized() : Response.json({ name: 'Ada' });
    });
    const store = makeStore();

    const result = await store.dispatch(userApi.endpoints.me.initiate());

    expect(result.data).toEqual({ name: 'Ada' });
    expect(calls()).toEqual(['GET /api/users/getUser', 'POST /api/users/refresh', 'GET /api/users/getUser']);
    expect(fetchRequests()[1]?.headers.get('X-Requested-With')).toBe('XMLHttpRequest');
  });

  it('clears the signed-in state when the refresh is refused too', async () => {
    const calls = stub(() => unauthorized());
    const store = makeStore({
      auth: {
        known: true,
        checking: false,
        isLoggedIn: true,
        twoFactor: false,
        signedInVia: 'login',
        endedBy: null,
      },
    });

    const result = await store.dispatch(userApi.endpoints.me.initiate());

    expect(result.error).toMatchObject({ status: 401 });
    expect(calls()).toEqual(['GET /api/users/getUser', 'POST /api/users/refresh']);
    expect(store.getState().auth).toMatchObject({ isLoggedIn: false, endedBy: 'expired' });
  });

  it('shares one refresh between requests that fail together', async () => {
    let refreshed = false;
    const calls = stub((path) => {
      if (path === 'POST /api/users/refresh') {
        refreshed = true;
        return Response.json({ token: 't', expiresAt: '2030-01-01T00:00:00Z' });
      }
      return refreshed ? Response.json({ name: 'Ada' }) : unauthorized();
    });
    const store = makeStore();

    await Promise.all([store.dispatch(userApi.endpoints.me.initiate()), store.dispatch(userApi.endpoints.other.initiate())]);

    expect(calls().filter((c) => c === 'POST /api/users/refresh')).toHaveLength(1);
    expect(calls()).toHaveLength(5);
  });

  it('does not refresh a 401 that asks for a next step, such as an authenticator code', async () => {
    const calls = stub(() => Response.json({ message: 'Invalid authentication code', code: 'totp_required' }, { status: 401 }));
    const store = makeStore();

    await store.dispatch(userApi.endpoints.other.initiate());

    expect(calls()).toEqual(['GET /api/users/sessions']);
  });

  it('does not refresh a 401 without the not_signed_in code', async () => {
    const calls = stub(() => Response.json({ message: 'Old password is incorrect' }, { status: 401 }));
    const store = makeStore();

    await store.dispatch(userApi.endpoints.other.initiate());

    expect(calls()).toEqual(['GET /api/users/sessions']);
  });

  it('does not refresh when signing in is refused: a 401 there means wrong credentials', async () => {
    const calls = stub(() => unauthorized());
    const store = makeStore();

    await store.dispatch(userApi.endpoints.signIn.initiate());

    expect(calls()).toEqual(['POST /api/users/login']);
  });

  function fetchRequests() {
    return (globalThis.fetch as unknown as ReturnType<typeof vi.fn<(r: Request) => Promise<Response>>>).mock.calls.map(([r]) => r);
  }
});

describe('a sign-in while a refresh is in flight', () => {
  const authApi = baseApi.injectEndpoints({
    endpoints: (build) => ({
      refreshProbe: build.mutation<unknown, void>({ query: () => ({ url: '/users/refresh', method: 'POST' }) }),
      loginProbe: build.mutation<unknown, void>({ query: () => ({ url: '/users/login', method: 'POST', body: {} }) }),
    }),
  });

  it('is sent only after the refresh is answered, so a refused refresh cannot clear the new session', async () => {
    let answerRefresh: (r: Response) => void = () => {};
    const sent: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (request: Request) => {
        const path = new URL(request.url).pathname;
        sent.push(path);
        if (path === '/api/users/refresh') return new Promise<Response>((resolve) => (answerRefresh = resolve));
        return Response.json({}, { status: 200 });
      }),
    );
    const store = makeStore();

    const refresh = store.dispatch(authApi.endpoints.refreshProbe.initiate());
    await vi.waitFor(() => expect(sent).toEqual(['/api/users/refresh']));
    const login = store.dispatch(authApi.endpoints.loginProbe.initiate());
    // The login waits while the refresh is open...
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent).toEqual(['/api/users/refresh']);
    // ...and goes out once it is refused.
    answerRefresh(Response.json({ message: 'Please sign in', code: 'not_signed_in' }, { status: 401 }));
    await refresh;
    await login;
    expect(sent).toEqual(['/api/users/refresh', '/api/users/login']);
  });
});

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

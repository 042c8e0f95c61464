import { describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/enhanced';
import { makeStore } from '../../../app/store';
import { json, makeUser, stubApi } from '../../../test/stubApi';
import { switchUser } from './switchUser';

const admin = makeUser({ _id: 'admin-1', name: 'Demo Admin', role: 'admin' });
const ivy = makeUser({ _id: 'u2', name: 'Ivy Investor', isImpersonated: true });

// The signed-in user as the pages see it.
const current = (store: ReturnType<typeof makeStore>) => api.endpoints.getUser.select({})(store.getState() as never).data;

describe('switchUser', () => {
  it('reads the new person even when a read of the previous one is still under way', async () => {
    // The first read was sent before the switch, with the admin's cookie; it answers once the
    // switch has begun. Every read after it is answered as the viewed investor.
    let answerEarlier: (r: Response) => void = () => {};
    const earlier = new Promise<Response>((resolve) => (answerEarlier = resolve));
    let reads = 0;
    const sent = stubApi({
      'GET /api/users/getUser': () => {
        reads += 1;
        return reads === 1 ? earlier : json(ivy);
      },
    });
    const store = makeStore();
    void store.dispatch(api.endpoints.getUser.initiate({}, { subscribe: false }));
    await vi.waitFor(() => expect(sent.to('GET /api/users/getUser')).toHaveLength(1));

    const go = vi.fn(() => expect(current(store)?._id).toBe('u2'));
    const switching = switchUser(store.dispatch, go);
    answerEarlier(json(admin));
    await switching;

    expect(go).toHaveBeenCalledTimes(1);
    expect(sent.to('GET /api/users/getUser')).toHaveLength(2);
    expect(current(store)?.name).toBe('Ivy Investor');
  });

  it('reads the user once when nothing else is reading it', async () => {
    const sent = stubApi({ 'GET /api/users/getUser': () => json(ivy) });
    const store = makeStore();
    const go = vi.fn();
    await switchUser(store.dispatch, go);
    expect(go).toHaveBeenCalledTimes(1);
    expect(sent.to('GET /api/users/getUser')).toHaveLength(1);
    expect(current(store)?._id).toBe('u2');
  });
});

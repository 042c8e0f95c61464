import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';
import { waitedSeconds } from './queueWords';

const staff = makeUser({ _id: 'staff-1', role: 'author', name: 'Rita Reviewer' });

describe('waiting time', () => {
  it('counts from submission to the server’s clock', () => {
    expect(waitedSeconds('2026-11-23T07:00:00Z', '2026-11-23T10:12:30Z')).toBe(3 * 3600 + 12 * 60 + 30);
    expect(waitedSeconds('2026-11-23T10:00:00Z', '2026-11-23T10:05:59Z')).toBe(359);
    expect(waitedSeconds('2026-11-23T10:00:00Z', 'not a time')).toBeNull();
    // A submission stamped after asOf (clock skew between servers) never waits a negative time.
    expect(waitedSeconds('2026-11-23T10:01:00Z', '2026-11-23T10:00:00Z')).toBe(0);
  });
});

describe('identity check queue', () => {
  it('lists the waiting users oldest first with their waiting time and a re-upload badge', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/users/kyc/pending': json({
        asOf: '2026-11-23T10:12:00Z',
        total: 2,
        pendingUsers: [
          { _id: 'u1', name: 'Ada Lovelace', email: 'ada@example.com', country: 'GB', submission: 1, submittedAt: '2026-11-23T07:00:00Z', documents: ['front', 'back'] },
          { _id: 'u2', name: 'Bo Re', email: 'bo@example.com', country: 'DE', submission: 2, submittedAt: '2026-11-23T10:00:00Z', documents: ['back'] },
        ],
      }),
    });
    renderApp({ route: '/pending-kyc', ...signedIn(staff) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Identity Check Queue' })).toBeTruthy();
    const items = await screen.findAllByTestId('kyc-queue-item');
    expect(items).toHaveLength(2);
    expect(screen.getByTestId('kyc-queue-total').textContent).toBe('2 identity checks are waiting.');
    expect(within(items[0]!).getByRole('link', { name: 'Ada Lovelace' }).getAttribute('href')).toBe('/pending-kyc/u1');
    expect(within(items[0]!).getByText('ada@example.com')).toBeTruthy();
    expect(within(items[0]!).getByText('waiting 3 h 12 min')).toBeTruthy();
    expect(within(items[0]!).getByText('United Kingdom')).toBeTruthy();
    expect(within(items[0]!).queryByText('re-upload')).toBeNull();
    expect(within(items[1]!).getByText('waiting 12 min')).toBeTruthy();
    expect(within(items[1]!).getByText('re-upload')).toBeTruthy();
    expect(items[1]!.textContent).toContain('Submission 2');
  });

  it('reads the queue a page at a time and loads more on request', async () => {
    const user = (id: string, submittedAt: string) => ({ _id: id, name: `User ${id}`, email: `${id}@example.com`, country: 'GB', submission: 1, submittedAt, documents: ['front', 'back'] });
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/users/kyc/pending': (request: Request) =>
        new URL(request.url).searchParams.get('cursor') === 'page-2'
          ? json({ asOf: '2026-11-23T10:30:00Z', total: 2, pendingUsers: [user('u2', '2026-11-23T10:00:00Z')] })
          : json({ asOf: '2026-11-23T10:12:00Z', total: 2, pendingUsers: [user('u1', '2026-11-23T07:00:00Z')], nextCursor: 'page-2' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/pending-kyc', ...signedIn(staff) });
    expect(await screen.findAllByTestId('kyc-queue-item')).toHaveLength(1);
    expect(api.sent.some((r) => r.path.includes('limit=50'))).toBe(true);
    await u.click(screen.getByRole('button', { name: 'Load more' }));
    const more = await screen.findByRole('list', { name: 'More identity checks waiting, page 2' });
    // Each page's waiting times count to the server's clock when that page was read.
    expect(within(more).getByText('waiting 30 min')).toBeTruthy();
    expect(api.sent.some((r) => r.path.includes('cursor=page-2'))).toBe(true);
  });

  it('says when nobody is waiting', async () => {
    stubApi({ 'GET /api/users/getUser': json(staff), 'GET /api/users/kyc/pending': json({ asOf: '2026-11-23T10:00:00Z', total: 0, pendingUsers: [] }) });
    renderApp({ route: '/pending-kyc', ...signedIn(staff) });
    expect(await screen.findByText('No identity checks are waiting.')).toBeTruthy();
  });

  it('shows the server’s message with a retry when the queue cannot be loaded', async () => {
    let calls = 0;
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/users/kyc/pending': () =>
        ++calls === 1 ? json({ message: 'Identity checks are not available yet.' }, 422) : json({ asOf: '2026-11-23T10:00:00Z', total: 0, pendingUsers: [] }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/pending-kyc', ...signedIn(staff) });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Identity checks are not available yet.')).toBeTruthy();
    await u.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No identity checks are waiting.')).toBeTruthy();
  });

  it('is for staff only', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser()) });
    renderApp({ route: '/pending-kyc', ...signedIn(makeUser()) });
    expect(await screen.findByRole('heading', { level: 1 })).toBeTruthy();
    expect(screen.queryByRole('heading', { level: 1, name: 'Identity Check Queue' })).toBeNull();
  });
});

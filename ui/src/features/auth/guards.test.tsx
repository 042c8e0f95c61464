import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderApp, renderWithProviders } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, signedOut, stubApi } from '../../test/stubApi';
import { destinationAfterSignIn, RequireAuth, RequireGuest, RequireRole } from './guards';
import { mayHaveSession, rememberSession } from './sessionHint';

function Where() {
  const location = useLocation();
  return (
    <p data-testid="where">
      {location.pathname} from={(location.state as { from?: string } | null)?.from ?? '-'}
    </p>
  );
}

function Harness() {
  return (
    <Routes>
      <Route element={<RequireAuth />}>
        <Route path="/private" element={<p>private page</p>} />
        <Route element={<RequireRole roles={['admin', 'author']} />}>
          <Route path="/staff" element={<p>staff page</p>} />
        </Route>
      </Route>
      <Route element={<RequireGuest />}>
        <Route path="/login" element={<Where />} />
      </Route>
      <Route path="*" element={<Where />} />
    </Routes>
  );
}

const where = () => screen.getByTestId('where').textContent;

describe('route guards', () => {
  it('wait for the session check instead of redirecting', () => {
    renderWithProviders(<Harness />, { route: '/private' });
    expect(screen.getByRole('status').textContent).toContain('Checking your session');
  });

  it('send a visitor from a signed-in page to /login, remembering where they were going', () => {
    renderWithProviders(<Harness />, {
      route: '/private?x=1#top',
      ...signedOut(),
    });
    expect(where()).toBe('/login from=/private?x=1#top');
  });

  it('keep a returning user signed in when only the access cookie has expired', async () => {
    rememberSession(true);
    let refreshed = false;
    const api = stubApi({
      'GET /api/users/loginStatus': () => json(refreshed),
      'POST /api/users/refresh': () => {
        refreshed = true;
        return json({ token: 't', expiresAt: '2030-01-01T00:00:00Z' });
      },
      'GET /api/users/getUser': json(makeUser()),
    });
    renderApp({ route: '/my-account' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(api.sent.map((r) => `${r.method} ${r.path}`).filter((r) => r.includes('/users/')).slice(0, 3)).toEqual([
      'GET /api/users/loginStatus',
      'POST /api/users/refresh',
      'GET /api/users/loginStatus',
    ]);
  });

  it('ask a first-time visitor nothing more than whether they are signed in', async () => {
    const api = stubApi({ 'GET /api/users/loginStatus': json(false) });
    renderApp({ route: '/my-account' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeTruthy();
    expect(api.to('POST /api/users/refresh')).toHaveLength(0);
    expect(api.to('GET /api/users/loginStatus')).toHaveLength(1);
  });

  it('treat a returning visitor whose refresh is refused as signed out, and stop trying', async () => {
    rememberSession(true);
    const api = stubApi({
      'GET /api/users/loginStatus': json(false),
      'POST /api/users/refresh': json({ message: 'Please sign in again' }, 401),
    });
    renderApp({ route: '/my-account' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeTruthy();
    expect(api.to('POST /api/users/refresh')).toHaveLength(1);
    expect(api.to('GET /api/users/loginStatus')).toHaveLength(1);
    expect(mayHaveSession()).toBe(false);
  });

  it('remember a signed-in browser for its next visit', () => {
    renderWithProviders(<Harness />, { route: '/private', ...signedIn() });
    expect(mayHaveSession()).toBe(false);
    renderApp({ route: '/private', ...signedIn() });
    expect(mayHaveSession()).toBe(true);
  });

  it('let a signed-in user through to signed-in pages', () => {
    renderWithProviders(<Harness />, { route: '/private', ...signedIn() });
    expect(screen.getByText('private page')).toBeTruthy();
  });

  it('send a signed-in user away from the visitor-only pages', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser()) });
    for (const route of ['/login', '/register', '/forgot']) {
      const { unmount } = renderApp({ route, ...signedIn() });
      expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
      unmount();
    }
  });

  it('hide staff pages from subscribers and show them to authors and admins', () => {
    const { unmount } = renderWithProviders(<Harness />, { route: '/staff', ...signedIn(makeUser({ role: 'subscriber' })) });
    expect(screen.queryByText('staff page')).toBeNull();
    expect(where()).toContain('/my-account');
    unmount();

    for (const role of ['author', 'admin'] as const) {
      const view = renderWithProviders(<Harness />, { route: '/staff', ...signedIn(makeUser({ role })) });
      expect(screen.getByText('staff page')).toBeTruthy();
      view.unmount();
    }
  });

  it('show an error with a retry, not an endless spinner, when the user behind a staff page cannot be loaded', async () => {
    let calls = 0;
    stubApi({
      'GET /api/users/getUser': () =>
        ++calls === 1 ? json({ message: 'The user service is restarting' }, 503) : json(makeUser({ role: 'admin' })),
    });
    const user = userEvent.setup();
    renderWithProviders(<Harness />, { route: '/staff', preloadedState: signedIn().preloadedState });

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByRole('heading', { name: 'Your account could not be loaded' })).toBeTruthy();
    expect(within(alert).getByText('The user service is restarting')).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();

    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('staff page')).toBeTruthy();
  });

  it('forget the return page after an explicit logout', () => {
    renderWithProviders(<Harness />, {
      route: '/private',
      ...signedOut('logout'),
    });
    expect(where()).toBe('/login from=-');
  });

  it.each([
    ['register', null, '/upload-kyc'],
    ['login', { from: '/user-profile?tab=security' }, '/user-profile?tab=security'],
    ['login', null, '/my-account'],
    ['login', { from: '//evil.example/' }, '/my-account'],
    ['login', { from: 'https://evil.example/' }, '/my-account'],
  ])('after signing in via %s with state %j, go to %s', (via, state, expected) => {
    expect(destinationAfterSignIn(via, state)).toBe(expected);
  });
});

import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, stubApi } from '../../test/stubApi';

const meta = (googleSignIn: boolean) =>
  json({ product: 'Clearvest', version: 'test', environment: 'development', googleSignIn });

async function open(route: string, heading: string, googleSignIn: boolean, routes: Parameters<typeof stubApi>[0] = {}) {
  const api = stubApi({ 'GET /api/users/loginStatus': json(false), 'GET /api/meta': meta(googleSignIn), ...routes });
  renderApp({ route });
  await screen.findByRole('heading', { level: 1, name: heading });
  await waitFor(() => expect(api.to('GET /api/meta').length).toBeGreaterThan(0));
  return api;
}

describe('Continue with Google', () => {
  for (const [route, heading] of [
    ['/login', 'Sign In'],
    ['/register', 'Create an Account'],
  ] as const) {
    it(`is a plain link to the redirect flow on ${route} when the server offers it`, async () => {
      await open(route, heading, true);
      const link = await screen.findByRole('link', { name: 'Continue with Google' });
      expect(link.getAttribute('href')).toBe('/api/users/google/start');
    });

    it(`is absent on ${route} when Google sign-in is not configured`, async () => {
      await open(route, heading, false);
      // The footer's development link shows that the answer has arrived.
      await screen.findByRole('link', { name: 'Development mailbox' });
      expect(screen.queryByRole('link', { name: 'Continue with Google' })).toBeNull();
    });
  }

  it('says the sign-in failed on ?google=error', async () => {
    await open('/login?google=error', 'Sign In', true);
    expect(await screen.findByText('Google sign-in failed. Please try again.')).toBeTruthy();
  });

  it('asks for the password on ?google=link and links the account', async () => {
    const api = await open('/login?google=link', 'Sign In', true, {
      'POST /api/users/google/link': json({ ...makeUser(), token: 'jwt' }),
      'GET /api/users/getUser': json(makeUser()),
    });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Password or e-mailed code'), 'Secret-1');
    await user.click(screen.getByRole('button', { name: 'Link Google and sign in' }));
    await waitFor(() => expect(api.to('POST /api/users/google/link')).toHaveLength(1));
    expect(api.to('POST /api/users/google/link')[0]?.body).toEqual({ password: 'Secret-1' });
  });
  it('asks for the authenticator code when the password was right (202) and links with it', async () => {
    let calls = 0;
    const api = await open('/login?google=link', 'Sign In', true, {
      'POST /api/users/google/link': () =>
        ++calls === 1
          ? json({ status: 'totp', message: 'Enter the 6-digit code from your authenticator app.' }, 202)
          : json({ ...makeUser(), token: 'jwt' }),
      'GET /api/users/getUser': json(makeUser()),
    });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Password or e-mailed code'), 'Secret-1');
    await user.click(screen.getByRole('button', { name: 'Link Google and sign in' }));
    const code = await screen.findByLabelText('Authenticator code');
    // The step is not an error: nothing is said above the form.
    expect(screen.queryByRole('alert')).toBeNull();
    await user.type(code, '123456');
    await user.click(screen.getByRole('button', { name: 'Link Google and sign in' }));
    await waitFor(() => expect(api.to('POST /api/users/google/link')).toHaveLength(2));
    expect(api.to('POST /api/users/google/link')[1]?.body).toEqual({ password: 'Secret-1', totpCode: '123456' });
  });
});

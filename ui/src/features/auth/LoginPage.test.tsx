import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, stubApi } from '../../test/stubApi';

async function openLogin(routes: Parameters<typeof stubApi>[0] = {}, route = '/login') {
  const api = stubApi({ 'GET /api/users/loginStatus': json(false), ...routes });
  const user = userEvent.setup();
  const view = renderApp({ route });
  await screen.findByRole('heading', { level: 1, name: 'Sign In' });
  return { api, user, ...view };
}

const email = () => screen.getByLabelText('Email');
const password = () => screen.getByLabelText('Password');
const submit = () => screen.getByRole('button', { name: 'Sign In' });

describe('login page', () => {
  it('sets the title and links to forgot password and registration', async () => {
    await openLogin();
    await waitFor(() => expect(document.title).toBe('Sign In · Clearvest'));
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe('/forgot');
    expect(screen.getByRole('link', { name: 'Create an account' }).getAttribute('href')).toBe('/register');
  });

  it('says "All fields are required", marks the empty fields and focuses the first', async () => {
    const { user, api } = await openLogin();
    await user.type(password(), 'secret1');
    await user.click(submit());

    expect(await screen.findByText('All fields are required')).toBeTruthy();
    expect(email().getAttribute('aria-invalid')).toBe('true');
    expect(password().getAttribute('aria-invalid')).toBeNull();
    expect(document.activeElement).toBe(email());
    const messageId = email().getAttribute('aria-describedby')?.split(' ')[0];
    expect(document.getElementById(messageId ?? '')?.textContent).toContain('All fields are required');
    expect(api.to('POST /api/users/login')).toHaveLength(0);
  });

  it('says "Please enter a valid email"', async () => {
    const { user, api } = await openLogin();
    await user.type(email(), 'ada@example');
    await user.type(password(), 'secret1');
    await user.click(submit());

    expect(await screen.findByText('Please enter a valid email')).toBeTruthy();
    expect(document.activeElement).toBe(email());
    expect(api.to('POST /api/users/login')).toHaveLength(0);
  });

  it('signs in, says "Login Successful" and goes to the dashboard', async () => {
    const { user, api, store } = await openLogin({
      'POST /api/users/login': json({ ...makeUser(), token: 'jwt' }),
      'GET /api/users/getUser': json(makeUser()),
    });
    await user.type(email(), ' ada@example.com ');
    await user.type(password(), 'Secret-1');
    await user.click(submit());

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(screen.getByText('Login Successful')).toBeTruthy();
    expect(api.to('POST /api/users/login')[0]?.body).toEqual({ email: 'ada@example.com', password: 'Secret-1' });
    const cached = store.getState().api.queries['getUser({})']?.data as Record<string, unknown> | undefined;
    expect(cached).toMatchObject({ name: 'Ada Lovelace' });
    expect(cached).not.toHaveProperty('token');
  });

  it('returns to the page the user was sent away from', async () => {
    stubApi({
      'GET /api/users/loginStatus': json(false),
      'POST /api/users/login': json(makeUser()),
      'GET /api/users/getUser': json(makeUser()),
    });
    const user = userEvent.setup();
    const { router } = renderApp({ route: '/user-profile?tab=security' });
    await screen.findByRole('heading', { level: 1, name: 'Sign In' });
    // Typing starts once the way to /login has finished, as a person's would.
    await waitFor(() => expect(router.state.navigation.state).toBe('idle'));

    await user.type(email(), 'ada@example.com');
    await user.type(password(), 'Secret-1');
    await user.click(submit());

    expect(await screen.findByRole('tab', { name: 'Security', selected: true })).toBeTruthy();
  });

  it('shows the server message when sign-in is refused', async () => {
    const { user } = await openLogin({ 'POST /api/users/login': json({ message: 'Invalid email or password' }, 401) });
    await user.type(email(), 'ada@example.com');
    await user.type(password(), 'wrong-1');
    await user.click(submit());

    expect((await screen.findByRole('alert')).textContent).toContain('Invalid email or password');
  });

  it('turns to the login-code page on "New browser"', async () => {
    const { user, store } = await openLogin({
      'POST /api/users/login': json(
        { status: 'new_device', message: 'New browser or device detected. We sent a login code to your e-mail.', pendingLogin: 'p-1' },
        202,
      ),
    });
    await user.type(email(), 'ada@example.com');
    await user.type(password(), 'Secret-1');
    await user.click(submit());

    expect(await screen.findByRole('heading', { level: 1, name: 'Enter your login code' })).toBeTruthy();
    // The server's sentence, not the page's shorter fallback.
    expect(screen.getByRole('region', { name: 'Notifications' }).textContent).toContain('New browser or device detected.');
    expect(screen.getByText('ada@example.com')).toBeTruthy();
    expect(store.getState().auth.twoFactor).toBe(true);
    // The code was just sent, so resending waits.
    expect(screen.getByText(/You can ask for a new code in \d+ s\./)).toBeTruthy();
  });

  it('asks for the authenticator code on the same page when the server answers the totp step (202)', async () => {
    let attempts = 0;
    const { user, api, store } = await openLogin({
      'POST /api/users/login': () => {
        attempts += 1;
        if (attempts === 1) return json({ status: 'totp', message: 'Enter the 6-digit code from your authenticator app.' }, 202);
        if (attempts === 2) return json({ message: 'That authenticator code is not valid. Please try again.', code: 'totp_required' }, 401);
        return json(makeUser());
      },
      'GET /api/users/getUser': json(makeUser()),
    });
    await user.type(email(), 'ada@example.com');
    await user.type(password(), 'Secret-1');
    await user.click(submit());

    const totp = await screen.findByLabelText('Authenticator code');
    await waitFor(() => expect(document.activeElement).toBe(totp));
    // A step, not a sign-in, and nothing was e-mailed.
    expect(store.getState().auth.isLoggedIn).toBe(false);
    expect(store.getState().auth.twoFactor).toBe(false);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    expect(await screen.findByText('Please enter the code from your authenticator app')).toBeTruthy();

    // A wrong code is said on its field, which keeps the focus.
    await user.type(totp, '000000');
    await user.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    expect(await screen.findByText('That authenticator code is not valid. Please try again.')).toBeTruthy();
    expect(totp.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(totp));
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);

    await user.clear(totp);
    await user.type(totp, '123456');
    await user.click(screen.getByRole('button', { name: 'Verify and sign in' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(api.to('POST /api/users/login')[2]?.body).toEqual({ email: 'ada@example.com', password: 'Secret-1', totpCode: '123456' });
  });

  it('opens the Account Suspended dialog with a link to support', async () => {
    const { user } = await openLogin({
      // Not the page's own fallback wording, so the test shows that the server's words are used.
      'POST /api/users/login': json({ message: 'Your account has been suspended pending a review.', code: 'suspended' }, 403),
    });
    await user.type(email(), 'ada@example.com');
    await user.type(password(), 'Secret-1');
    await user.click(submit());

    const dialog = await screen.findByRole('alertdialog', { name: 'Account Suspended' });
    expect(within(dialog).getByText('Your account has been suspended pending a review.')).toBeTruthy();
    expect(within(dialog).getByRole('link', { name: 'Contact Support' }).getAttribute('href')).toBe('/support');

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});

import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const NEUTRAL = 'If an account exists for that e-mail, we sent a reset link.';

async function open(route: string, heading: string, routes: Parameters<typeof stubApi>[0] = {}) {
  const api = stubApi({ 'GET /api/users/loginStatus': json(false), ...routes });
  const user = userEvent.setup();
  const view = renderApp({ route });
  await screen.findByRole('heading', { level: 1, name: heading });
  return { api, user, ...view };
}

describe('forgot password page', () => {
  it('says "Please enter an email" when empty', async () => {
    const { user, api } = await open('/forgot', 'Forgot Password');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));

    expect(await screen.findByText('Please enter an email')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText('Email'));
    expect(api.to('POST /api/users/forgotPassword')).toHaveLength(0);
  });

  it('says "Please enter a valid email" when malformed', async () => {
    const { user } = await open('/forgot', 'Forgot Password');
    await user.type(screen.getByLabelText('Email'), 'ada@');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));

    expect(await screen.findByText('Please enter a valid email')).toBeTruthy();
  });

  it("shows the server's neutral answer", async () => {
    const { user, api } = await open('/forgot', 'Forgot Password', {
      'POST /api/users/forgotPassword': json({ message: NEUTRAL }),
    });
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));

    expect(await screen.findByText(NEUTRAL)).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Check your e-mail' })).toBeTruthy();
    expect(api.to('POST /api/users/forgotPassword')[0]?.body).toEqual({ email: 'ada@example.com' });
  });

  it('is for visitors only: a signed-in user goes to the dashboard', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser()) });
    renderApp({ route: '/forgot', ...signedIn() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
  });
});

describe('reset password page', () => {
  const route = '/resetPassword/tok-123';

  it.each([
    ['a field is empty', '', 'Secret-12', 'All fields are required', 'New password'],
    ['the password has 7 characters', 'Ab1!xyz', 'Ab1!xyz', 'Password must be at least 8 characters', 'New password'],
    ['the password has 129 characters', `Ab1!${'x'.repeat(125)}`, `Ab1!${'x'.repeat(125)}`, 'Password must be at most 128 characters', 'New password'],
    ['the passwords differ', 'Secret-12', 'Secret-13', 'Passwords do not match', 'Confirm new password'],
  ])('says so when %s', async (_case, password, confirm, message, focused) => {
    const { user, api } = await open(route, 'Reset Password');
    if (password) await user.type(screen.getByLabelText('New password'), password);
    if (confirm) await user.type(screen.getByLabelText('Confirm new password'), confirm);
    await user.click(screen.getByRole('button', { name: 'Reset password' }));

    expect(await screen.findByText(message)).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText(focused));
    expect(api.to('PATCH /api/users/resetPassword/tok-123')).toHaveLength(0);
  });

  it('goes to the login page when the server says "Reset Successful"', async () => {
    const { user, api } = await open(route, 'Reset Password', {
      'PATCH /api/users/resetPassword/tok-123': json({ message: 'Password Reset Successful, please login' }),
    });
    await user.type(screen.getByLabelText('New password'), 'Secret-12');
    await user.type(screen.getByLabelText('Confirm new password'), 'Secret-12');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeTruthy();
    expect(screen.getByText('Password Reset Successful, please login')).toBeTruthy();
    expect(api.to('PATCH /api/users/resetPassword/tok-123')[0]?.body).toEqual({ password: 'Secret-12', confirmPassword: 'Secret-12' });
  });

  it('shows the server message for an expired link and stays', async () => {
    const { user } = await open(route, 'Reset Password', {
      'PATCH /api/users/resetPassword/tok-123': json({ message: 'Invalid or expired reset link' }, 404),
    });
    await user.type(screen.getByLabelText('New password'), 'Secret-12');
    await user.type(screen.getByLabelText('Confirm new password'), 'Secret-12');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));

    expect((await screen.findByRole('alert')).textContent).toContain('Invalid or expired reset link');
    expect(screen.getByRole('heading', { level: 1, name: 'Reset Password' })).toBeTruthy();
  });
});

describe('login-code page', () => {
  const route = '/loginWithCode/ada%40example.com';
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ['', 'Please fill in the login code'],
    ['12345', 'Access code must be 6 characters'],
    ['1234567', 'Access code must be 6 characters'],
  ])('rejects %j with "%s"', async (code, message) => {
    const { user, api } = await open(route, 'Enter your login code');
    if (code) await user.type(screen.getByLabelText('Login code'), code);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByText(message)).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText('Login code'));
    expect(api.to('POST /api/users/loginWithCode/ada@example.com')).toHaveLength(0);
  });

  it('signs in with the code and goes to the dashboard', async () => {
    const { user, api, store } = await open(route, 'Enter your login code', {
      'POST /api/users/loginWithCode/ada@example.com': json(makeUser()),
      'GET /api/users/getUser': json(makeUser()),
    });
    await user.type(screen.getByLabelText('Login code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(screen.getByText('Login Successful')).toBeTruthy();
    expect(api.to('POST /api/users/loginWithCode/ada@example.com')[0]?.body).toEqual({ loginCode: '123456' });
    expect(store.getState().auth.twoFactor).toBe(false);
  });

  it('asks for the authenticator code after the e-mailed one when the server answers the totp step (202)', async () => {
    let attempts = 0;
    const { user, api, store } = await open(route, 'Enter your login code', {
      'POST /api/users/loginWithCode/ada@example.com': () =>
        ++attempts === 1 ? json({ status: 'totp', message: 'Enter the 6-digit code from your authenticator app.' }, 202) : json(makeUser()),
      'GET /api/users/getUser': json(makeUser()),
    });
    await user.type(screen.getByLabelText('Login code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    const totp = await screen.findByLabelText('Authenticator code');
    await waitFor(() => expect(document.activeElement).toBe(totp));
    expect(store.getState().auth.isLoggedIn).toBe(false);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);

    await user.type(totp, '654321');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(api.to('POST /api/users/loginWithCode/ada@example.com')[1]?.body).toEqual({ loginCode: '123456', totpCode: '654321' });
  });

  it('shows the server message for a wrong code', async () => {
    const { user } = await open(route, 'Enter your login code', {
      'POST /api/users/loginWithCode/ada@example.com': json({ message: 'Invalid or expired login code' }, 401),
    });
    await user.type(screen.getByLabelText('Login code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect((await screen.findByRole('alert')).textContent).toContain('Invalid or expired login code');
  });

  it.each([
    ['signing in', 'Sign in', 'POST /api/users/loginWithCode/ada@example.com'],
    ['asking for a new code', 'Resend code', 'POST /api/users/sendLoginCode/ada@example.com'],
  ])('goes back to sign in when the pending sign-in has expired (%s)', async (_, button, call) => {
    const expired = { message: 'This sign-in has expired. Please log in again.', code: 'login_expired' };
    const { user } = await open(route, 'Enter your login code', { [call]: json(expired, 401) });
    await user.type(screen.getByLabelText('Login code'), '123456');
    await user.click(screen.getByRole('button', { name: button }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeTruthy();
    expect(screen.getByText('This sign-in has expired. Please log in again.')).toBeTruthy();
  });

  it('resends the code, then counts down before allowing another', async () => {
    const { user, api } = await open(route, 'Enter your login code', {
      'POST /api/users/sendLoginCode/ada@example.com': json({ message: 'We sent a new login code.' }),
    });
    expect(screen.getByText('You can ask for a new code now.')).toBeTruthy();

    vi.useFakeTimers({ shouldAdvanceTime: true });
    await user.click(screen.getByRole('button', { name: 'Resend code' }));
    expect(await screen.findByText('We sent a new login code.')).toBeTruthy();
    expect(screen.getByText('You can ask for a new code in 60 s.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Resend code' }).getAttribute('aria-disabled')).toBe('true');

    await user.click(screen.getByRole('button', { name: 'Resend code' }));
    expect(api.to('POST /api/users/sendLoginCode/ada@example.com')).toHaveLength(1);
    // The pending sign-in goes as the browser's cookie, not in the body.
    expect(api.to('POST /api/users/sendLoginCode/ada@example.com')[0]?.body).toEqual({});

    // Second by second, as the countdown re-arms its timer after each render.
    for (let second = 0; second < 60; second++) {
      await act(async () => {
        await vi.advanceTimersByTimeAsync(1000);
      });
    }
    await waitFor(() => expect(screen.getByText('You can ask for a new code now.')).toBeTruthy());
  });
});

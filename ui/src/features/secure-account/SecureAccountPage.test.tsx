import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, stubApi } from '../../test/stubApi';

const secured = 'Your account is secured: every session has ended and we sent you a link to set a new password.';

describe('"Wasn\'t you?" page', () => {
  it('changes nothing on opening, secures the account once confirmed from the keyboard, and says what comes next', async () => {
    const api = stubApi({
      'GET /api/users/loginStatus': json(false),
      'POST /api/users/secure-account/tok-1': json({ message: secured }),
    });
    const user = userEvent.setup();
    renderApp({ route: '/secure-account/tok-1', strict: true });

    const button = await screen.findByRole('button', { name: 'Sign everyone out and secure my account' });
    expect(screen.getByRole('heading', { level: 1, name: 'Secure Your Account' })).toBeTruthy();
    // A link opened by a mail scanner must not lock the owner out.
    expect(api.to('POST /api/users/secure-account/tok-1')).toHaveLength(0);

    button.focus();
    await user.keyboard('{Enter}');
    expect((await screen.findByRole('status')).textContent).toContain(secured);
    expect(api.to('POST /api/users/secure-account/tok-1')).toHaveLength(1);
    expect(screen.getByRole('link', { name: 'Go to sign in' }).getAttribute('href')).toBe('/login');
  });

  it('explains a link that no longer works and offers a password reset', async () => {
    stubApi({
      'GET /api/users/loginStatus': json(false),
      'POST /api/users/secure-account/old': json({ message: 'This link is invalid or has expired.' }, 404),
    });
    const user = userEvent.setup();
    renderApp({ route: '/secure-account/old' });

    await user.click(await screen.findByRole('button', { name: 'Sign everyone out and secure my account' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This link is invalid or has expired.');
    expect(screen.getByRole('link', { name: 'reset your password' }).getAttribute('href')).toBe('/forgot');
    // It can be tried again.
    expect(screen.getByRole('button', { name: 'Sign everyone out and secure my account' })).toBeTruthy();
  });
});

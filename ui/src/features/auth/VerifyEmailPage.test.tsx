import { act, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

describe('e-mail verification page', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('verifies once (even under StrictMode), shows the result and moves on to the identity check after 3 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = stubApi({
      'PATCH /api/users/verifyUser/tok-1': json({ message: 'Email verified successfully' }),
      'GET /api/users/loginStatus': json(true),
      'GET /api/users/getUser': json(makeUser()),
    });
    renderApp({ route: '/verify/tok-1', strict: true, ...signedIn(makeUser({ isVerified: false })) });

    expect(await screen.findByText('Email verified successfully')).toBeTruthy();
    expect(api.to('PATCH /api/users/verifyUser/tok-1')).toHaveLength(1);
    expect(screen.getByRole('heading', { level: 1, name: 'Verify Your E-mail' })).toBeTruthy();

    await act(async () => {
      await vi.advanceTimersByTimeAsync(2900);
    });
    expect(screen.queryByRole('heading', { level: 1, name: 'Identity Check' })).toBeNull();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(200);
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Identity Check' })).toBeTruthy();
  });

  it('explains a bad link and how to get a new one', async () => {
    stubApi({
      'PATCH /api/users/verifyUser/old': json({ message: 'Invalid or expired verification link' }, 404),
      'GET /api/users/loginStatus': json(false),
    });
    renderApp({ route: '/verify/old' });

    expect((await screen.findByRole('alert')).textContent).toContain('Invalid or expired verification link');
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login');
  });
});

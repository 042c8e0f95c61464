import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { AppRoutes } from '../../app/AppRoutes';
import { renderWithProviders } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

describe('dashboard', () => {
  it('greets the user, shows the unverified and KYC prompts and their money from the user object', async () => {
    const user = makeUser({ isVerified: false, balance: '1234567.5', investmentBalance: '0.00' });
    const api = stubApi({
      'GET /api/users/getUser': json(user),
      'POST /api/users/sendVerificationEmail': json({ message: 'Verification email sent' }),
    });
    const u = userEvent.setup();
    renderWithProviders(<AppRoutes />, { route: '/my-account', preloadedState: signedIn(user) });

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(screen.getByText('$1,234,567.50')).toBeTruthy();
    expect(screen.getAllByText('$0.00')).toHaveLength(2);
    expect(screen.queryByText('Fees paid')).toBeNull();
    expect(screen.getByText(/KYC Not Submitted/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Upload your documents' }).getAttribute('href')).toBe('/upload-kyc');

    await u.click(screen.getByRole('button', { name: 'Resend verification e-mail' }));
    expect(await screen.findByText('Verification email sent')).toBeTruthy();
    expect(api.to('POST /api/users/sendVerificationEmail')).toHaveLength(1);
  });

  it('shows an unreadable amount as not available, never as $0.00, and rounds extra digits half-even', async () => {
    const user = makeUser({ balance: 'garbage', investmentBalance: '10.125', totalMaturityAmount: '0.00' });
    stubApi({ 'GET /api/users/getUser': json(user) });
    renderWithProviders(<AppRoutes />, { route: '/my-account', preloadedState: signedIn(user) });

    const available = (await screen.findByText('Available balance')).nextElementSibling as HTMLElement;
    expect(available.textContent).toBe('—Not available');
    expect(within(available).getByTitle('Amount not available')).toBeTruthy();
    expect((screen.getByText('Invested').nextElementSibling as HTMLElement).textContent).toBe('$10.12');
    expect(screen.getAllByText('$0.00')).toHaveLength(1);
  });

  it('shows staff shortcuts to authors and admins only', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser({ role: 'author' })) });
    renderWithProviders(<AppRoutes />, { route: '/my-account', preloadedState: signedIn(makeUser({ role: 'author' })) });
    const staff = await screen.findByRole('heading', { name: 'Staff' });
    expect(staff).toBeTruthy();
    expect(screen.getByRole('link', { name: 'KYC Approval' }).getAttribute('href')).toBe('/pending-kyc');
  });

  it('offers a retry when the account cannot be loaded', async () => {
    stubApi({ 'GET /api/users/getUser': json({ message: 'Failed to load user data' }, 500) });
    renderWithProviders(<AppRoutes />, {
      route: '/my-account',
      preloadedState: { auth: { ...signedIn().auth!, user: null } },
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Failed to load user data')).toBeTruthy();
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

describe('navbar when signed in', () => {
  it('shows Dashboard, Send Email for staff, Profile and Logout, and logs out', async () => {
    let session = true;
    stubApi({
      'GET /api/users/loginStatus': () => json(session),
      'GET /api/users/getUser': json(makeUser({ role: 'admin' })),
      'GET /api/users/logout': () => {
        session = false;
        return json({ message: 'Successfully logged out' });
      },
    });
    const u = userEvent.setup();
    const { store } = renderWithProviders(<AppRoutes />, { route: '/', preloadedState: signedIn(makeUser({ role: 'admin' })) });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getAllByRole('link').map((a) => a.textContent)).toEqual([
      'Clearvest',
      'Dashboard',
      'Portfolio Plans',
      'About Us',
      'Help Center',
      'How It Works',
      'Current Rates',
      'Send Email',
      'Profile',
    ]);

    await u.click(within(nav).getByRole('button', { name: 'Logout' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeTruthy();
    expect(screen.getByText('Successfully logged out')).toBeTruthy();
    expect(store.getState().auth).toMatchObject({ isLoggedIn: false, user: null, endedBy: 'logout' });
    expect(within(nav).getByRole('link', { name: 'Sign In' })).toBeTruthy();
  });

  it('hides Send Email from subscribers', () => {
    renderWithProviders(<AppRoutes />, { route: '/', preloadedState: signedIn() });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).queryByRole('link', { name: 'Send Email' })).toBeNull();
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

describe('dashboard', () => {
  it('asks the server to pay out due investments with a POST when it opens, and reads the figures again when something was paid out', async () => {
    let answer: (r: Response) => void = () => undefined;
    const settled = new Promise<Response>((resolve) => (answer = resolve));
    const api = stubApi({
      'GET /api/users/getUser': () => json(makeUser({ balance: '103.00' })),
      'POST /api/invest/deposit-maturity': () => settled,
    });
    renderApp({ route: '/my-account', ...signedIn(makeUser({ balance: '0.00' })) });

    await waitFor(() => expect(api.to('POST /api/invest/deposit-maturity')).toHaveLength(1));
    const readsBefore = api.to('GET /api/users/getUser').length;
    answer(json({ settled: [{ _id: 'inv-1', status: 'Ended' }] }));
    await waitFor(() => expect(api.to('GET /api/users/getUser').length).toBeGreaterThan(readsBefore));
    expect(await screen.findByText('$103.00')).toBeTruthy();
    expect(api.to('GET /api/invest/deposit-maturity')).toHaveLength(0);
  });

  it('greets the user, shows the unverified and KYC prompts and their money from the user object', async () => {
    const user = makeUser({ isVerified: false, balance: '1234567.5', investmentBalance: '0.00' });
    const api = stubApi({
      'GET /api/users/getUser': json(user),
      'POST /api/users/sendVerificationEmail': json({ message: 'Verification email sent' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/my-account', ...signedIn(user) });

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
    renderApp({ route: '/my-account', ...signedIn(user) });

    const available = (await screen.findByText('Available balance')).nextElementSibling as HTMLElement;
    expect(available.textContent).toBe('—Not available');
    expect(within(available).getByTitle('Amount not available')).toBeTruthy();
    expect((screen.getByText('Invested').nextElementSibling as HTMLElement).textContent).toBe('$10.12');
    expect(screen.getAllByText('$0.00')).toHaveLength(1);
  });

  it('shows staff shortcuts to authors and admins only', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser({ role: 'author' })) });
    renderApp({ route: '/my-account', ...signedIn(makeUser({ role: 'author' })) });
    const staff = await screen.findByRole('heading', { name: 'Staff' });
    expect(staff).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Identity Check Queue' }).getAttribute('href')).toBe('/pending-kyc');
  });

  it("shows the server's message and a retry when the account cannot be loaded, and loads it on retry", async () => {
    // The account stays unavailable until the user asks again: any refetch of the app's own
    // (a session check, live refresh) meets the same failure, so the test does not race them.
    let available = false;
    stubApi({
      'GET /api/users/getUser': () =>
        available ? json(makeUser()) : json({ message: 'Account data is being moved; back in a minute' }, 503),
    });
    const u = userEvent.setup();
    renderApp({ route: '/my-account', preloadedState: signedIn().preloadedState });

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByRole('heading', { name: 'Your account could not be loaded' })).toBeTruthy();
    expect(within(alert).getByText('Account data is being moved; back in a minute')).toBeTruthy();
    expect(await screen.findByRole('heading', { level: 1, name: 'My Account' })).toBeTruthy();

    available = true;
    await u.click(within(await screen.findByRole('alert')).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
  });

  it('falls back to its own words when the server sends no message', async () => {
    stubApi({ 'GET /api/users/getUser': () => new Response('upstream timeout', { status: 504 }) });
    renderApp({ route: '/my-account', preloadedState: signedIn().preloadedState });

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Please try again.')).toBeTruthy();
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
    const { store } = renderApp({ route: '/', ...signedIn(makeUser({ role: 'admin' })) });
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
    expect(store.getState().auth).toMatchObject({ isLoggedIn: false, endedBy: 'logout' });
    expect(within(nav).getByRole('link', { name: 'Sign In' })).toBeTruthy();
  });

  it('hides Send Email from subscribers', () => {
    renderApp({ route: '/', ...signedIn() });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).queryByRole('link', { name: 'Send Email' })).toBeNull();
  });
});

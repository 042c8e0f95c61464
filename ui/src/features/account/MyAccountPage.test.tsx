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
    expect(screen.getByText(/Identity check: no documents yet/)).toBeTruthy();
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

  it('puts the balances first, then the money actions, then what is waiting, then the charts', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser({ balance: '5.00' })) });
    renderApp({ route: '/my-account', ...signedIn(makeUser({ balance: '5.00' })) });
    await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' });
    const order = ['Your money', 'Move money', 'Waiting for a decision', 'Over time'].map((name) => screen.getByRole('region', { name }));
    for (let i = 1; i < order.length; i++) {
      expect(order[i - 1]!.compareDocumentPosition(order[i]!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    }
    const figures = within(order[0]!).getAllByRole('term').map((dt) => dt.textContent);
    expect(figures).toEqual(['Available balance', 'Invested', 'Returns earned']);
    const actions = within(order[1]!).getAllByRole('listitem').map((li) => li.textContent);
    expect(actions.map((text) => text?.split(/(?=[A-Z])/)[0])).toEqual(['Deposit', 'Invest', 'Withdraw']);
    // The identity-check notice stands with what is waiting.
    expect(within(order[2]!).getByTestId('kyc-notice')).toBeTruthy();
    // The testimonial form has a page of its own.
    expect(screen.queryByLabelText('Your experience with Clearvest')).toBeNull();
    expect(screen.getByRole('link', { name: 'Write a testimonial' }).getAttribute('href')).toBe('/share-your-experience');
  });

  it('shows staff their money without the investor prompts', async () => {
    const author = makeUser({ role: 'author', kycStatus: 'Not Submitted' });
    stubApi({
      'GET /api/users/getUser': json(author),
      'GET /api/invest/eligibility': json({ message: 'Please upload your identity documents before investing.' }, 403),
    });
    renderApp({ route: '/my-account', ...signedIn(author) });
    await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' });
    expect(screen.getByRole('region', { name: 'Your money' })).toBeTruthy();
    expect(screen.queryByTestId('kyc-notice')).toBeNull();
    expect(screen.queryByTestId('invest-gate')).toBeNull();
    expect(screen.queryByText(/Locked/)).toBeNull();
    expect(screen.queryByText(/upload your identity documents/i)).toBeNull();
    expect(screen.queryByRole('link', { name: 'Write a testimonial' })).toBeNull();
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

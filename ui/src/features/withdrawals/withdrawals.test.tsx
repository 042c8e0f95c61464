import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Withdrawal } from '../../api/enhanced';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const investor = makeUser({ _id: 'u1', name: 'Ivy Investor', balance: '1000.00' });
const staff = makeUser({ _id: 'staff-1', role: 'author', name: 'Sam Staff' });
const tron = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const schedule = '1% + $1.00 (at most $25.00)';

const pending: Withdrawal = {
  _id: '6f1c2a52-3b7e-4d21-9a55-0c1f2e3d4b5a',
  reference: 'WDR-0123ABCD',
  amount: '100.00',
  fee: '2.00',
  receives: '98.00',
  feeWaived: '0.00',
  walletAddress: tron,
  network: 'TRC20',
  asset: 'USDT',
  status: 'Pending',
  requestDate: '2026-11-23T10:00:00Z',
  txHash: '',
  onChainAmount: '',
  usdRate: '',
  reason: '',
};
const staffView: Withdrawal = { ...pending, user: { _id: 'u1', name: 'Ivy Investor', email: 'ivy@example.com' }, availableBalance: '900.00' };

// The quote as the server answers it: an address check, the minimum, or the fee on $100.
const quoteOf = async (request: Request) => {
  const q = (await request.json()) as { amount?: string; network: string; walletAddress?: string };
  const address = q.walletAddress;
  if (address && address !== tron) return json({ message: 'Please enter a valid TRON address', field: 'walletAddress' }, 400);
  if (q.amount === '5') return json({ message: 'The minimum withdrawal is $10.00', field: 'amount' }, 422);
  return json({
    minimum: '10.00',
    schedule,
    ...(address ? { walletAddress: address } : {}),
    ...(q.amount ? { amount: '100.00', fee: '2.00', receives: '98.00' } : {}),
  });
};

describe('withdraw page', () => {
  it('shows the fee schedule and the minimum as a rule before Continue, refuses too much on the field, and shows fee and amount received before confirming', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': async (request: Request) => {
        const q = (await request.clone().json()) as { amount?: string };
        if (q.amount === '5000') return json({ message: 'Insufficient balance: $1,000.00 is available', field: 'amount' }, 422);
        return quoteOf(request);
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    const fees = await screen.findByTestId('withdraw-fee-schedule');
    expect(within(fees).getByTestId('withdraw-fee-rule').textContent).toBe(schedule);
    expect(within(fees).getByTestId('withdraw-minimum-rule').textContent).toBe('The minimum withdrawal is $10.00.');
    // Before Continue in the page's order.
    const cont = screen.getByRole('button', { name: 'Continue' });
    expect(fees.compareDocumentPosition(cont) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    const amount = screen.getByLabelText('Amount in US dollars');
    await u.type(amount, '5000');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(cont);
    await waitFor(() => expect(document.activeElement).toBe(amount));
    expect(amount.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(amount.getAttribute('aria-describedby')!.split(' ')[0]!)?.textContent).toBe('Insufficient balance: $1,000.00 is available');
    expect(screen.queryByRole('alert')).toBeNull();

    await u.clear(amount);
    await u.type(amount, '100');
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByTestId('withdraw-fee')).textContent).toBe('$2.00');
    expect(screen.getByTestId('withdraw-receives').textContent).toBe('$98.00');
    const minimum = screen.getByTestId('withdraw-minimum').textContent ?? '';
    expect(minimum).toContain('Minimum withdrawal $10.00');
    expect(minimum).toContain('A rule, not a charge');
  });

  it('checks the address on blur, shows the fee from the quote, sends one key per confirmation and goes to the dashboard', async () => {
    const keys: (string | null)[] = [];
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': quoteOf,
      'POST /api/withDraw/create': (request: Request) => {
        keys.push(request.headers.get('Idempotency-Key'));
        return json(pending);
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Withdraw' })).toBeTruthy();
    expect((await screen.findByTestId('withdraw-available')).textContent).toContain('$1,000.00');

    const address = screen.getByLabelText('Your wallet address');
    await u.type(address, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u');
    await u.tab();
    expect(await screen.findByText('Please enter a valid TRON address')).toBeTruthy();
    expect(address.getAttribute('aria-invalid')).toBe('true');
    await u.clear(address);
    await u.type(address, tron);
    await u.tab();
    await waitFor(() => expect(screen.queryByText('Please enter a valid TRON address')).toBeNull());

    await u.type(screen.getByLabelText('Amount in US dollars'), '5');
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findAllByText('The minimum withdrawal is $10.00')).length).toBeGreaterThan(0);
    await u.clear(screen.getByLabelText('Amount in US dollars'));
    await u.type(screen.getByLabelText('Amount in US dollars'), '100');
    await u.click(screen.getByRole('button', { name: 'Continue' }));

    const summary = await screen.findByTestId('withdraw-summary');
    expect(summary.textContent).toBe('You will receive $98.00 after a $2.00 fee.');
    expect(screen.getByText(schedule)).toBeTruthy();
    await u.click(screen.getByRole('button', { name: 'Confirm withdrawal' }));

    expect(await screen.findByText('Withdrawal requested. We will e-mail you when it is paid.')).toBeTruthy();
    expect(api.to('POST /api/withDraw/create')[0]!.body).toEqual({ amount: '100', network: 'TRC20', walletAddress: tron, fee: '2.00' });
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(screen.getByRole('link', { name: 'Go now' }).getAttribute('href')).toBe('/my-account');
    expect(screen.getByText(/Going to your dashboard in \d s/)).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'Withdraw' })).toBeNull(), { timeout: 5000 });
  });

  it('shows the server’s refusal, or the fallback without one, and stays on the confirmation with the same key', async () => {
    const keys: (string | null)[] = [];
    stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': quoteOf,
      'POST /api/withDraw/create': (request: Request) => {
        keys.push(request.headers.get('Idempotency-Key'));
        return keys.length === 1 ? json({ message: 'Insufficient balance: $50.00 is available', field: 'amount' }, 422) : new Response('', { status: 500 });
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    await u.click(await screen.findByRole('button', { name: 'Confirm withdrawal' }));
    expect(await screen.findByText('Insufficient balance: $50.00 is available')).toBeTruthy();
    await u.click(screen.getByRole('button', { name: 'Confirm withdrawal' }));
    expect(await screen.findByText('Error requesting withdrawal')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Confirm withdrawal' })).toBeTruthy();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('asks the person to confirm it’s them when the server wants a step-up, then sends the same request again', async () => {
    const keys: (string | null)[] = [];
    let confirmed = false;
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': quoteOf,
      'POST /api/users/step-up': async (request: Request) => {
        const body = (await request.json()) as { password?: string };
        if (body.password !== 'right-password') return json({ message: 'That password is not correct. Please try again.', field: 'password' }, 400);
        confirmed = true;
        return json({ message: "Thanks, that's confirmed.", expiresAt: '2026-11-28T14:05:00Z' });
      },
      'POST /api/withDraw/create': (request: Request) => {
        keys.push(request.headers.get('Idempotency-Key'));
        return confirmed ? json(pending) : json({ message: "Please confirm it's you to continue.", code: 'step_up_required' }, 403);
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    await u.click(await screen.findByRole('button', { name: 'Confirm withdrawal' }));

    // The dialog is labelled, and focus is in its field: the account has no authenticator app,
    // so it asks for the password.
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    const field = within(dialog).getByLabelText('Password');
    await waitFor(() => expect(document.activeElement).toBe(field));
    await u.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(within(dialog).getByText('Please enter your password.')).toBeTruthy();
    expect(api.to('POST /api/users/step-up')).toHaveLength(0);
    await u.type(field, 'wrong-password');
    await u.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await within(dialog).findByText('That password is not correct. Please try again.')).toBeTruthy();
    await u.clear(field);
    await u.type(field, 'right-password');
    await u.click(within(dialog).getByRole('button', { name: 'Confirm' }));

    expect(await screen.findByText('Withdrawal requested. We will e-mail you when it is paid.')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(api.to('POST /api/users/step-up').map((r) => r.body)).toEqual([{ password: 'wrong-password' }, { password: 'right-password' }]);
  });

  it('asks first when the session is not confirmed, so the request is sent once and never refused', async () => {
    let confirmed = false;
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': quoteOf,
      'GET /api/users/step-up': () => json({ confirmed }),
      'POST /api/users/step-up': () => {
        confirmed = true;
        return json({ message: "Thanks, that's confirmed.", expiresAt: '2026-11-28T14:05:00Z' });
      },
      'POST /api/withDraw/create': () => (confirmed ? json(pending) : json({ message: "Please confirm it's you to continue.", code: 'step_up_required' }, 403)),
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    await u.click(await screen.findByRole('button', { name: 'Confirm withdrawal' }));

    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    expect(api.to('POST /api/withDraw/create')).toHaveLength(0);
    await u.type(within(dialog).getByLabelText('Password'), 'right-password');
    await u.click(within(dialog).getByRole('button', { name: 'Confirm' }));

    expect(await screen.findByText('Withdrawal requested. We will e-mail you when it is paid.')).toBeTruthy();
    expect(api.to('POST /api/withDraw/create')).toHaveLength(1);
  });

  it('asks for the authenticator code on an account with two-step verification, and Escape declines', async () => {
    const withApp = makeUser({ _id: 'u1', balance: '1000.00', twoFactorEnabled: true });
    const api = stubApi({
      'GET /api/users/getUser': json(withApp),
      'POST /api/withDraw/quote': quoteOf,
      'POST /api/withDraw/create': json({ message: "Please confirm it's you to continue.", code: 'step_up_required' }, 403),
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(withApp) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    await u.click(await screen.findByRole('button', { name: 'Confirm withdrawal' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByLabelText('Authenticator code')).toBeTruthy();
    expect(within(dialog).queryByLabelText('Password')).toBeNull();
    dialog.dispatchEvent(new Event('cancel'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    // Declined: the refusal is shown, nothing is sent again.
    expect(await screen.findByText("Please confirm it's you to continue.")).toBeTruthy();
    expect(api.to('POST /api/withDraw/create')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Confirm withdrawal' })).toBeTruthy();
  });

  it('shows the cool-down after a security change in place of the form', async () => {
    const message = 'For your safety, withdrawals are paused until 29 Nov 2026, 14:05 UTC because your password was changed.';
    stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': quoteOf,
      'POST /api/withDraw/create': json({ message, code: 'withdrawal_cooldown', until: '2026-11-29T14:05:00Z' }, 403),
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    await u.click(await screen.findByRole('button', { name: 'Confirm withdrawal' }));
    const blocked = await screen.findByTestId('withdraw-blocked');
    expect(blocked.getAttribute('role')).toBe('alert');
    expect(blocked.textContent).toContain(message);
    expect(within(blocked).getByRole('link', { name: 'contact support' }).getAttribute('href')).toBe('/support');
    expect(screen.queryByRole('button', { name: 'Confirm withdrawal' })).toBeNull();
  });

  it('links to the identity check when it is not approved', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': quoteOf,
      'POST /api/withDraw/create': json({ message: 'Please complete your identity check before withdrawing.', code: 'identity_check_required' }, 403),
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    await u.click(await screen.findByRole('button', { name: 'Confirm withdrawal' }));
    const blocked = await screen.findByTestId('withdraw-blocked');
    expect(blocked.textContent).toContain('Please complete your identity check before withdrawing.');
    expect(within(blocked).getByRole('link', { name: 'Go to the identity check' }).getAttribute('href')).toBe('/upload-kyc');
  });

  it('shows the new fee when the schedule changed, and sends it once the investor confirms again', async () => {
    const keys: (string | null)[] = [];
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'POST /api/withDraw/quote': quoteOf,
      'POST /api/withDraw/create': (request: Request) => {
        keys.push(request.headers.get('Idempotency-Key'));
        return keys.length === 1
          ? json(
              {
                message: 'The withdrawal fee is now $3.00, so you would receive $97.00. Please review the new figures and confirm again.',
                code: 'fee_changed',
                withdrawalQuote: { amount: '100.00', fee: '3.00', receives: '97.00', minimum: '10.00', schedule: '2% + $1.00, minimum $10.00', walletAddress: tron },
              },
              409,
            )
          : json({ ...pending, fee: '3.00', receives: '97.00' });
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdraw-wallet', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText('Your wallet address'), tron);
    await u.click(screen.getByRole('button', { name: 'Continue' }));
    await u.click(await screen.findByRole('button', { name: 'Confirm withdrawal' }));
    const notice = await screen.findByTestId('withdraw-quote-changed');
    expect(notice.textContent).toBe('The withdrawal fee is now $3.00, so you would receive $97.00. Please review the new figures and confirm again.');
    expect(screen.getByTestId('withdraw-summary').textContent).toBe('You will receive $97.00 after a $3.00 fee.');
    expect(screen.getByText('2% + $1.00, minimum $10.00')).toBeTruthy();
    await u.click(screen.getByRole('button', { name: 'Confirm withdrawal' }));
    expect(await screen.findByText('Withdrawal requested. We will e-mail you when it is paid.')).toBeTruthy();
    expect(api.to('POST /api/withDraw/create').map((r) => (r.body as { fee: string }).fee)).toEqual(['2.00', '3.00']);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('asks for a verified e-mail first', async () => {
    const unverified = makeUser({ _id: 'u2', isVerified: false });
    stubApi({ 'GET /api/users/getUser': json(unverified) });
    renderApp({ route: '/withdraw-wallet', ...signedIn(unverified) });
    expect(await screen.findByTestId('withdraw-unverified')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Continue' })).toBeNull();
  });
});

describe('staff withdrawal queue and decision', () => {
  it('lists pending withdrawals oldest first with their age and links to the details', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/withDraw/pending': json({ asOf: '2026-11-23T10:12:00Z', total: 1, withdrawals: [{ withdrawal: staffView, ageSeconds: 720 }] }),
    });
    renderApp({ route: '/admin-pending-wallet', ...signedIn(staff) });
    const items = await screen.findAllByTestId('withdrawal-queue-item');
    expect(items).toHaveLength(1);
    expect(within(items[0]!).getByRole('link').getAttribute('href')).toBe(`/withdrawal/${pending._id}`);
    expect(within(items[0]!).getByText('waiting 12 min')).toBeTruthy();
    expect(items[0]!.textContent).toContain('ivy@example.com');
    expect(items[0]!.textContent).toContain('$98.00');
  });

  it('reads the queue a page at a time, shows the total and loads more on request', async () => {
    const item = (n: number) => ({ withdrawal: { ...staffView, _id: `w-${n}` }, ageSeconds: 60 });
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/withDraw/pending': (request: Request) =>
        new URL(request.url).searchParams.get('cursor')
          ? json({ asOf: '2026-11-23T10:12:00Z', total: 3, withdrawals: [item(3)] })
          : json({ asOf: '2026-11-23T10:12:00Z', total: 3, withdrawals: [item(1), item(2)], nextCursor: 'page-2' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/admin-pending-wallet', ...signedIn(staff) });
    expect(await screen.findAllByTestId('withdrawal-queue-item')).toHaveLength(2);
    expect(screen.getByTestId('withdrawal-queue-total').textContent).toBe('3 withdrawals are waiting.');
    await u.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('withdrawal-queue-item')).toHaveLength(3));
    expect(api.sent.some((r) => r.path.includes('cursor=page-2') && r.path.includes('limit=50'))).toBe(true);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('says so when the queue cannot be fetched', async () => {
    stubApi({ 'GET /api/users/getUser': json(staff), 'GET /api/withDraw/pending': new Response('', { status: 500 }) });
    renderApp({ route: '/admin-pending-wallet', ...signedIn(staff) });
    expect(await screen.findByText('Failed to fetch pending withdrawals.')).toBeTruthy();
  });

  it('approves with the payout hash, then shows the new status without buttons', async () => {
    let approved = false;
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      [`GET /api/withDraw/get-withdrawal/${pending._id}`]: () => json(approved ? { ...staffView, status: 'Approved', txHash: '0xpaid' } : staffView),
      [`PUT /api/withDraw/approve/${pending._id}`]: () => {
        approved = true;
        return json({ message: 'Withdrawal approved!' });
      },
    });
    const u = userEvent.setup();
    renderApp({ route: `/withdrawal/${pending._id}`, ...signedIn(staff) });
    const details = await screen.findByTestId('withdrawal-details');
    expect(details.textContent).toContain('Ivy Investor (ivy@example.com)');
    expect(details.textContent).toContain('$900.00');
    expect(screen.getByTestId('withdrawal-receives').textContent).toBe('$98.00');
    expect(screen.getByTestId('withdrawal-address').textContent).toBe(tron);
    expect(screen.getByRole('button', { name: 'Copy address' })).toBeTruthy();

    await u.click(screen.getByRole('button', { name: 'Approve withdrawal' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve withdrawal' });
    await u.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(within(dialog).getByText('Please enter the payout transaction hash')).toBeTruthy();
    await u.type(within(dialog).getByLabelText('Payout transaction hash'), '0xpaid');
    await u.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('Withdrawal approved!')).toBeTruthy();
    expect(api.to(`PUT /api/withDraw/approve/${pending._id}`)[0]!.body).toEqual({ txHash: '0xpaid' });
    await waitFor(() => expect(screen.getByTestId('withdrawal-status').textContent).toBe('Approved'));
    expect(screen.queryByRole('button', { name: 'Approve withdrawal' })).toBeNull();
  });

  it('shows the payout as the chain watcher saw it next to its transaction: confirmations, final, failed', async () => {
    const paid = { ...staffView, status: 'Approved' as const, txHash: '0xpaid' };
    let seen: Withdrawal['payoutOnChain'] = { status: 'confirming', height: 500, confirmations: 1, seenAt: '2026-11-23T11:00:00Z' };
    stubApi({
      'GET /api/users/getUser': json(staff),
      [`GET /api/withDraw/get-withdrawal/${pending._id}`]: () => json({ ...paid, payoutOnChain: seen }),
    });
    const view = renderApp({ route: `/withdrawal/${pending._id}`, ...signedIn(staff) });
    expect((await screen.findByTestId('payout-on-chain')).textContent).toBe('Seen on the network · 1 confirmation');
    view.unmount();
    seen = { status: 'failed', height: 500, confirmations: 12, seenAt: '2026-11-23T12:00:00Z' };
    renderApp({ route: `/withdrawal/${pending._id}`, ...signedIn(staff) });
    const badge = await screen.findByTestId('payout-on-chain');
    expect(badge.textContent).toBe('Failed on the network: nothing was sent');
    expect(badge.className).toContain('badge--danger');
  });

  it('shows no chain badge before the payout is seen', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      [`GET /api/withDraw/get-withdrawal/${pending._id}`]: json({ ...staffView, status: 'Approved', txHash: '0xpaid' }),
    });
    renderApp({ route: `/withdrawal/${pending._id}`, ...signedIn(staff) });
    expect((await screen.findByTestId('withdrawal-details')).textContent).toContain('0xpaid');
    expect(screen.queryByTestId('payout-on-chain')).toBeNull();
  });

  it('rejects with a reason and shows a conflict from another reviewer, or the fallback', async () => {
    let tries = 0;
    stubApi({
      'GET /api/users/getUser': json(staff),
      [`GET /api/withDraw/get-withdrawal/${pending._id}`]: json(staffView),
      [`PUT /api/withDraw/reject/${pending._id}`]: () =>
        ++tries === 1 ? json({ message: 'This withdrawal was already decided' }, 409) : new Response('', { status: 500 }),
      [`PUT /api/withDraw/approve/${pending._id}`]: new Response('', { status: 500 }),
    });
    const u = userEvent.setup();
    renderApp({ route: `/withdrawal/${pending._id}`, ...signedIn(staff) });
    await u.click(await screen.findByRole('button', { name: 'Reject withdrawal' }));
    let dialog = await screen.findByRole('dialog', { name: 'Reject withdrawal' });
    await u.type(within(dialog).getByLabelText(/Reason/), 'Address unclear');
    await u.click(within(dialog).getByRole('button', { name: 'Reject' }));
    expect(await screen.findByText('This withdrawal was already decided')).toBeTruthy();
    await u.click(await within(dialog).findByRole('button', { name: 'Reject' }));
    expect(await screen.findByText('Failed to reject withdrawal.')).toBeTruthy();
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    await u.click(screen.getByRole('button', { name: 'Approve withdrawal' }));
    dialog = await screen.findByRole('dialog', { name: 'Approve withdrawal' });
    await u.type(within(dialog).getByLabelText('Payout transaction hash'), '0x1');
    await u.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('Failed to approve withdrawal.')).toBeTruthy();
  });

  it('shows an investor their own withdrawal read-only', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      [`GET /api/withDraw/get-withdrawal/${pending._id}`]: json({ ...pending, status: 'Rejected', reason: 'Address unclear' }),
    });
    renderApp({ route: `/withdrawal/${pending._id}`, ...signedIn(investor) });
    expect((await screen.findByTestId('withdrawal-status')).textContent).toBe('Rejected');
    expect(screen.getByText('Address unclear')).toBeTruthy();
    // Its reference, as in the history; never its id.
    expect(screen.getByTestId('withdrawal-reference').textContent).toBe('WDR-0123ABCD');
    expect(document.body.textContent).not.toContain(pending._id);
    expect(screen.queryByRole('button', { name: /Approve|Reject/ })).toBeNull();
  });

  it('says so when a withdrawal cannot be fetched', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), [`GET /api/withDraw/get-withdrawal/${pending._id}`]: json({ message: 'Withdrawal not found' }, 404) });
    renderApp({ route: `/withdrawal/${pending._id}`, ...signedIn(investor) });
    expect(await screen.findByText('Failed to fetch withdrawal details.')).toBeTruthy();
    expect(screen.getByText('Withdrawal not found')).toBeTruthy();
  });
});

import { act, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it, vi } from 'vitest';
import type { Deposit } from '../../api/enhanced';
import { pendingDeposit } from '../../test/fixtures';
import { renderApp, renderWithProviders } from '../../test/renderWithProviders';
import { DepositDetails } from './DepositDetails';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';
import { useWaitedFor } from '../../components/PagedQueue';
import { chooseLanguage } from '../../i18n';

const investor = makeUser({ _id: 'u1', name: 'Ivy Investor' });
const staff = makeUser({ _id: 'staff-1', role: 'author', name: 'Sam Staff' });

const addresses = {
  minimum: '10.00',
  addresses: [
    { asset: 'USDT', network: 'TRC20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', confirmations: 20, usualMinutes: 2, own: false },
    { asset: 'BTC', network: 'BTC', address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', confirmations: 2, usualMinutes: 30, own: false },
  ],
};

// The market-data cache with a BTC rate fetched two minutes ago.
const btcMarket = () => ({
  symbol: 'BTCUSDT',
  interval: '1d',
  status: 'live',
  asOf: new Date(Date.now() - 2 * 60_000).toISOString(),
  source: 'Test',
  referenceRate: false,
  candles: [{ time: '2026-11-27', open: '90000', high: '92000', low: '89000', close: '91890.42' }],
});

const pending: Deposit = pendingDeposit;

describe('waiting time', () => {
  it('reads the server’s seconds, in the reader’s language', async () => {
    const { result } = renderHook(() => useWaitedFor());
    expect(result.current(20)).toBe('waiting less than a minute');
    expect(result.current(5 * 60)).toBe('waiting 5 min');
    expect(result.current(3 * 3600 + 12 * 60)).toBe('waiting 3 h 12 min');
    expect(result.current(3 * 86400 + 2 * 3600)).toBe('waiting 3 d 2 h');
    await act(() => chooseLanguage('de'));
    expect(result.current(3 * 3600 + 12 * 60)).toBe('wartet seit 3 Std. 12 Min.');
    await act(() => chooseLanguage('en'));
  });
});

describe('deposit page', () => {
  it('shows an investor their own address on a watched network, with nothing to declare', async () => {
    const own = {
      minimum: '10.00',
      addresses: [
        { asset: 'BTC', network: 'BTC', address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', confirmations: 2, usualMinutes: 30, own: true },
        { asset: 'USDT', network: 'TRC20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', confirmations: 20, usualMinutes: 2, own: false },
      ],
    };
    const api = stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/payments/addresses': json(own) });
    const u = userEvent.setup();
    renderApp({ route: '/deposit-payment', ...signedIn(investor) });
    const panel = await screen.findByTestId('own-deposit-address');
    expect(within(panel).getByRole('heading', { name: 'Your personal address for BTC on Bitcoin' })).toBeTruthy();
    expect(within(panel).getByTestId('address-text').textContent).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(within(panel).getByRole('img', { name: /QR code/ })).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Copy address' })).toBeTruthy();
    expect(within(panel).getByText(/Credited after 2 confirmations/)).toBeTruthy();
    expect(screen.getByText(/credited automatically once the network confirms it/)).toBeTruthy();
    // Nothing to declare: no amount, no hash, no button that records a deposit.
    expect(screen.queryByLabelText('Amount in US dollars')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Confirm deposit' })).toBeNull();
    expect((await axe.run(panel)).violations).toEqual([]);
    // The shared TRON address keeps the declared path.
    await u.selectOptions(screen.getByLabelText('Asset and network'), 'USDT/TRC20');
    expect(await screen.findByRole('button', { name: 'Confirm deposit' })).toBeTruthy();
    expect(screen.queryByTestId('own-deposit-address')).toBeNull();
    expect(api.to('POST /api/payments/create')).toHaveLength(0);
  });

  it('shows the address with a QR code, sends the deposit and counts down to the dashboard', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/payments/addresses': json(addresses),
      'POST /api/payments/create': json(pending),
    });
    const u = userEvent.setup();
    renderApp({ route: '/deposit-payment', ...signedIn(investor) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Fund Wallet' })).toBeTruthy();
    const address = await screen.findByTestId('deposit-address');
    expect(within(address).getByText('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBeTruthy();
    expect(within(address).getByRole('img', { name: /QR code/ })).toBeTruthy();
    expect(within(address).getByRole('button', { name: 'Copy address' })).toBeTruthy();
    // USDT needs no on-chain amount; BTC does.
    expect(screen.queryByLabelText(/Amount of USDT/)).toBeNull();
    await u.selectOptions(screen.getByLabelText('Asset and network'), 'BTC/BTC');
    expect(screen.getByLabelText('Amount of BTC you sent')).toBeTruthy();
    await u.selectOptions(screen.getByLabelText('Asset and network'), 'USDT/TRC20');

    await u.type(screen.getByLabelText('Amount in US dollars'), '100');
    await u.type(screen.getByLabelText(/Transaction hash/), '0xabc');
    await u.click(screen.getByRole('button', { name: 'Confirm deposit' }));

    expect(await screen.findByTestId('transaction-id')).toHaveProperty('textContent', 'DEP-7K3Q-9XM2');
    expect(screen.getByTestId('deposit-status').textContent).toBe('Pending');
    expect(api.to('POST /api/payments/create')[0]!.body).toEqual({ amount: '100', asset: 'USDT', network: 'TRC20', txHash: '0xabc' });
    expect(screen.getByRole('link', { name: 'Go now' }).getAttribute('href')).toBe('/my-account');
    expect(screen.getByText(/Going to your dashboard in \d s/)).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'Fund Wallet' })).toBeNull(), { timeout: 5000 });
  });

  it('states the minimum, the confirmations and the usual time of the chosen network', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/payments/addresses': json(addresses) });
    const u = userEvent.setup();
    renderApp({ route: '/deposit-payment', ...signedIn(investor) });
    const facts = await screen.findByTestId('deposit-facts');
    expect(within(facts).getByTestId('deposit-minimum').textContent).toBe('$10.00');
    expect(facts.textContent).toContain('20 confirmations on TRON (TRC-20)');
    expect(facts.textContent).toContain('about 2 minutes');
    await u.selectOptions(screen.getByLabelText('Asset and network'), 'BTC/BTC');
    expect(screen.getByTestId('deposit-facts').textContent).toContain('2 confirmations on Bitcoin');
    expect(screen.getByTestId('deposit-facts').textContent).toContain('about 30 minutes');
  });

  it('with a market rate, asks one amount and works out the other exactly, with the rate and its age', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/payments/addresses': json(addresses),
      'GET /api/market/candles': () => json(btcMarket()),
      'POST /api/payments/create': json(pending),
    });
    const u = userEvent.setup();
    renderApp({ route: '/deposit-payment', ...signedIn(investor) });
    await u.selectOptions(await screen.findByLabelText('Asset and network'), 'BTC/BTC');
    expect((await screen.findByTestId('deposit-rate')).textContent).toBe('1 BTC = $91,890.42 · 2 minutes ago');
    // One amount: no second field.
    expect(screen.queryByLabelText('Amount of BTC you sent')).toBeNull();
    await u.type(screen.getByLabelText('Amount in US dollars'), '100');
    expect(screen.getByTestId('deposit-conversion').textContent).toContain('That is 0.00108825 BTC');

    await u.click(screen.getByRole('radio', { name: 'BTC' }));
    const coin = screen.getByLabelText('Amount of BTC you sent') as HTMLInputElement;
    expect(coin.value).toBe('0.00108825');
    await u.clear(coin);
    await u.type(coin, '0.00108827');
    expect(screen.getByTestId('deposit-conversion').textContent).toContain('That is $100.00');
    await u.click(screen.getByRole('button', { name: 'Confirm deposit' }));
    await waitFor(() => expect(api.to('POST /api/payments/create')).toHaveLength(1));
    expect(api.to('POST /api/payments/create')[0]!.body).toEqual({ amount: '100.00', asset: 'BTC', network: 'BTC', onChainAmount: '0.00108827' });
  });

  it('without a market rate, asks both amounts', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/payments/addresses': json(addresses),
      'GET /api/market/candles': () => json({ ...btcMarket(), status: 'unavailable', asOf: undefined, candles: [] }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/deposit-payment', ...signedIn(investor) });
    await u.selectOptions(await screen.findByLabelText('Asset and network'), 'BTC/BTC');
    expect(screen.getByLabelText('Amount in US dollars')).toBeTruthy();
    expect(screen.getByLabelText('Amount of BTC you sent')).toBeTruthy();
    expect(screen.queryByTestId('deposit-rate')).toBeNull();
  });

  it('puts a refusal of the amount on the field and moves focus there', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/payments/addresses': json(addresses),
      'POST /api/payments/create': json({ message: 'The minimum deposit is $10.00.', field: 'amount' }, 422),
    });
    const u = userEvent.setup();
    renderApp({ route: '/deposit-payment', ...signedIn(investor) });
    const amount = await screen.findByLabelText('Amount in US dollars');
    await u.type(amount, '5');
    await u.click(screen.getByRole('button', { name: 'Confirm deposit' }));
    await waitFor(() => expect(document.activeElement).toBe(amount));
    expect(amount.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(amount.getAttribute('aria-describedby') ?? '')?.textContent).toBe('The minimum deposit is $10.00.');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('asks for a verified e-mail first', async () => {
    const unverified = makeUser({ _id: 'u2', isVerified: false });
    stubApi({ 'GET /api/users/getUser': json(unverified), 'GET /api/payments/addresses': json(addresses) });
    renderApp({ route: '/deposit-payment', ...signedIn(unverified) });
    const notice = await screen.findByTestId('deposit-unverified');
    expect(within(notice).getByText('Please verify your email address before making a deposit.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Confirm deposit' })).toBeNull();
  });

  it('shows the server’s refusal as it is and stays on the form', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/payments/addresses': json(addresses),
      'POST /api/payments/create': json({ message: 'This transaction hash has already been used.', field: 'txHash' }, 409),
    });
    const u = userEvent.setup();
    renderApp({ route: '/deposit-payment', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '100');
    await u.click(screen.getByRole('button', { name: 'Confirm deposit' }));
    expect(await screen.findByText('This transaction hash has already been used.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Confirm deposit' })).toBeTruthy();
  });
});

describe('staff deposit queue and decision', () => {
  it('lists pending deposits oldest first with their age and links to the details', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/pending-deposit': json({
        asOf: '2026-11-23T10:12:00Z',
        total: 1,
        deposits: [{ deposit: { ...pending, user: { _id: 'u1', name: 'Ivy Investor', email: 'ivy@example.com' } }, ageSeconds: 720 }],
      }),
    });
    renderApp({ route: '/admin-pending-deposit', ...signedIn(staff) });
    const items = await screen.findAllByTestId('deposit-queue-item');
    expect(items).toHaveLength(1);
    expect(screen.getByTestId('deposit-queue-total').textContent).toBe('1 deposit is waiting.');
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(within(items[0]!).getByRole('link', { name: 'DEP-7K3Q-9XM2' }).getAttribute('href')).toBe('/transaction/DEP-7K3Q-9XM2');
    expect(within(items[0]!).getByText('waiting 12 min')).toBeTruthy();
    expect(items[0]!.textContent).toContain('ivy@example.com');
    expect(items[0]!.textContent).toContain('$100.00');
  });

  it('drops a deposit another staff member decided, live, when the staff stream names the queue', async () => {
    // A stand-in for the browser's EventSource: the test sends the server's events through it.
    class FakeEventSource {
      static last: FakeEventSource | null = null;
      url: string;
      listeners: Record<string, ((event: MessageEvent<string>) => void)[]> = {};
      constructor(url: string) {
        this.url = url;
        if (url === '/api/staff/events') FakeEventSource.last = this;
      }
      addEventListener(name: string, listener: (event: MessageEvent<string>) => void) {
        (this.listeners[name] ??= []).push(listener);
      }
      emit(name: string, data: string) {
        for (const l of this.listeners[name] ?? []) l(new MessageEvent(name, { data }));
      }
      close() {}
    }
    vi.stubGlobal('EventSource', FakeEventSource);
    let decided = false;
    const positions: (string | null)[] = [];
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/staff/queue-counts': json({ deposits: 1 }),
      'GET /api/payments/pending-deposit': (request: Request) => {
        positions.push(request.headers.get('X-Clearvest-Position'));
        return json({ asOf: '2026-11-23T10:12:00Z', total: decided ? 0 : 1, deposits: decided ? [] : [{ deposit: pending, ageSeconds: 60 }] });
      },
    });
    renderApp({ route: '/admin-pending-deposit', ...signedIn(staff) });
    expect(await screen.findAllByTestId('deposit-queue-item')).toHaveLength(1);
    await waitFor(() => expect(FakeEventSource.last).not.toBeNull());

    decided = true;
    act(() => FakeEventSource.last!.emit('changed', JSON.stringify({ position: '4242', queues: ['deposits'] })));
    expect(await screen.findByText('No deposits are waiting.')).toBeTruthy();
    expect(positions.at(-1)).toBe('4242');
    vi.unstubAllGlobals();
  });

  it('reads the queue a page at a time, shows the total and loads more on request', async () => {
    const item = (n: number) => ({ deposit: { ...pending, transactionId: `DEP-0000-${String(n).padStart(4, '0')}` }, ageSeconds: 60 });
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/pending-deposit': (request: Request) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        if (!cursor) return json({ asOf: '2026-11-23T10:12:00Z', total: 3, deposits: [item(1), item(2)], nextCursor: 'page-2' });
        return json({ asOf: '2026-11-23T10:12:00Z', total: 3, deposits: [item(3)] });
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/admin-pending-deposit', ...signedIn(staff) });
    expect(await screen.findAllByTestId('deposit-queue-item')).toHaveLength(2);
    expect(screen.getByTestId('deposit-queue-total').textContent).toBe('3 deposits are waiting.');
    expect(api.sent.some((r) => r.path.includes('limit=50'))).toBe(true);

    await u.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('deposit-queue-item')).toHaveLength(3));
    expect(api.sent.some((r) => r.path.includes('cursor=page-2'))).toBe(true);
    expect(screen.getByRole('list', { name: 'More deposits waiting, page 2' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('says when a further page could not be loaded and keeps the first', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/pending-deposit': (request: Request) =>
        new URL(request.url).searchParams.get('cursor')
          ? json({ message: 'This page of the queue cannot be found. Please reload the queue from the start.' }, 400)
          : json({ asOf: '2026-11-23T10:12:00Z', total: 51, deposits: [{ deposit: pending, ageSeconds: 60 }], nextCursor: 'next' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/admin-pending-deposit', ...signedIn(staff) });
    await screen.findAllByTestId('deposit-queue-item');
    await u.click(screen.getByRole('button', { name: 'Load more' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('More deposits could not be loaded');
    expect(alert.textContent).toContain('This page of the queue cannot be found. Please reload the queue from the start.');
    expect(screen.getAllByTestId('deposit-queue-item')).toHaveLength(1);
  });

  it('shows an empty queue in words', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/pending-deposit': json({ asOf: '2026-11-23T10:12:00Z', total: 0, deposits: [] }),
    });
    renderApp({ route: '/admin-pending-deposit', ...signedIn(staff) });
    expect(await screen.findByText('No deposits are waiting.')).toBeTruthy();
  });

  it('confirms with the amount received and notes, and shows a 409 as the server words it', async () => {
    let confirmed = false;
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/viewPaymentStatus/DEP-7K3Q-9XM2': () =>
        json(confirmed ? { ...pending, status: 'Confirmed', received: '99.50', notes: 'Fee deducted' } : pending),
      'PATCH /api/payments/confirmPayment': () => {
        if (confirmed) return json({ message: 'This deposit was already decided' }, 409);
        confirmed = true;
        return json({ message: 'Deposit confirmed successfully' });
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction/DEP-7K3Q-9XM2', ...signedIn(staff) });
    const received = await screen.findByLabelText('Amount received (USD)');
    await u.clear(received);
    await u.type(received, '99.50');
    await u.type(screen.getByLabelText(/Notes/), 'Fee deducted');
    await u.click(screen.getByRole('button', { name: 'Confirm payment' }));
    expect(await screen.findByText('Payment successfully confirmed!')).toBeTruthy();
    expect(api.to('PATCH /api/payments/confirmPayment')[0]!.body).toEqual({ transactionId: 'DEP-7K3Q-9XM2', amount: '99.50', notes: 'Fee deducted' });
    await waitFor(() => expect(screen.getByTestId('deposit-status').textContent).toBe('Confirmed'));
    expect(screen.queryByRole('button', { name: 'Confirm payment' })).toBeNull();
  });

  it('shows a conflict from another reviewer verbatim', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/viewPaymentStatus/DEP-7K3Q-9XM2': json(pending),
      'PATCH /api/payments/rejectPayment': json({ message: 'This deposit was already decided' }, 409),
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction/DEP-7K3Q-9XM2', ...signedIn(staff) });
    await u.click(await screen.findByRole('button', { name: 'Reject payment' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject this deposit' });
    await u.type(within(dialog).getByLabelText(/Reason/), 'Nothing arrived');
    await u.click(within(dialog).getByRole('button', { name: 'Reject deposit' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('This deposit was already decided');
  });

  it('asks for the reason before rejecting, sends it, and shows the investor the reason', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/viewPaymentStatus/DEP-7K3Q-9XM2': json(pending),
      'PATCH /api/payments/rejectPayment': json({ message: 'Payment rejected' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction/DEP-7K3Q-9XM2', ...signedIn(staff) });
    await u.click(await screen.findByRole('button', { name: 'Reject payment' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reject this deposit' });
    await u.click(within(dialog).getByRole('button', { name: 'Reject deposit' }));
    const reason = within(dialog).getByLabelText(/Reason/);
    expect(reason.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(reason);
    expect(within(dialog).getByText('Please give the reason for rejecting this deposit')).toBeTruthy();
    expect(api.to('PATCH /api/payments/rejectPayment')).toHaveLength(0);

    await u.type(reason, 'Nothing arrived');
    await u.click(within(dialog).getByRole('button', { name: 'Reject deposit' }));
    await waitFor(() => expect(api.to('PATCH /api/payments/rejectPayment')).toHaveLength(1));
    expect(api.to('PATCH /api/payments/rejectPayment')[0]!.body).toEqual({ transactionId: 'DEP-7K3Q-9XM2', notes: 'Nothing arrived' });
    // The dialog sits inside the confirm form: its submits never confirm the deposit.
    expect(api.to('PATCH /api/payments/confirmPayment')).toHaveLength(0);
  });

  it('shows the investor why their deposit was rejected', () => {
    renderWithProviders(<DepositDetails deposit={{ ...pending, status: 'Rejected', notes: 'Nothing arrived' }} />);
    expect(screen.getByText('Reason')).toBeTruthy();
    expect(screen.getByTestId('deposit-notes').textContent).toBe('Nothing arrived');
  });

  it('is for staff only', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor) });
    renderApp({ route: '/admin-pending-deposit', ...signedIn(investor) });
    expect(await screen.findByRole('heading', { level: 1 })).toBeTruthy();
    expect(screen.queryByRole('heading', { level: 1, name: 'Pending Deposits' })).toBeNull();
  });
});

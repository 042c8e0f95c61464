import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Dashboard, Deposit } from '../../api/enhanced';
import { chooseLanguage } from '../../i18n';
import { pendingDeposit } from '../../test/fixtures';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';
import { CHAIN_POLL_MS } from '../../components/ChainProgress';

const investor = makeUser({ _id: 'u1', name: 'Ivy Investor' });
const staff = makeUser({ _id: 'staff-1', role: 'admin', name: 'Sam Staff' });

const declared: Deposit = pendingDeposit;

const onChain = (confirmations: number): Deposit => ({
  ...declared,
  transactionId: 'DEP-CHN2-AAAA',
  reference: 'DEP-CHN2-AAAA',
  asset: 'BTC',
  network: 'BTC',
  source: 'chain',
  confirmations,
  confirmationsNeeded: 3,
});

const credited: Deposit = { ...onChain(3), status: 'Confirmed', received: '250.00', confirmations: undefined, confirmationsNeeded: undefined };

const withUser = (d: Deposit): Deposit => ({ ...d, user: { _id: 'u1', name: 'Ivy Investor', email: 'ivy@example.com' } });

afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  await chooseLanguage('en');
});

// The live stream, open and quiet: the dashboard's own refreshes are the only requests.
class SilentEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  readyState = 1;
  addEventListener() {}
  close() {}
}

// Polling runs on timers: the test moves them on by one interval at a time.
const nextPoll = () => act(() => vi.advanceTimersByTimeAsync(CHAIN_POLL_MS));

describe('a deposit the network confirms', () => {
  it('shows the investor its confirmations, updates them without a reload and stops asking once credited', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const replies = [onChain(1), onChain(2), credited];
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/payments/viewPaymentStatus/DEP-CHN2-AAAA': () => json(replies.length > 1 ? replies.shift() : replies[0]),
    });
    renderApp({ route: '/transaction/DEP-CHN2-AAAA', ...signedIn(investor) });
    const progress = await screen.findByTestId('chain-progress');
    expect(progress.textContent).toBe('Seen on the network · 1 of 3 confirmations');
    expect(screen.getByText(/your balance is credited automatically/)).toBeTruthy();
    await nextPoll();
    await waitFor(() => expect(screen.getByTestId('chain-progress').textContent).toBe('Seen on the network · 2 of 3 confirmations'));
    await nextPoll();
    await waitFor(() => expect(screen.getByTestId('deposit-status').textContent).toBe('Confirmed'));
    expect(screen.queryByTestId('chain-progress')).toBeNull();
    const asked = api.to('GET /api/payments/viewPaymentStatus/DEP-CHN2-AAAA').length;
    await nextPoll();
    await nextPoll();
    expect(api.to('GET /api/payments/viewPaymentStatus/DEP-CHN2-AAAA').length).toBe(asked);
  });

  it('reads in German', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/payments/viewPaymentStatus/DEP-CHN2-AAAA': json(onChain(1)),
    });
    await chooseLanguage('de');
    renderApp({ route: '/transaction/DEP-CHN2-AAAA', ...signedIn(investor) });
    expect((await screen.findByTestId('chain-progress')).textContent).toBe('Im Netzwerk gesehen · 1 von 3 Bestätigungen');
  });

  it('gives staff no confirm or reject buttons, and says why', async () => {
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/viewPaymentStatus/DEP-CHN2-AAAA': json(withUser(onChain(1))),
      'GET /api/proposals': json({ pending: [], recent: [] }),
    });
    renderApp({ route: '/transaction/DEP-CHN2-AAAA', ...signedIn(staff) });
    expect((await screen.findByTestId('chain-progress')).textContent).toBe('Detected on chain · 1 of 3 confirmations');
    expect(screen.getByTestId('deposit-chain-notice').textContent).toContain('cannot be confirmed or rejected by hand');
    expect(screen.queryByRole('button', { name: 'Confirm payment' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Reject payment' })).toBeNull();
  });

  it('shows detected transfers in the staff queue beside declared deposits, following their confirmations', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.stubGlobal('EventSource', SilentEventSource);
    const queue = (confirmations: number) =>
      json({
        asOf: '2026-11-23T10:12:00Z',
        total: 2,
        deposits: [
          { deposit: withUser(declared), ageSeconds: 720 },
          { deposit: withUser(onChain(confirmations)), ageSeconds: 60 },
        ],
      });
    const replies = [2, 3];
    stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/payments/pending-deposit': () => queue(replies.length > 1 ? replies.shift()! : replies[0]!),
    });
    renderApp({ route: '/admin-pending-deposit', ...signedIn(staff) });
    const items = await screen.findAllByTestId('deposit-queue-item');
    expect(items).toHaveLength(2);
    expect(within(items[0]!).queryByTestId('chain-progress')).toBeNull();
    expect(within(items[1]!).getByTestId('chain-progress').textContent).toBe('Detected on chain · 2 of 3 confirmations');
    await nextPoll();
    await waitFor(() =>
      expect(within(screen.getAllByTestId('deposit-queue-item')[1]!).getByTestId('chain-progress').textContent).toBe('Detected on chain · 3 of 3 confirmations'),
    );
  });
});

describe('the dashboard', () => {
  const item = (confirmations?: number): Dashboard['pending'][number] => ({
    _id: 'e9',
    type: 'Transaction',
    status: 'Pending',
    title: 'Deposit requested',
    effect: '0.00',
    amount: '250.00',
    fee: '0.00',
    balanceAfter: '0.00',
    date: '2026-11-23T10:00:00Z',
    reference: 'DEP-CHN2-AAAA',
    details: {},
    ...(confirmations === undefined ? {} : { confirmations, confirmationsNeeded: 3 }),
  });
  const board = (pending: Dashboard['pending']): Dashboard => ({ balance: [], returnsByMonth: [], pending });

  it('follows a pending chain deposit while the network confirms it, then stops', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.stubGlobal('EventSource', SilentEventSource);
    const replies = [board([item(1)]), board([item(2)]), board([])];
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/dashboard': () => json(replies.length > 1 ? replies.shift() : replies[0]),
    });
    renderApp({ route: '/my-account', ...signedIn(investor) });
    const panel = await screen.findByTestId('pending-panel');
    expect((await within(panel).findByTestId('chain-progress')).textContent).toBe('Seen on the network · 1 of 3 confirmations');
    await nextPoll();
    await waitFor(() => expect(within(panel).getByTestId('chain-progress').textContent).toBe('Seen on the network · 2 of 3 confirmations'));
    await nextPoll();
    await waitFor(() => expect(within(panel).queryByTestId('chain-progress')).toBeNull());
    const asked = api.to('GET /api/invest/dashboard').length;
    await nextPoll();
    await nextPoll();
    expect(api.to('GET /api/invest/dashboard').length).toBe(asked);
  });

  it('does not poll when nothing is on its way', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.stubGlobal('EventSource', SilentEventSource);
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/dashboard': json(board([item()])),
    });
    renderApp({ route: '/my-account', ...signedIn(investor) });
    await screen.findByText('DEP-CHN2-AAAA');
    const asked = api.to('GET /api/invest/dashboard').length;
    await nextPoll();
    await nextPoll();
    expect(api.to('GET /api/invest/dashboard').length).toBe(asked);
    expect(screen.queryByTestId('chain-progress')).toBeNull();
  });
});

import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Dashboard } from '../../api/enhanced';
import { formatDate, formatMonth } from '../../components/format';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const investor = makeUser({ _id: 'u1', name: 'Ivy Investor', balance: '99.50' });

const dashboard: Dashboard = {
  balance: [
    { date: '2026-11-20', balance: '99.50' },
    { date: '2026-11-23', balance: '199.50' },
  ],
  returnsByMonth: [{ month: '2026-10', returns: '2.50' }],
  pending: [
    {
      _id: 'e9',
      type: 'Transaction',
      status: 'Pending',
      title: 'Deposit requested',
      effect: '0.00',
      amount: '20.00',
      fee: '0.00',
      balanceAfter: '199.50',
      date: '2026-11-23T10:00:00Z',
      reference: 'DEP-AAAA-BBBB',
      details: {},
    },
  ],
};

// A stand-in for the browser's EventSource: tests send the server's events through it.
class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static last: FakeEventSource | null = null;
  static opened = 0;
  readyState = FakeEventSource.OPEN;
  url: string;
  listeners: Record<string, ((event: MessageEvent<string>) => void)[]> = {};
  closed = false;
  constructor(url: string) {
    this.url = url;
    FakeEventSource.last = this;
    FakeEventSource.opened++;
  }
  addEventListener(name: string, listener: (event: MessageEvent<string>) => void) {
    (this.listeners[name] ??= []).push(listener);
  }
  emit(name: string, data = '{}') {
    for (const l of this.listeners[name] ?? []) l(new MessageEvent(name, { data }));
  }
  close() {
    this.closed = true;
    this.readyState = FakeEventSource.CLOSED;
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('dashboard charts and pending requests', () => {
  it('lists pending requests with links, and gives a chart its figures as a table and a summary', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/invest/dashboard': json(dashboard) });
    vi.stubGlobal('EventSource', FakeEventSource);
    renderApp({ route: '/my-account', ...signedIn(investor) });

    const pending = await screen.findByTestId('pending-panel');
    expect(await within(pending).findByText('Deposit')).toBeTruthy();
    expect(within(pending).getByText('$20.00')).toBeTruthy();
    expect(within(pending).getByText('Pending', { selector: '.badge' })).toBeTruthy();
    expect(within(pending).getByRole('link', { name: 'DEP-AAAA-BBBB' }).getAttribute('href')).toBe('/transaction-History');

    const balance = screen.getByRole('table', { name: /Available balance at the end of each day/ });
    expect(within(balance).getAllByRole('row')).toHaveLength(3);
    expect(within(balance).getByText('$199.50')).toBeTruthy();
    // Dates are written as everywhere else on the page, not as the server's ISO days.
    expect(within(balance).getByText(formatDate('2026-11-23'))).toBeTruthy();
    expect(within(balance).queryByText('2026-11-23')).toBeNull();
    const balanceFigure = screen.getByRole('figure', { name: 'Available balance over time' });
    expect(balanceFigure.dataset.shape).toBe('chart');
    expect(within(balanceFigure).getByText(`From $99.50 on ${formatDate('2026-11-20')} to $199.50 on ${formatDate('2026-11-23')}.`)).toBeTruthy();
  });

  it('shows a single data point as a figure with its date, not as a chart', async () => {
    const one: Dashboard = { ...dashboard, balance: [{ date: '2026-11-20', balance: '99.50' }] };
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/invest/dashboard': json(one) });
    vi.stubGlobal('EventSource', FakeEventSource);
    renderApp({ route: '/my-account', ...signedIn(investor) });

    const balance = await screen.findByRole('figure', { name: 'Available balance over time' });
    expect(balance.dataset.shape).toBe('single');
    expect(within(balance).getByTestId('balance-single').textContent).toBe(`$99.50Available balance on ${formatDate('2026-11-20')}`);
    const returns = screen.getByRole('figure', { name: 'Returns by month' });
    expect(returns.dataset.shape).toBe('single');
    expect(within(returns).getByTestId('returns-single').textContent).toBe(`$2.50Returns paid in ${formatMonth('2026-10')}`);
    // No drawing and no table of one row: the figure says it all.
    expect(screen.queryByTestId('balance-chart')).toBeNull();
    expect(screen.queryByTestId('returns-chart')).toBeNull();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('draws the returns from two months up, with their table and a summary in words', async () => {
    const two: Dashboard = {
      ...dashboard,
      returnsByMonth: [
        { month: '2026-10', returns: '2.50' },
        { month: '2026-11', returns: '3.00' },
      ],
    };
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/invest/dashboard': json(two) });
    vi.stubGlobal('EventSource', FakeEventSource);
    renderApp({ route: '/my-account', ...signedIn(investor) });

    const figure = await screen.findByRole('figure', { name: 'Returns by month' });
    expect(figure.dataset.shape).toBe('chart');
    const returns = within(figure).getByRole('table', { name: 'Returns paid by month' });
    expect(within(returns).getByText(formatMonth('2026-10'))).toBeTruthy();
    expect(within(returns).getByText('$3.00')).toBeTruthy();
    expect(within(figure).getByText(`Returns paid in 2 months, from ${formatMonth('2026-10')} to ${formatMonth('2026-11')}.`)).toBeTruthy();
  });

  it('says what will show before there is anything to chart', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/dashboard': json({ balance: [], returnsByMonth: [], pending: [] }),
    });
    vi.stubGlobal('EventSource', FakeEventSource);
    renderApp({ route: '/my-account', ...signedIn(investor) });
    expect(await screen.findByText('Nothing is waiting for a decision.')).toBeTruthy();
    expect(screen.getByText('Your balance will show here after your first deposit.')).toBeTruthy();
    expect(screen.getByText('Returns show here once an investment matures.')).toBeTruthy();
  });

  it('refetches the figures and charts when the server says the money changed, waiting for that position', async () => {
    let balance = '99.50';
    const positions: (string | null)[] = [];
    const api = stubApi({
      'GET /api/users/getUser': (request: Request) => {
        positions.push(request.headers.get('X-Clearvest-Position'));
        return json({ ...investor, balance });
      },
      'GET /api/invest/dashboard': json(dashboard),
    });
    vi.stubGlobal('EventSource', FakeEventSource);
    renderApp({ route: '/my-account', ...signedIn(investor) });
    expect(await screen.findByText('$99.50')).toBeTruthy();
    await screen.findByTestId('pending-panel');
    const stream = FakeEventSource.last!;
    expect(stream.url).toBe('/api/users/events');
    const dashboards = api.to('GET /api/invest/dashboard').length;

    balance = '199.50';
    act(() => stream.emit('ready'));
    act(() => stream.emit('changed', '{"position":"4711"}'));
    await waitFor(() => expect(screen.getAllByText('$199.50').length).toBeGreaterThan(0));
    expect(positions.at(-1)).toBe('4711');
    expect(api.to('GET /api/invest/dashboard').length).toBeGreaterThan(dashboards);
  });

  it('polls every 15 seconds while the event stream is down', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/invest/dashboard': json(dashboard) });
    vi.stubGlobal('EventSource', FakeEventSource);
    renderApp({ route: '/my-account', ...signedIn(investor) });
    await screen.findByTestId('pending-panel');
    const before = api.to('GET /api/invest/dashboard').length;
    act(() => FakeEventSource.last!.emit('error'));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(15_000);
    });
    await waitFor(() => expect(api.to('GET /api/invest/dashboard').length).toBeGreaterThan(before));
    // Back on the stream, polling stops.
    act(() => FakeEventSource.last!.emit('ready'));
    const after = api.to('GET /api/invest/dashboard').length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(45_000);
    });
    expect(api.to('GET /api/invest/dashboard').length).toBeLessThanOrEqual(after + 1);
  });

  it('opens the stream again on the next poll when the browser gave up on it', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/invest/dashboard': json(dashboard) });
    vi.stubGlobal('EventSource', FakeEventSource);
    renderApp({ route: '/my-account', ...signedIn(investor) });
    await screen.findByTestId('pending-panel');
    const refused = FakeEventSource.last!;
    const opened = FakeEventSource.opened;
    act(() => {
      refused.readyState = FakeEventSource.CLOSED; // e.g. a 401 after the access cookie expired
      refused.emit('error');
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(15_000);
    });
    expect(FakeEventSource.opened).toBe(opened + 1);
    expect(FakeEventSource.last).not.toBe(refused);
  });
});

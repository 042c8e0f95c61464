import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HistoryItem } from '../../api/enhanced';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const investor = makeUser({ _id: 'u1', name: 'Ivy Investor', balance: '99.00' });

function item(overrides: Partial<HistoryItem>): HistoryItem {
  return {
    _id: 'e1',
    type: 'Transaction',
    status: 'Confirmed',
    title: 'Deposit confirmed',
    effect: '99.50',
    amount: '99.50',
    fee: '0.00',
    balanceAfter: '99.50',
    date: '2026-11-23T10:00:00Z',
    reference: 'DEP-7K3Q-9XM2',
    details: { asset: 'USDT', network: 'TRC20', txHash: '0xabc', decision: 'Confirmed', notes: 'Network fee deducted' },
    ...overrides,
  };
}

const adjustment = item({
  _id: 'e3',
  type: 'Adjustment',
  status: 'Completed',
  title: 'Adjustment',
  effect: '-0.50',
  amount: '0.50',
  balanceAfter: '99.00',
  reference: 'adj-1',
  details: { category: 'correction', reason: 'Double credit reversed' },
});
const confirmed = item({});
const requested = item({ _id: 'e0', title: 'Deposit requested', effect: '0.00', amount: '100.00', balanceAfter: '0.00', details: {} });

afterEach(() => vi.unstubAllGlobals());

describe('transaction history', () => {
  it('shows cards newest first with their effect, filters by type and dates, and loads more', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': (request: Request) => {
        const q = new URL(request.url).searchParams;
        if (q.get('cursor') === '2') return json({ items: [requested] });
        if (q.get('type') === 'Adjustment') return json({ items: [adjustment] });
        if (q.get('type') === 'Bonus') return json({ items: [] });
        return json({ items: [adjustment, confirmed], nextCursor: '2' });
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Transaction History' })).toBeTruthy();

    let cards = await screen.findAllByTestId('history-card');
    expect(cards).toHaveLength(2);
    expect(cards[0]!.textContent).toContain('Adjustment');
    expect(cards[0]!.textContent).toContain('Double credit reversed');
    expect(cards[0]!.textContent).toContain('-$0.50');
    expect(cards[1]!.textContent).toContain('+$99.50');
    expect(cards[1]!.className).toContain('history-card--transaction');

    await u.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('history-card')).toHaveLength(3));
    expect(api.sent.some((r) => r.path.includes('cursor=2'))).toBe(true);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();

    await u.selectOptions(screen.getByLabelText('Type'), 'Adjustment');
    await waitFor(() => expect(screen.getAllByTestId('history-card')).toHaveLength(1));
    cards = screen.getAllByTestId('history-card');
    expect(cards[0]!.textContent).toContain('Adjustment');

    await u.type(screen.getByLabelText('From'), '2026-11-01');
    await waitFor(() => expect(api.sent.some((r) => r.path.includes('from=2026-11-01') && r.path.includes('type=Adjustment'))).toBe(true));

    await u.selectOptions(screen.getByLabelText('Type'), 'Bonus');
    expect(await screen.findByText('No transactions match these filters yet.')).toBeTruthy();
  });

  it('opens a dialog with every field of an item', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': json({ items: [confirmed] }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    await u.click(await screen.findByRole('button', { name: /^Details/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Deposit confirmed' });
    const text = within(dialog).getByTestId('history-details').textContent ?? '';
    for (const want of ['Deposit', 'Confirmed', 'DEP-7K3Q-9XM2', '$99.50', '$0.00', '+$99.50', 'Transaction hash', '0xabc', 'Network fee deducted', 'Staff decision', 'e1']) {
      expect(text).toContain(want);
    }
    await u.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it("shows the server's message when the history cannot be loaded, and loads it on retry", async () => {
    let calls = 0;
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': () =>
        ++calls === 1 ? json({ message: 'History is being rebuilt' }, 503) : json({ items: [confirmed] }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('History is being rebuilt')).toBeTruthy();
    await u.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findAllByTestId('history-card')).toHaveLength(1);
  });

  it('downloads the statement of the chosen period as a CSV file', async () => {
    const csv = 'Date (UTC),Type\r\n2026-11-01,,\r\n';
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': json({ items: [] }),
      'GET /api/invest/statement.csv': () => new Response(csv, { headers: { 'Content-Type': 'text/csv' } }),
    });
    const blobs: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (b: Blob) => (blobs.push(b), 'blob:statement'), revokeObjectURL: () => {} }));
    const clicked: HTMLAnchorElement[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    const from = await screen.findByLabelText('Statement from');
    await u.clear(from);
    await u.type(from, '2026-11-01');
    const to = screen.getByLabelText('Statement to');
    await u.clear(to);
    await u.type(to, '2026-11-30');
    await u.click(screen.getByRole('button', { name: 'Download statement (CSV)' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]!.download).toBe('clearvest-statement-2026-11-01-to-2026-11-30.csv');
    expect(await blobs[0]!.text()).toBe(csv);
    expect(api.sent.find((r) => r.path.startsWith('/api/invest/statement.csv'))!.path).toBe('/api/invest/statement.csv?from=2026-11-01&to=2026-11-30');
    click.mockRestore();
  });
});

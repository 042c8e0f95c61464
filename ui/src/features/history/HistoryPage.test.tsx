import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Movement } from '../../api/enhanced';
import { chooseLanguage } from '../../i18n';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const investor = makeUser({ _id: 'u1', name: 'Ivy Investor', balance: '99.00' });

function movement(overrides: Partial<Movement>): Movement {
  return {
    kind: 'deposit',
    reference: 'DEP-7K3Q-9XM2',
    subjectId: 'DEP-7K3Q-9XM2',
    amount: '99.50',
    status: 'confirmed',
    createdAt: '2026-11-23T09:00:00Z',
    updatedAt: '2026-11-23T10:00:00Z',
    settledAt: '2026-11-23T10:00:00Z',
    details: { asset: 'USDT', network: 'TRC20' },
    ...overrides,
  };
}

const pendingDeposit = movement({
  reference: 'DEP-AAAA-2222',
  subjectId: 'DEP-AAAA-2222',
  amount: '250.00',
  status: 'pending',
  settledAt: undefined,
  createdAt: '2026-11-25T09:00:00Z',
  updatedAt: '2026-11-25T09:00:00Z',
});
const confirmed = movement({});
const adjustment = movement({
  kind: 'adjustment',
  reference: 'ADJ-3M9Q2X7K',
  subjectId: undefined,
  amount: '-0.50',
  status: 'completed',
  settledAt: '2026-11-24T10:00:00Z',
  updatedAt: '2026-11-24T10:00:00Z',
  details: { category: 'correction', reason: 'Double credit reversed' },
});
const withdrawal = movement({
  kind: 'withdrawal',
  reference: 'WDR-0123ABCD',
  subjectId: 'w-1',
  amount: '-97.00',
  status: 'completed',
  settledAt: '2026-11-20T10:00:00Z',
  updatedAt: '2026-11-20T10:00:00Z',
});
const fee = movement({ ...withdrawal, kind: 'fee', amount: '-3.00', details: {} });
const payout = movement({
  kind: 'return',
  reference: 'INV-5Q2X7K3M',
  subjectId: 'i-1',
  amount: '1015.00',
  status: 'completed',
  settledAt: '2026-11-24T11:00:00Z',
  updatedAt: '2026-11-24T11:00:00Z',
  details: { plan: 'Gold', principal: '1000.00', return: '15.00' },
});

afterEach(async () => {
  vi.unstubAllGlobals();
  await chooseLanguage('en');
});

function rows() {
  return screen.getAllByTestId('movement');
}

describe('transaction history', () => {
  it('shows pending movements at the top and settled ones by day, each one row with its real amount, and loads more', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': (request: Request) => {
        const q = new URL(request.url).searchParams;
        if (q.get('cursor') === 'c2') return json({ pending: [pendingDeposit], items: [withdrawal, fee] });
        return json({ pending: [pendingDeposit], items: [payout, adjustment, confirmed], nextCursor: 'c2' });
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Transaction History' })).toBeTruthy();
    const pending = await screen.findByTestId('history-pending');
    const pendingRow = within(pending).getByTestId('movement');
    expect(pendingRow.textContent).toContain('Deposit via USDT (TRC20)');
    expect(pendingRow.textContent).toContain('+$250.00');
    expect(pendingRow.textContent).toContain('Awaiting confirmation');
    expect(pendingRow.textContent).toContain('DEP-AAAA-2222');

    const settled = rows().filter((r) => !pending.contains(r));
    expect(settled.map((r) => r.dataset.reference)).toEqual(['INV-5Q2X7K3M', 'ADJ-3M9Q2X7K', 'DEP-7K3Q-9XM2']);
    expect(settled[0]!.textContent).toContain('Payout from Gold plan');
    expect(settled[0]!.textContent).toContain('Principal $1,000.00 + return $15.00');
    expect(settled[0]!.textContent).toContain('Paid out');
    expect(within(settled[0]!).getByRole('link').getAttribute('href')).toBe('/investment/i-1');
    expect(settled[1]!.textContent).toContain('Balance correction');
    expect(settled[1]!.textContent).toContain('Reason: Double credit reversed');
    expect(settled[1]!.textContent).toContain('-$0.50');
    expect(settled[2]!.textContent).toContain('Credited');
    // A deposit opens its payment details, pending or settled.
    expect(within(settled[2]!).getByRole('link').getAttribute('href')).toBe('/transaction/DEP-7K3Q-9XM2');
    expect(within(pendingRow).getByRole('link').getAttribute('href')).toBe('/transaction/DEP-AAAA-2222');
    // A correction has no page: its row is not a link.
    expect(within(settled[1]!).queryByRole('link')).toBeNull();
    // Two days, each under its own heading.
    expect(screen.getAllByRole('heading', { level: 3 })).toHaveLength(2);

    await u.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(rows()).toHaveLength(6));
    const more = rows().slice(4);
    expect(more[0]!.textContent).toContain('Withdrawal to USDT (TRC20)');
    expect(more[0]!.textContent).toContain('Sent');
    expect(more[1]!.textContent).toContain('Withdrawal fee');
    expect(more[1]!.textContent).toContain('-$3.00');
    expect(more[1]!.textContent).toContain('WDR-0123ABCD');
    // The keyboard carries on from the first new row.
    await waitFor(() => expect(document.activeElement).toBe(within(more[0]!).getByRole('link')));
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(api.sent.some((r) => r.path.includes('cursor=c2'))).toBe(true);
    // The pending deposit is shown once, however many pages are loaded.
    expect(rows().filter((r) => r.dataset.reference === 'DEP-AAAA-2222')).toHaveLength(1);
  });

  it('marks the row a link points at', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': json({
        pending: [],
        items: [payout, movement({ ...payout, kind: 'investment', amount: '-1000.00', status: 'matured' })],
      }),
    });
    renderApp({ route: '/transaction-History?ref=INV-5Q2X7K3M', ...signedIn(investor) });
    await screen.findAllByTestId('movement');
    const marked = rows().filter((r) => r.getAttribute('aria-current') === 'true');
    expect(marked).toHaveLength(1);
    expect(marked[0]!.dataset.kind).toBe('return');
    await waitFor(() => expect(document.activeElement).toBe(within(marked[0]!).getByRole('link')));
  });

  it('shows a rejected deposit as rejected, struck through', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': json({
        pending: [],
        items: [movement({ status: 'rejected', amount: '50.00', details: { asset: 'USDT', network: 'TRC20', reason: 'Nothing arrived' } })],
      }),
    });
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    const [row] = await screen.findAllByTestId('movement');
    expect(row!.textContent).toContain('Rejected');
    expect(row!.textContent).toContain('Reason: Nothing arrived');
    expect(within(row!).getByTestId('movement-amount').className).toContain('movement__amount--void');
  });

  it('invites a first deposit when there is nothing yet', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': json({ pending: [], items: [] }),
    });
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    const empty = await screen.findByTestId('history-empty');
    expect(within(empty).getByRole('heading', { name: 'No money movements yet' })).toBeTruthy();
    expect(within(empty).getByRole('link', { name: 'Make a deposit' }).getAttribute('href')).toBe('/deposit-payment');
  });

  it("shows the server's message when the history cannot be loaded, and loads it on retry", async () => {
    let calls = 0;
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': () =>
        ++calls === 1 ? json({ message: 'History is being rebuilt' }, 503) : json({ pending: [], items: [confirmed] }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('History is being rebuilt')).toBeTruthy();
    await u.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findAllByTestId('movement')).toHaveLength(1);
  });

  it('downloads the statement of the chosen period as a CSV file', async () => {
    const csv = 'Date (UTC),Type\r\n2026-11-01,,\r\n';
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': json({ pending: [], items: [] }),
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

  it('reads in German once the reader chooses German', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/getTransactionHistory': json({ pending: [pendingDeposit], items: [payout, fee] }),
    });
    await chooseLanguage('de');
    renderApp({ route: '/transaction-History', ...signedIn(investor) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Kontoumsätze' })).toBeTruthy();
    const pending = await screen.findByTestId('history-pending');
    expect(within(pending).getByRole('heading', { name: 'Ausstehend' })).toBeTruthy();
    expect(pending.textContent).toContain('Einzahlung per USDT (TRC20)');
    expect(pending.textContent).toContain('Wartet auf Bestätigung');
    expect(pending.textContent).toContain('250,00');
    const settled = rows().filter((r) => !pending.contains(r));
    expect(settled[0]!.textContent).toContain('Auszahlung aus dem Plan Gold');
    // German writes the dollar after the number, with a no-break space.
    expect(settled[0]!.textContent).toMatch(/Einlage 1\.000,00\s\$ \+ Ertrag 15,00\s\$/);
    expect(settled[1]!.textContent).toContain('Auszahlungsgebühr');
    expect(screen.getByRole('button', { name: 'Kontoauszug herunterladen (CSV)' })).toBeTruthy();
  });
});

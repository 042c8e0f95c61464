import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Investment, InvestmentQuote, Plan } from '../../api/enhanced';
import { chooseLanguage } from '../../i18n';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const investor = makeUser({ _id: 'u1', name: 'Ivy Investor', kycStatus: 'Approved' });
const staff = makeUser({ _id: 'staff-1', role: 'author', name: 'Sam Staff' });

const basic: Plan = {
  _id: 'p-basic',
  name: 'Basic',
  min: '100.00',
  max: '1000.00',
  termDays: 30,
  termRate: '0.0150',
  apr: '18.25',
  version: 1,
  example: { amount: '100.00', return: '1.50', payout: '101.50', maturityDays: 30 },
};
const elite: Plan = { ...basic, _id: 'p-elite', name: 'Elite', min: '1500.00', max: '5000.00', termDays: 180, termRate: '0.0390', apr: '7.91' };

const quote: InvestmentQuote = {
  plan: 'Basic',
  planVersion: 1,
  amount: '200.05',
  termDays: 30,
  termRate: '0.0150',
  apr: '18.25',
  return: '3.00',
  payout: '203.05',
  maturesAt: '2026-12-23T10:00:00Z',
  available: '500.00',
};

const pending: Investment = {
  _id: 'inv-1',
  reference: 'INV-5Q2X7K3M',
  plan: 'Basic',
  planId: 'p-basic',
  planVersion: 1,
  amount: '200.05',
  status: 'Pending',
  termDays: 30,
  termRate: '0.0150',
  apr: '18.25',
  maturityAmount: '3.00',
  payout: '203.05',
  forfeited: '0.00',
  instruction: 'payout',
  closedEarly: false,
  progressPercent: 0,
  accruedEstimate: '0.00',
  requestedAt: '2026-11-23T10:00:00Z',
};
const active: Investment = {
  ...pending,
  status: 'Active',
  progressPercent: 50,
  accruedEstimate: '1.50',
  startDate: '2026-11-23T10:00:00Z',
  endDate: '2026-12-23T10:00:00Z',
  decidedAt: '2026-11-23T10:00:00Z',
};

describe('new investment', () => {
  it('picks a plan, shows the server’s figures and the risk notice, and confirms once with an Idempotency-Key', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/eligibility': json({ eligible: true }),
      'GET /api/invest/plans': json({ plans: [basic, elite] }),
      'GET /api/invest/quote': json(quote),
      'POST /api/invest/start-invest': json(pending),
    });
    const u = userEvent.setup();
    renderApp({ route: '/start-invest', ...signedIn(investor) });
    const choices = await screen.findAllByTestId('plan-choice');
    expect(choices).toHaveLength(2);
    expect(choices[0]!.textContent).toContain('$100.00 to $1,000.00');
    expect(choices[0]!.textContent).toContain('18.25% a year (APR)');

    // No plan chosen: the spec's words, and nothing asked of the server.
    await u.click(screen.getByRole('button', { name: 'Review investment' }));
    expect(await screen.findByText('Please select an investment plan.')).toBeTruthy();
    expect(api.to('GET /api/invest/quote')).toHaveLength(0);

    await u.click(screen.getByRole('radio', { name: 'Basic' }));
    await u.type(screen.getByLabelText('Amount in US dollars'), '200.05');
    await u.click(screen.getByRole('button', { name: 'Review investment' }));
    const confirm = await screen.findByTestId('invest-confirm');
    expect(api.to('GET /api/invest/quote')[0]!.path).toBe('/api/invest/quote?planName=Basic&amount=200.05');
    expect(within(confirm).getByTestId('quote-payout').textContent).toBe('$203.05');
    expect(confirm.textContent).toContain('18.25% a year');
    expect(confirm.textContent).toContain('1.50%');
    expect(confirm.textContent).toContain('if approved today');
    expect(within(confirm).getByRole('heading', { name: 'Know the risks before you invest' })).toBeTruthy();

    // The risk notice must be acknowledged first.
    await u.click(within(confirm).getByRole('button', { name: 'Confirm investment' }));
    expect(await screen.findByText('Please confirm that you have read the risk notice.')).toBeTruthy();
    expect(api.to('POST /api/invest/start-invest')).toHaveLength(0);

    await u.click(within(confirm).getByRole('checkbox', { name: /I have read the risk notice/ }));
    await u.click(within(confirm).getByRole('button', { name: 'Confirm investment' }));
    expect(await screen.findByTestId('invest-started')).toBeTruthy();
    expect(api.to('POST /api/invest/start-invest')[0]!.body).toEqual({ planName: 'Basic', amount: '200.05', planVersion: 1 });
    const sent = api.fetchMock.mock.calls.map(([r]) => r as Request).find((r) => r.method === 'POST');
    expect(sent?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(screen.getByText(/Going to your dashboard in \d s/)).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('heading', { level: 1, name: 'New Investment' })).toBeNull(), { timeout: 4000 });
  });

  it('shows the new terms when the plan changed since the review, and asks to review them again', async () => {
    const newTerms: InvestmentQuote = { ...quote, planVersion: 2, termRate: '0.0100', apr: '12.17', return: '2.00', payout: '202.05' };
    let starts = 0;
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/eligibility': json({ eligible: true }),
      'GET /api/invest/plans': json({ plans: [basic] }),
      'GET /api/invest/quote': json(quote),
      'POST /api/invest/start-invest': () =>
        ++starts === 1
          ? json(
              {
                message: 'The terms of the Basic plan changed since you reviewed them. Please review the new terms and confirm again.',
                code: 'plan_changed',
                investmentQuote: newTerms,
              },
              409,
            )
          : json({ ...pending, planVersion: 2 }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/start-invest?plan=p-basic', ...signedIn(investor) });
    await u.type(await screen.findByLabelText('Amount in US dollars'), '200.05');
    await u.click(screen.getByRole('button', { name: 'Review investment' }));
    let confirm = await screen.findByTestId('invest-confirm');
    await u.click(within(confirm).getByRole('checkbox', { name: /I have read the risk notice/ }));
    await u.click(within(confirm).getByRole('button', { name: 'Confirm investment' }));

    const notice = await screen.findByTestId('invest-quote-changed');
    expect(notice.textContent).toBe('The terms of the Basic plan changed since you reviewed them. Please review the new terms and confirm again.');
    confirm = screen.getByTestId('invest-confirm');
    expect(within(confirm).getByTestId('quote-payout').textContent).toBe('$202.05');
    // The new terms are a new confirmation: the risk notice is acknowledged again.
    const box = within(confirm).getByRole('checkbox', { name: /I have read the risk notice/ }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    await u.click(box);
    await u.click(within(confirm).getByRole('button', { name: 'Confirm investment' }));
    expect(await screen.findByTestId('invest-started')).toBeTruthy();
    const bodies = api.to('POST /api/invest/start-invest').map((r) => r.body);
    expect(bodies).toEqual([
      { planName: 'Basic', amount: '200.05', planVersion: 1 },
      { planName: 'Basic', amount: '200.05', planVersion: 2 },
    ]);
    const keys = api.fetchMock.mock.calls.map(([r]) => r as Request).filter((r) => r.method === 'POST').map((r) => r.headers.get('Idempotency-Key'));
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('shows the server’s refusal of an amount', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/eligibility': json({ eligible: true }),
      'GET /api/invest/plans': json({ plans: [basic] }),
      'GET /api/invest/quote': json({ message: 'Insufficient balance: $50.00 is available', field: 'amount' }, 422),
    });
    const u = userEvent.setup();
    renderApp({ route: '/start-invest?plan=p-basic', ...signedIn(investor) });
    // The plans page's link preselects its plan.
    expect(((await screen.findByRole('radio', { name: 'Basic' })) as HTMLInputElement).checked).toBe(true);
    await u.type(screen.getByLabelText('Amount in US dollars'), '200');
    await u.click(screen.getByRole('button', { name: 'Review investment' }));
    expect(await screen.findByText('Insufficient balance: $50.00 is available')).toBeTruthy();
    expect(screen.queryByTestId('invest-confirm')).toBeNull();
  });
});

describe('portfolio', () => {
  it('has an empty state that leads to a new investment', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/invest/investment-history': json({ asOf: '2026-11-23T10:00:00Z', investments: [] }) });
    renderApp({ route: '/invest-status', ...signedIn(investor) });
    expect(await screen.findByText(/You have no investments yet/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Start an investment' }).getAttribute('href')).toBe('/start-invest');
  });

  it('shows the totals, then active investments with their progress and ended ones apart', async () => {
    const running: Investment = {
      ...active,
      startDate: '2026-11-13T10:00:00Z',
      endDate: '2026-12-13T10:00:00Z',
    };
    const matured: Investment = {
      ...active,
      _id: 'inv-4',
      reference: 'INV-7K3M9Q2X',
      status: 'Ended',
      amount: '1000.00',
      maturityAmount: '15.00',
      payout: '1015.00',
      closedAt: '2026-11-20T10:00:00Z',
    };
    const ended: Investment = { ...active, _id: 'inv-2', reference: 'INV-AAAA2222', status: 'Ended', closedEarly: true, forfeited: '3.00' };
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/investment-history': json({
        asOf: '2026-11-23T12:00:00Z',
        investments: [running, ended, matured, { ...pending, _id: 'inv-3', reference: 'INV-BBBB3333' }],
      }),
    });
    renderApp({ route: '/invest-status', ...signedIn(investor) });
    const totals = await screen.findByTestId('portfolio-totals');
    // Invested now and expected returns count the active one; earned, the matured one (not the
    // one closed early, which gave its return up).
    expect(within(totals).getAllByText(/\$/).map((e) => e.textContent)).toEqual(['$200.05', '$3.00', '$15.00']);
    const activeSection = screen.getByTestId('portfolio-active');
    const items = within(activeSection).getAllByTestId('investment-item');
    expect(items.map((i) => within(i).getByTestId('investment-status').textContent)).toEqual(['Active', 'Waiting for approval']);
    expect(within(items[0]!).getByRole('link').getAttribute('href')).toBe('/investment/inv-1');
    const bar = within(items[0]!).getByRole('progressbar', { name: 'Term of the Basic investment' });
    expect([bar.getAttribute('aria-valuenow'), bar.getAttribute('aria-valuemax'), bar.getAttribute('aria-valuetext')]).toEqual(['10', '30', '10 of 30 days']);
    expect(items[0]!.textContent).toContain('Matures on');
    expect(items[0]!.textContent).toContain('INV-5Q2X7K3M');
    const endedItems = within(screen.getByTestId('portfolio-ended')).getAllByTestId('investment-item');
    expect(endedItems.map((i) => within(i).getByTestId('investment-status').textContent)).toEqual(['Ended early', 'Matured']);
    // Redeemed early: what came back is the principal.
    expect(endedItems[0]!.textContent).toContain('paid $200.05');
    expect(endedItems[1]!.textContent).toContain('paid $1,015.00');
    expect(within(endedItems[1]!).queryByRole('progressbar')).toBeNull();
  });
});

describe('portfolio in German', () => {
  it('reads in German once the reader chooses German', async () => {
    stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/investment-history': json({
        asOf: '2026-11-23T12:00:00Z',
        investments: [{ ...active, startDate: '2026-11-13T10:00:00Z', endDate: '2026-12-13T10:00:00Z' }],
      }),
    });
    await chooseLanguage('de');
    try {
      renderApp({ route: '/invest-status', ...signedIn(investor) });
      expect(await screen.findByRole('heading', { level: 1, name: 'Mein Portfolio' })).toBeTruthy();
      expect((await screen.findByTestId('portfolio-totals')).textContent).toContain('Derzeit angelegt');
      const bar = screen.getByRole('progressbar', { name: 'Laufzeit der Anlage im Plan Basic' });
      expect(bar.getAttribute('aria-valuetext')).toBe('10 von 30 Tagen');
      expect(screen.getByTestId('investment-status').textContent).toBe('Aktiv');
    } finally {
      await chooseLanguage('en');
    }
  });
});

describe('investment details', () => {
  it('shows progress and an estimate, saves the maturity instruction and redeems early after a preview', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(investor),
      'GET /api/invest/investment/inv-1': json(active),
      'PUT /api/invest/inv-1/instruction': json({ ...active, instruction: 'reinvest' }),
      'GET /api/invest/inv-1/early-redemption': json({ investmentId: 'inv-1', principal: '200.05', forfeited: '3.00' }),
      'POST /api/invest/inv-1/early-redemption': json({ investmentId: 'inv-1', principal: '200.05', forfeited: '3.00' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/investment/inv-1', ...signedIn(investor) });
    const progress = await screen.findByTestId('investment-progress');
    expect((within(progress).getByLabelText('50% of the term has passed') as HTMLProgressElement).value).toBe(50);
    expect(progress.textContent).toContain('Accrued to date (an estimate): $1.50');
    expect(screen.getByTestId('investment-payout').textContent).toBe('$203.05');

    await u.click(screen.getByRole('radio', { name: 'Reinvest on the same terms' }));
    await waitFor(() => expect(api.to('PUT /api/invest/inv-1/instruction')[0]?.body).toEqual({ instruction: 'reinvest' }));

    await u.click(screen.getByRole('button', { name: 'Redeem early…' }));
    const preview = await screen.findByTestId('redemption-preview');
    expect(preview.textContent).toContain('$200.05 back');
    expect(preview.textContent).toContain('return of $3.00');
    expect(api.to('POST /api/invest/inv-1/early-redemption')).toHaveLength(0);
    // The dialog opens (showModal) in an effect after it mounts.
    await u.click(await screen.findByRole('button', { name: 'Redeem early' }));
    await waitFor(() => expect(api.to('POST /api/invest/inv-1/early-redemption')).toHaveLength(1));
    expect(await screen.findByText(/Investment redeemed early/)).toBeTruthy();
  });

  it('shows what a matured investment paid and when, and links to the payout in the history', async () => {
    const matured: Investment = {
      ...active,
      status: 'Ended',
      amount: '1000.00',
      maturityAmount: '15.00',
      payout: '1015.00',
      closedAt: '2026-11-20T10:00:00Z',
    };
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/invest/investment/inv-1': json(matured) });
    renderApp({ route: '/investment/inv-1', ...signedIn(investor) });
    const outcome = await screen.findByTestId('investment-outcome');
    expect(within(outcome).getByRole('heading', { name: 'Paid out' })).toBeTruthy();
    expect(outcome.textContent).toContain('this investment paid $1,015.00 into your available balance: your $1,000.00 back and a return of $15.00');
    expect(outcome.textContent).toContain('Nov 20, 2026');
    expect(within(outcome).getByRole('link', { name: 'See the payout in your history' }).getAttribute('href')).toBe(
      '/transaction-History?ref=INV-5Q2X7K3M',
    );
    expect(screen.getByTestId('investment-reference').textContent).toBe('INV-5Q2X7K3M');
    expect(screen.queryByTestId('investment-progress')).toBeNull();
  });

  it('lets staff decide a pending investment from its page', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/invest/investment/inv-1': json({ ...pending, user: { _id: 'u1', name: 'Ivy Investor', email: 'ivy@example.com' } }),
      'PUT /api/invest/inv-1/approve': json({ message: 'Investment approved successfully!' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/investment/inv-1', ...signedIn(staff) });
    expect((await screen.findByTestId('investment-details')).textContent).toContain('Ivy Investor (ivy@example.com)');
    expect(screen.queryByRole('radio', { name: 'Reinvest on the same terms' })).toBeNull();
    await u.click(screen.getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('Investment approved successfully!')).toBeTruthy();
    expect(api.to('PUT /api/invest/inv-1/approve')).toHaveLength(1);
  });
});

describe('investment queue', () => {
  const item = (inv: Investment, ageSeconds: number) => ({
    investment: { ...inv, user: { _id: 'u1', name: 'Ivy Investor', email: 'ivy@example.com' } },
    ageSeconds,
  });

  it('lists the oldest first with the waiting time, rejects with a reason and shows a 409 clearly', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/invest/adminPendingInvestment': json({
        asOf: '2026-11-23T12:00:00Z',
        total: 2,
        pendingInvestments: [item(pending, 3 * 3600 + 60), item({ ...pending, _id: 'inv-2', amount: '150.00' }, 300)],
      }),
      'PUT /api/invest/inv-1/reject': json({ message: 'This investment was already decided' }, 409),
      'PUT /api/invest/inv-2/reject': json({ message: 'Investment rejected successfully!' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/admin-pending-investment', ...signedIn(staff) });
    const items = await screen.findAllByTestId('investment-queue-item');
    expect(screen.getByTestId('investment-queue-total').textContent).toBe('2 investments are waiting.');
    expect(items[0]!.textContent).toContain('waiting 3 h 1 min');
    expect(items[0]!.textContent).toContain('ivy@example.com');
    expect(items[1]!.textContent).toContain('$150.00 in Basic');

    await u.click(within(items[1]!).getByRole('button', { name: 'Reject…' }));
    await u.type(within(items[1]!).getByLabelText(/Reason/), 'Source of funds unclear');
    await u.click(within(items[1]!).getByRole('button', { name: 'Reject investment' }));
    await waitFor(() => expect(api.to('PUT /api/invest/inv-2/reject')[0]?.body).toEqual({ reason: 'Source of funds unclear' }));

    await u.click(within(items[0]!).getByRole('button', { name: 'Reject…' }));
    await u.type(within(items[0]!).getByLabelText(/Reason/), 'late');
    await u.click(within(items[0]!).getByRole('button', { name: 'Reject investment' }));
    const conflict = await screen.findByTestId('decision-conflict');
    expect(conflict.textContent).toContain('This investment was already decided');
  });

  it('reads the queue a page at a time and loads more on request', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/invest/adminPendingInvestment': (request: Request) =>
        new URL(request.url).searchParams.get('cursor') === 'page-2'
          ? json({ asOf: '2026-11-23T12:00:00Z', total: 2, pendingInvestments: [item({ ...pending, _id: 'inv-2', amount: '150.00' }, 300)] })
          : json({ asOf: '2026-11-23T12:00:00Z', total: 2, pendingInvestments: [item(pending, 60)], nextCursor: 'page-2' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/admin-pending-investment', ...signedIn(staff) });
    expect(await screen.findAllByTestId('investment-queue-item')).toHaveLength(1);
    expect(api.sent.some((r) => r.path.includes('limit=50'))).toBe(true);
    await u.click(screen.getByRole('button', { name: 'Load more' }));
    const more = await screen.findByRole('list', { name: 'More investments waiting, page 2' });
    expect(within(more).getByTestId('investment-queue-item').textContent).toContain('$150.00 in Basic');
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('has an empty state', async () => {
    stubApi({ 'GET /api/users/getUser': json(staff), 'GET /api/invest/adminPendingInvestment': json({ asOf: '2026-11-23T12:00:00Z', total: 0, pendingInvestments: [] }) });
    renderApp({ route: '/admin-pending-investment', ...signedIn(staff) });
    expect(await screen.findByText('No investments are waiting.')).toBeTruthy();
  });
});

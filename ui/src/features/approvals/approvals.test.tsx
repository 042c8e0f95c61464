import { act, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Deposit, Proposal, ProposalList, Withdrawal } from '../../api/enhanced';
import { depositNeedsSecond, useApprovalRules, withdrawalNeedsSecond } from '../../components/approvalWords';
import { chooseLanguage } from '../../i18n';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const admin = makeUser({ _id: 'admin-1', role: 'admin', name: 'Ada Admin' });
const author = makeUser({ _id: 'author-1', role: 'author', name: 'Avery Author' });
const thresholds = { depositTolerancePercent: '1', depositThreshold: '10000.00', withdrawalThreshold: '10000.00', maxAmount: '10000000.00' };

const depositProposal: Proposal = {
  id: 'p1',
  kind: 'deposit_confirmation',
  subjectId: 'DEP-AAAA-BBBB',
  user: { _id: 'u1', name: 'Ivy Investor' },
  amount: '20000.00',
  why: 'The amount received is above $10,000.00.',
  params: { received: '20000.00' },
  proposer: { _id: 'author-1', name: 'Avery Author' },
  reason: 'Arrived in full',
  status: 'pending',
  openedAt: '2026-11-23T10:00:00Z',
  decisionReason: '',
};
const payoutProposal: Proposal = {
  ...depositProposal,
  id: 'p2',
  kind: 'withdrawal_approval',
  subjectId: 'w-1',
  amount: '15000.00',
  why: 'The withdrawal is above $10,000.00.',
  params: {},
  proposer: { _id: 'admin-2', name: 'Bo Admin' },
  reason: 'Long-standing investor',
  openedAt: '2026-11-23T11:00:00Z',
};
const decided: Proposal = {
  ...depositProposal,
  id: 'p0',
  subjectId: 'DEP-OLD0-0000',
  status: 'rejected',
  decider: { _id: 'admin-2', name: 'Bo Admin' },
  decisionReason: 'Only $19,000 arrived',
  decidedAt: '2026-11-22T10:00:00Z',
};
const list = (over: Partial<ProposalList> = {}): ProposalList => ({
  pending: [depositProposal, payoutProposal],
  recent: [decided],
  thresholds,
  ...over,
});

describe('the four-eyes rule in words', () => {
  it('compares amounts exactly, as the server does', () => {
    expect(depositNeedsSecond('100.00', '101.00', thresholds)).toBeNull(); // exactly 1 %
    expect(depositNeedsSecond('100.00', '101.01', thresholds)).toBe('differs');
    expect(depositNeedsSecond('100.00', '98.99', thresholds)).toBe('differs');
    expect(depositNeedsSecond('10000.00', '10000.00', thresholds)).toBeNull();
    expect(depositNeedsSecond('10000.00', '10000.01', thresholds)).toBe('above');
    expect(depositNeedsSecond('100.00', 'abc', thresholds)).toBeNull();
    expect(depositNeedsSecond('100.00', '500', undefined)).toBeNull();
    expect(withdrawalNeedsSecond('10000.00', thresholds)).toBe(false);
    expect(withdrawalNeedsSecond('10000.001', thresholds)).toBe(true);
    expect(withdrawalNeedsSecond('20000', { ...thresholds, withdrawalThreshold: '0.00' })).toBe(false);
  });

  it('says the rule in the reader’s language', async () => {
    const { result } = renderHook(() => useApprovalRules());
    expect(result.current.deposit(thresholds)).toBe('Confirmations above $10,000.00, or more than 1 % from the declared amount, need a second staff member.');
    expect(result.current.deposit({ ...thresholds, depositThreshold: '0', depositTolerancePercent: '0.5' })).toBe(
      'Confirmations more than 0.5 % from the declared amount need a second staff member.',
    );
    expect(result.current.withdrawal(thresholds)).toBe('Payouts above $10,000.00 need a second staff member.');
    expect(result.current.withdrawal({ ...thresholds, withdrawalThreshold: '0.00' })).toBe('');
    await act(() => chooseLanguage('de'));
    expect(result.current.deposit({ ...thresholds, depositTolerancePercent: '0.5' })).toBe(
      'Bestätigungen über 10.000,00\u00a0$ oder mit mehr als 0,5 % Abweichung vom angegebenen Betrag brauchen eine zweite Person im Team.',
    );
    expect(result.current.withdrawal(thresholds)).toBe('Auszahlungen über 10.000,00\u00a0$ brauchen eine zweite Person im Team.');
  });
});

afterEach(async () => {
  await chooseLanguage('en');
});

describe('Second Approvals', () => {
  it('shows the thresholds, the waiting proposals with links, and the decided ones', async () => {
    stubApi({ 'GET /api/users/getUser': json(admin), 'GET /api/proposals': json(list()) });
    renderApp({ route: '/approvals', ...signedIn(admin) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Second Approvals' })).toBeTruthy();
    const rules = await screen.findByTestId('approval-thresholds');
    expect(rules.textContent).toContain('above $10,000.00, or more than 1 % from the declared amount');
    expect(rules.textContent).toContain('$10,000,000.00');
    const items = screen.getAllByTestId('proposal-item');
    expect(items).toHaveLength(2);
    expect(items[0]!.textContent).toContain('Deposit confirmation of $20,000.00');
    expect(within(items[0]!).getByRole('link', { name: 'DEP-AAAA-BBBB' }).getAttribute('href')).toBe('/transaction/DEP-AAAA-BBBB');
    expect(items[0]!.textContent).toContain('Avery Author');
    expect(items[0]!.textContent).toContain('Arrived in full');
    expect(within(items[1]!).getByRole('link', { name: 'Withdrawal' }).getAttribute('href')).toBe('/withdrawal/w-1');
    const past = screen.getByTestId('proposal-decided');
    expect(past.textContent).toContain('Rejected by Bo Admin: “Only $19,000 arrived”');
  });

  it('says so when nothing waits, and when the list cannot be read', async () => {
    let fail = true;
    stubApi({
      'GET /api/users/getUser': json(admin),
      'GET /api/proposals': () => (fail ? json({ message: 'Database unavailable' }, 500) : json(list({ pending: [], recent: [] }))),
    });
    const u = userEvent.setup();
    renderApp({ route: '/approvals', ...signedIn(admin) });
    expect(await screen.findByText('Failed to fetch the proposals.')).toBeTruthy();
    expect(screen.getByText('Database unavailable')).toBeTruthy();
    fail = false;
    await u.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Nothing waits for a second approval.')).toBeTruthy();
  });

  it('gives the proposer no buttons, authors none, and other admins Approve and Reject', async () => {
    stubApi({ 'GET /api/users/getUser': json(author), 'GET /api/proposals': json(list()) });
    const view = renderApp({ route: '/approvals', ...signedIn(author) });
    const items = await screen.findAllByTestId('proposal-item');
    expect(within(items[0]!).getByText('Waiting for a second staff member')).toBeTruthy();
    expect(within(items[0]!).queryByRole('button')).toBeNull();
    expect(within(items[1]!).queryByRole('button')).toBeNull();
    view.unmount();

    stubApi({ 'GET /api/users/getUser': json(admin), 'GET /api/proposals': json(list()) });
    renderApp({ route: '/approvals', ...signedIn(admin) });
    const again = await screen.findAllByTestId('proposal-item');
    expect(within(again[0]!).getByRole('button', { name: 'Approve' })).toBeTruthy();
    expect(within(again[0]!).getByRole('button', { name: 'Reject' })).toBeTruthy();
  });

  it('approves a payout with the transaction hash the approver sent, and rejects with a required reason', async () => {
    let pending = [depositProposal, payoutProposal];
    const api = stubApi({
      'GET /api/users/getUser': json(admin),
      'GET /api/proposals': () => json(list({ pending })),
      'POST /api/proposals/p2/approve': () => {
        pending = pending.filter((p) => p.id !== 'p2');
        return json({ message: 'Approved and carried out' });
      },
      'POST /api/proposals/p1/reject': json({ message: 'Proposal rejected' }),
    });
    const u = userEvent.setup();
    renderApp({ route: '/approvals', ...signedIn(admin) });
    const items = await screen.findAllByTestId('proposal-item');
    await u.click(within(items[1]!).getByRole('button', { name: 'Approve' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve: Withdrawal payout' });
    await u.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(within(dialog).getByText('Please enter the payout transaction hash')).toBeTruthy();
    expect(api.to('POST /api/proposals/p2/approve')).toHaveLength(0);
    await u.type(within(dialog).getByLabelText('Payout transaction hash'), '0xpaid');
    await u.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('Approved and carried out')).toBeTruthy();
    expect(api.to('POST /api/proposals/p2/approve')[0]!.body).toEqual({ txHash: '0xpaid' });
    await waitFor(() => expect(screen.getAllByTestId('proposal-item')).toHaveLength(1));

    await u.click(within(screen.getByTestId('proposal-item')).getByRole('button', { name: 'Reject' }));
    const reject = await screen.findByRole('dialog', { name: 'Reject: Deposit confirmation' });
    await u.click(within(reject).getByRole('button', { name: 'Reject' }));
    expect(within(reject).getByText('Please enter a reason')).toBeTruthy();
    await u.type(within(reject).getByLabelText(/Reason/), 'Only $19,000 arrived');
    await u.click(within(reject).getByRole('button', { name: 'Reject' }));
    expect(await screen.findByText('Proposal rejected')).toBeTruthy();
    expect(api.to('POST /api/proposals/p1/reject')[0]!.body).toEqual({ reason: 'Only $19,000 arrived' });
  });

  it('shows the server’s 403 to an admin who may not decide', async () => {
    stubApi({
      'GET /api/users/getUser': json(admin),
      'GET /api/proposals': json(list()),
      'POST /api/proposals/p1/approve': json({ message: 'You made this proposal: a second staff member must decide it.' }, 403),
    });
    const u = userEvent.setup();
    renderApp({ route: '/approvals', ...signedIn(admin) });
    const items = await screen.findAllByTestId('proposal-item');
    await u.click(within(items[0]!).getByRole('button', { name: 'Approve' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve: Deposit confirmation' });
    await u.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('You made this proposal: a second staff member must decide it.')).toBeTruthy();
  });
});

const deposit: Deposit = {
  transactionId: 'DEP-AAAA-BBBB',
  reference: 'DEP-AAAA-BBBB',
  amount: '20000.00',
  asset: 'USDT',
  network: 'TRC20',
  address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  qrPayload: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  onChainAmount: '20000.000000',
  usdRate: '1',
  txHash: '0xabc',
  status: 'Pending',
  received: '0.00',
  notes: '',
  requestedAt: '2026-11-23T10:00:00Z',
  source: 'declared',
};

describe('decisions that need a second staff member', () => {
  it('a deposit confirmation above the threshold asks for the notes, then shows the proposal waiting', async () => {
    let pending: Proposal[] = [];
    const api = stubApi({
      'GET /api/users/getUser': json(author),
      'GET /api/payments/viewPaymentStatus/DEP-AAAA-BBBB': json(deposit),
      'GET /api/proposals': () => json(list({ pending, recent: [] })),
      'PATCH /api/payments/confirmPayment': () => {
        pending = [depositProposal];
        return json({ message: 'Sent to a second staff member for approval', proposalId: 'p1' }, 202);
      },
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction/DEP-AAAA-BBBB', ...signedIn(author) });
    expect(await screen.findByTestId('deposit-needs-second')).toBeTruthy();
    expect(screen.getByText(/Confirmations above \$10,000\.00/)).toBeTruthy();
    await u.click(screen.getByRole('button', { name: 'Send for a second approval' }));
    expect(screen.getByText('Please give the reason for the second staff member in the notes')).toBeTruthy();
    expect(api.to('PATCH /api/payments/confirmPayment')).toHaveLength(0);
    await u.type(screen.getByLabelText(/Notes/), 'Arrived in full');
    await u.click(screen.getByRole('button', { name: 'Send for a second approval' }));
    expect(await screen.findByText('Sent to a second staff member for approval')).toBeTruthy();
    expect(api.to('PATCH /api/payments/confirmPayment')[0]!.body).toEqual({
      transactionId: 'DEP-AAAA-BBBB',
      amount: '20000.00',
      notes: 'Arrived in full',
    });
    const status = await screen.findByTestId('deposit-awaiting-second');
    expect(within(status).getByRole('link', { name: 'Open Second Approvals' }).getAttribute('href')).toBe('/approvals');
    await waitFor(() => expect(status.textContent).toContain('Avery Author proposed to confirm $20,000.00'));
    expect(screen.queryByRole('button', { name: /Confirm payment|Send for a second approval/ })).toBeNull();
  });

  it('puts the server’s 400 about the notes on the notes field', async () => {
    stubApi({
      'GET /api/users/getUser': json(author),
      'GET /api/payments/viewPaymentStatus/DEP-AAAA-BBBB': json({ ...deposit, amount: '100.00' }),
      'GET /api/proposals': json(list({ pending: [], recent: [], thresholds: { ...thresholds, depositTolerancePercent: '50' } })),
      'PATCH /api/payments/confirmPayment': json(
        { message: 'A second staff member must approve this decision: please give the reason in the notes.', field: 'notes' },
        400,
      ),
    });
    const u = userEvent.setup();
    renderApp({ route: '/transaction/DEP-AAAA-BBBB', ...signedIn(author) });
    const received = await screen.findByLabelText('Amount received (USD)');
    await u.clear(received);
    await u.type(received, '90');
    await u.click(screen.getByRole('button', { name: 'Confirm payment' }));
    const notes = screen.getByLabelText(/Notes/);
    await waitFor(() => expect(notes.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('notes-error')?.textContent).toContain('please give the reason in the notes');
  });

  it('a withdrawal above the threshold asks for a reason instead of the hash, and shows the proposal waiting', async () => {
    const w: Withdrawal = {
      _id: 'w-1',
      amount: '15000.00',
      fee: '2.00',
      receives: '14998.00',
      network: 'TRC20',
      walletAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      status: 'Pending',
      requestDate: '2026-11-23T10:00:00Z',
      user: { _id: 'u1', name: 'Ivy Investor', email: 'ivy@example.com' },
    } as Withdrawal;
    const api = stubApi({
      'GET /api/users/getUser': json(author),
      'GET /api/withDraw/get-withdrawal/w-1': json(w),
      'GET /api/proposals': json(list({ pending: [], recent: [] })),
      'PUT /api/withDraw/approve/w-1': json({ message: 'Sent to a second staff member for approval', proposalId: 'p2' }, 202),
    });
    const u = userEvent.setup();
    renderApp({ route: '/withdrawal/w-1', ...signedIn(author) });
    expect((await screen.findByTestId('withdrawal-needs-second')).textContent).toContain('Payouts above $10,000.00 need a second staff member.');
    await u.click(screen.getByRole('button', { name: 'Approve withdrawal' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve withdrawal' });
    expect(within(dialog).queryByLabelText('Payout transaction hash')).toBeNull();
    await u.type(within(dialog).getByLabelText(/Reason/), 'Long-standing investor');
    await u.click(within(dialog).getByRole('button', { name: 'Send for a second approval' }));
    expect(await screen.findByText('Sent to a second staff member for approval')).toBeTruthy();
    expect(api.to('PUT /api/withDraw/approve/w-1')[0]!.body).toEqual({ reason: 'Long-standing investor' });
    expect(await screen.findByTestId('withdrawal-awaiting-second')).toBeTruthy();
  });

  it('tells the deposit queue how many confirmations wait, with the rule in one line', async () => {
    stubApi({
      'GET /api/users/getUser': json(author),
      'GET /api/payments/pending-deposit': json({ asOf: '2026-11-23T10:12:00Z', deposits: [] }),
      'GET /api/proposals': json(list()),
    });
    renderApp({ route: '/admin-pending-deposit', ...signedIn(author) });
    const waiting = await screen.findByTestId('proposals-waiting');
    expect(waiting.textContent).toContain('1 deposit confirmation waits for a second staff member.');
    expect(within(waiting).getByRole('link', { name: 'Open Second Approvals' }).getAttribute('href')).toBe('/approvals');
    expect(screen.getByTestId('approval-rule').textContent).toBe(
      'Confirmations above $10,000.00, or more than 1 % from the declared amount, need a second staff member.',
    );
  });
});

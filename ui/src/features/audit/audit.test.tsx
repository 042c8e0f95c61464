import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AuditBooks, AuditEventPage, AuditLogPage } from '../../api/enhanced';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const admin = makeUser({ _id: 'admin-1', role: 'admin', name: 'Ada Admin' });

const log: AuditLogPage = {
  entries: [
    {
      position: 42,
      at: '2026-11-23T10:00:00Z',
      kind: 'account.deposit_confirmed',
      summary: 'Confirmed deposit DEP-7K3M9Q2X',
      streamId: 'account-u1',
      eventId: 'e1',
      actorId: 'admin-2',
      actorEmail: 'bo@example.com',
      actorRole: 'admin',
      targetUser: 'u1',
      targetEmail: 'ivy@example.com',
      reference: 'DEP-7K3M9Q2X',
      amount: '1000.00',
      reason: 'Checked on chain',
      clientIp: '203.0.113.9',
    },
    {
      position: 41,
      at: '2026-11-23T09:00:00Z',
      kind: 'account.fee_exemption_granted',
      summary: 'Account: fee exemption granted',
      streamId: 'account-u1',
      eventId: 'e0',
      actorId: 'admin-2',
      actorRole: 'admin',
      targetUser: 'u1',
      reference: '',
      amount: '',
      reason: 'VIP',
      clientIp: '',
    },
  ],
  next: '41',
  kinds: ['account.deposit_confirmed', 'account.fee_exemption_granted'],
};

const books = (difference: string): AuditBooks => ({
  position: 42,
  head: 50,
  events: 3,
  accounts: [
    { account: 'platform:custody', user: '', book: '', balance: '-1000.00', debit: '1000.00', credit: '0.00' },
    { account: 'user:u1:available', user: 'u1', book: 'available', balance: '1000.00', debit: '0.00', credit: '1000.00' },
  ],
  totalDebit: '1000.00',
  totalCredit: '1000.00',
  balanced: true,
  unbalanced: [],
  wentNegative: [],
  reconciliation: { depositsReceived: '1000.00', payoutsSent: '0.00', investorLiabilities: '1000.00', platformEquity: '0.00', difference },
  users: { available: '1000.00', held: '0.00', invested: '0.00' },
});

const events: AuditEventPage = {
  events: [
    {
      position: 7,
      eventId: 'e7',
      streamId: 'user-u1',
      version: 1,
      type: 'user.registered',
      schemaVersion: 1,
      recordedAt: '2026-11-23T08:00:00Z',
      data: { email: 'pii:v1:AAAA' },
      metadata: { correlationId: 'c-1', actorId: 'u1', clientIp: 'pii:v1:BBBB' },
    },
  ],
  next: 0,
};

describe('the audit screens', () => {
  it('lists staff actions in words, with who, whom, why and from where, and pages on', async () => {
    const api = stubApi({ 'GET /api/users/getUser': json(admin), 'GET /api/audit/log': json(log) });
    const u = userEvent.setup();
    renderApp({ route: '/audit', ...signedIn(admin) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit' })).toBeTruthy();
    const table = await screen.findByTestId('audit-log');
    const rows = within(table).getAllByRole('row');
    expect(rows[1]!.textContent).toContain('Confirmed deposit DEP-7K3M9Q2X');
    expect(rows[1]!.textContent).toContain('bo@example.com');
    expect(rows[1]!.textContent).toContain('ivy@example.com');
    expect(rows[1]!.textContent).toContain('Checked on chain');
    expect(rows[1]!.textContent).toContain('203.0.113.9');
    expect(rows[1]!.textContent).toContain('$1,000.00');
    // A kind the screen has no words for reads as the server says it.
    expect(rows[2]!.textContent).toContain('Account: fee exemption granted');
    await u.click(screen.getByRole('button', { name: 'Older entries' }));
    expect(api.sent.some((r) => r.path.includes('before=41'))).toBe(true);
  });

  it('filters by e-mail and day, and refuses a period that ends before it starts', async () => {
    const api = stubApi({ 'GET /api/users/getUser': json(admin), 'GET /api/audit/log': json(log) });
    const u = userEvent.setup();
    renderApp({ route: '/audit', ...signedIn(admin) });
    await screen.findByTestId('audit-log');
    await u.type(screen.getByLabelText('Staff member'), 'bo@example.com');
    await u.type(screen.getByLabelText('From'), '2026-11-23');
    await u.type(screen.getByLabelText('To (included)'), '2026-11-22');
    await u.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(await screen.findByText('The start must not be after the end.')).toBeTruthy();
    await u.clear(screen.getByLabelText('To (included)'));
    await u.type(screen.getByLabelText('To (included)'), '2026-11-23');
    await u.click(screen.getByRole('button', { name: 'Apply filters' }));
    const path = api.sent.filter((r) => r.path.startsWith('/api/audit/log')).at(-1)!.path;
    expect(path).toContain('actor=bo%40example.com');
    expect(path).toContain('from=2026-11-23T00%3A00%3A00Z');
    expect(path).toContain('to=2026-11-24T00%3A00%3A00.000Z');
  });

  it('shows stored events with their metadata and keeps sealed values sealed', async () => {
    stubApi({ 'GET /api/users/getUser': json(admin), 'GET /api/audit/events': json(events) });
    renderApp({ route: '/audit?tab=events', ...signedIn(admin) });
    const list = await screen.findByTestId('audit-events');
    expect(list.textContent).toContain('user.registered');
    expect(list.textContent).toContain('c-1');
    expect(within(list).getAllByText('sealed').length).toBeGreaterThan(0);
  });

  it('shows the trial balance and marks the reconciliation by its difference', async () => {
    let difference = '0.00';
    stubApi({ 'GET /api/users/getUser': json(admin), 'GET /api/audit/books': () => json(books(difference)) });
    const u = userEvent.setup();
    renderApp({ route: '/audit?tab=books', ...signedIn(admin) });
    const rec = await screen.findByTestId('audit-reconciliation');
    expect(rec.getAttribute('data-reconciled')).toBe('true');
    expect(rec.className).toContain('panel--success');
    expect(screen.getByTestId('audit-trial-balance').textContent).toContain('$1,000.00');
    expect(screen.getByText('Debits equal credits.')).toBeTruthy();
    difference = '5.00';
    await u.type(screen.getByLabelText('Log position'), '12');
    await u.click(screen.getByRole('button', { name: 'Show the books' }));
    expect(await screen.findByText('Not reconciled: the difference must be zero.')).toBeTruthy();
    await u.clear(screen.getByLabelText('Log position'));
    await u.type(screen.getByLabelText('Log position'), 'abc');
    await u.click(screen.getByRole('button', { name: 'Show the books' }));
    expect(await screen.findByText('A position is a whole number, zero or more.')).toBeTruthy();
  });
});

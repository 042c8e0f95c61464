import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Settings } from '../../api/enhanced';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const admin = makeUser({ _id: 'admin-1', role: 'admin', name: 'Ada Admin' });

const settings = (over: Partial<Settings> = {}): Settings => ({
  withdrawalFee: { percent: '1', flat: '1.00', minimum: '10.00', cap: '25.00' },
  referral: { bonus: '5.00', minDeposit: '100.00' },
  approvals: { depositTolerancePercent: '1', depositThreshold: '10000.00', withdrawalThreshold: '10000.00' },
  depositAddresses: { addresses: [{ asset: 'USDT', network: 'TRC20', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }] },
  support: { email: 'support@clearvest.example' },
  maxAmount: '10000000.00',
  history: [],
  plans: [],
  ...over,
});

describe('the settings console', () => {
  it('asks for a reason, confirms old → new, and puts a refused field back on the form', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(admin),
      'GET /api/settings': json(settings()),
      'PUT /api/settings/withdrawalFee': json({ message: 'The flat fee cannot be below zero.', field: 'flat' }, 400),
    });
    const u = userEvent.setup();
    renderApp({ route: '/settings', ...signedIn(admin) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeTruthy();
    const fee = await screen.findByTestId('settings-withdrawalFee');
    expect(within(fee).getByTestId('withdrawalFee-last').textContent).toContain('Not changed yet');

    const flat = within(fee).getByLabelText('Flat fee');
    await u.clear(flat);
    await u.type(flat, '-1');
    await u.click(within(fee).getByRole('button', { name: 'Review the change' }));
    expect(within(fee).getByText('Please give a reason of at least 3 characters.')).toBeTruthy();
    expect(api.to('PUT /api/settings/withdrawalFee')).toHaveLength(0);

    await u.type(within(fee).getByLabelText(/^Reason/), 'Network fees went up');
    await u.click(within(fee).getByRole('button', { name: 'Review the change' }));
    const confirm = await within(fee).findByTestId('withdrawalFee-confirm');
    expect(confirm.textContent).toContain('Flat fee');
    expect(confirm.textContent).toMatch(/\$1\.00\s*→\s*-\$1\.00|\$1\.00\s*→\s*−\$1\.00|\$1\.00\s*→\s*-1/);
    expect(confirm.textContent).not.toContain('Minimum withdrawal');
    await u.click(within(confirm).getByRole('button', { name: 'Confirm and save' }));

    const sent = api.to('PUT /api/settings/withdrawalFee');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toEqual({
      reason: 'Network fees went up',
      withdrawalFee: { percent: '1', flat: '-1', minimum: '10.00', cap: '25.00' },
    });
    expect(await within(fee).findByText('The flat fee cannot be below zero.')).toBeTruthy();
    expect(within(fee).getByLabelText('Flat fee').getAttribute('aria-invalid')).toBe('true');
  });

  it('shows each section’s history with who, why and the values before and after', async () => {
    stubApi({
      'GET /api/users/getUser': json(admin),
      'GET /api/settings': json(
        settings({
          history: [
            {
              section: 'support',
              at: '2026-11-20T10:00:00Z',
              by: { _id: 'admin-2', name: 'Bo Admin' },
              reason: 'New inbox',
              old: { support: { email: 'old@clearvest.example' } },
              new: { support: { email: 'support@clearvest.example' } },
            },
          ],
        }),
      ),
    });
    renderApp({ route: '/settings', ...signedIn(admin) });
    const support = await screen.findByTestId('settings-support');
    expect(within(support).getByTestId('support-last').textContent).toContain('Bo Admin');
    const history = within(support).getByTestId('support-history');
    expect(history.textContent).toContain('Reason: New inbox');
    expect(history.textContent).toContain('old@clearvest.example → support@clearvest.example');
  });
});

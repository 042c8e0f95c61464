import { screen, within } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const admin = makeUser({ role: 'admin' });

function staffDashboard(networks: unknown[]) {
  stubApi({
    'GET /api/users/getUser': json(admin),
    'GET /api/staff/queue-counts': json({ deposits: 0 }),
    'GET /api/staff/chain-status': json({ networks }),
  });
  renderApp({ route: '/my-account', ...signedIn(admin) });
}

const status = (over: Record<string, unknown>) => ({
  network: 'BTC',
  state: 'ok',
  tip: 812345,
  cursor: 812345,
  confirmations: 2,
  lastSuccessAt: '2026-11-28T10:43:00Z',
  lastError: '',
  lastErrorAt: null,
  waitingForPrice: 0,
  orphaned: 0,
  ...over,
});

describe('deposit watchers (staff dashboard)', () => {
  it('says, per watched chain, whether its node answers and what needs a person', async () => {
    staffDashboard([
      status({}),
      status({ network: 'ERC20', state: 'down', tip: 100, cursor: 98, confirmations: 12, lastError: 'connection refused', lastErrorAt: '2026-11-28T10:42:00Z', orphaned: 1, lastSuccessAt: null }),
    ]);
    const section = await screen.findByRole('region', { name: 'Deposit watchers' });
    const btc = within(section).getByTestId('chain-BTC');
    expect(btc.textContent).toContain('Bitcoin');
    expect(btc.textContent).toContain('Up to date');
    expect(btc.textContent).toContain('Read up to block 812,345. Deposits are credited after 2 confirmations.');
    const eth = within(section).getByTestId('chain-ERC20');
    expect(eth.textContent).toContain('Node unreachable');
    expect(eth.textContent).toContain('(connection refused)');
    expect(eth.textContent).toContain('nothing is lost');
    expect(eth.textContent).toContain('1 credited transfer left the chain in a reorganisation. Nothing was debited');
    expect((await axe.run(section)).violations).toEqual([]);
  });

  it('shows nothing when no chain is watched', async () => {
    staffDashboard([]);
    await screen.findByRole('region', { name: 'Waiting for you' });
    expect(screen.queryByRole('region', { name: 'Deposit watchers' })).toBeNull();
  });
});

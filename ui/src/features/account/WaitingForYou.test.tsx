import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { chooseLanguage } from '../../i18n';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const admin = makeUser({ role: 'admin' });

function staffDashboard(counts: () => Response | Promise<Response>) {
  const api = stubApi({ 'GET /api/users/getUser': json(admin), 'GET /api/staff/queue-counts': counts });
  renderApp({ route: '/my-account', ...signedIn(admin) });
  return api;
}

const section = () => screen.findByRole('region', { name: 'Waiting for you' });

describe('waiting for you (staff dashboard)', () => {
  it('lists each queue the server runs with its count and a link to it, busiest wording first in the summary', async () => {
    staffDashboard(() => json({ deposits: 3, withdrawals: 0, investments: 1, identityChecks: 12, approvals: 0, supportTickets: 2 }));
    const waiting = await section();
    expect(await within(waiting).findByText('18 items waiting in 4 queues.')).toBeTruthy();
    const link = (name: string) => within(waiting).getByRole('link', { name });
    expect(link('Deposits: 3 waiting').getAttribute('href')).toBe('/admin-pending-deposit');
    expect(link('Withdrawals: nothing waiting').getAttribute('href')).toBe('/admin-pending-wallet');
    expect(link('Investments: 1 waiting').getAttribute('href')).toBe('/admin-pending-investment');
    expect(link('Identity checks: 12 waiting').getAttribute('href')).toBe('/pending-kyc');
    expect(link('Second approvals: nothing waiting').getAttribute('href')).toBe('/approvals');
    expect(link('Support: 2 waiting').getAttribute('href')).toBe('/support-tickets');
    // Testimonials are not run by this server: absent from the answer, absent here.
    expect(within(waiting).queryByRole('link', { name: /Testimonials/ })).toBeNull();
    expect(within(waiting).getAllByRole('link')).toHaveLength(6);
    expect((await axe.run(waiting)).violations).toEqual([]);
  });

  it('says nothing is waiting when every queue is clear', async () => {
    staffDashboard(() => json({ deposits: 0, withdrawals: 0, investments: 0, identityChecks: 0 }));
    const waiting = await section();
    expect(await within(waiting).findByText('Nothing waiting')).toBeTruthy();
    expect(within(waiting).queryAllByRole('link')).toHaveLength(0);
  });

  it('shows loading, then the server’s message with a retry that loads the counts', async () => {
    let fail = true;
    let answer: (r: Response) => void = () => undefined;
    const first = new Promise<Response>((resolve) => (answer = resolve));
    // The sidebar and the section share one query, which may be asked more than once while the
    // answer is pending: each ask gets its own copy of it.
    const api = staffDashboard(() => (fail ? first.then((r) => r.clone()) : Promise.resolve(json({ deposits: 1 }))));
    const waiting = await section();
    expect(within(waiting).getByRole('status').textContent).toContain('Loading the queues…');
    answer(json({ message: 'The queues are resting.' }, 500));
    expect(await within(waiting).findByText('The queues are resting.')).toBeTruthy();
    expect(within(waiting).getByRole('heading', { name: 'The queues could not be loaded' })).toBeTruthy();
    fail = false;
    await userEvent.setup().click(within(waiting).getByRole('button', { name: 'Try again' }));
    expect(await within(waiting).findByRole('link', { name: 'Deposits: 1 waiting' })).toBeTruthy();
    expect(api.to('GET /api/staff/queue-counts').length).toBeGreaterThanOrEqual(2);
  });

  it('is not shown to an investor', async () => {
    const investor = makeUser({ role: 'subscriber' });
    const api = stubApi({ 'GET /api/users/getUser': json(investor) });
    renderApp({ route: '/my-account', ...signedIn(investor) });
    await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' });
    expect(screen.queryByRole('region', { name: 'Waiting for you' })).toBeNull();
    expect(api.to('GET /api/staff/queue-counts')).toHaveLength(0);
  });

  it('is in German for a German reader', async () => {
    await chooseLanguage('de');
    try {
      staffDashboard(() => json({ deposits: 1, withdrawals: 2 }));
      const waiting = await screen.findByRole('region', { name: 'Wartet auf Sie' });
      expect(await within(waiting).findByText('3 Vorgänge warten in 2 Warteschlangen.')).toBeTruthy();
      expect(within(waiting).getByRole('link', { name: 'Einzahlungen: 1 wartet' })).toBeTruthy();
      await waitFor(() => expect(within(waiting).getByRole('link', { name: 'Auszahlungen: 2 warten' })).toBeTruthy());
    } finally {
      await chooseLanguage('en');
    }
  });
});

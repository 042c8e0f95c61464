import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, signedOut, stubApi } from '../../test/stubApi';
import { appRoutes } from '../router';
import type { PageRoute } from '../routes';

const Page = (name: string) => () => <h1>{name}</h1>;

// A small route table: one page of each access rule.
const table: PageRoute[] = [
  { path: '/', access: 'public', page: { component: Page('Home') } },
  { path: '/our-story', title: 'About Us', access: 'public', menus: ['main'], page: { component: Page('About Us') } },
  { path: '/login', title: 'Sign In', access: 'guest', menus: ['main'], page: { component: Page('Sign In') } },
  { path: '/my-account', title: 'My Account', access: 'signedIn', page: { component: Page('Welcome') } },
  { path: '/user-profile', title: 'Profile', access: 'signedIn', page: { component: Page('Profile') } },
  { path: '/admin-pending-deposit', title: 'Pending Deposits', access: 'staff', page: { component: Page('Pending Deposits') } },
];

function open(route: string, user = makeUser(), extra: Record<string, Response> = {}) {
  const api = stubApi({ 'GET /api/users/getUser': json(user), 'GET /api/users/logout': json({ message: 'Logged out' }), ...extra });
  const view = renderApp({ route, routes: appRoutes(table), ...signedIn(user) });
  return { api, ...view };
}

const sidebar = async () => {
  await waitFor(() => expect(document.querySelector('.app-sidebar')).not.toBeNull());
  return document.querySelector<HTMLElement>('.app-sidebar')!;
};

describe('app shell', () => {
  it('frames a signed-in page with the sidebar, marking the current page, and no marketing navbar or footer', async () => {
    open('/my-account');
    await screen.findByRole('heading', { level: 1, name: 'Welcome' });
    const nav = await sidebar();
    const links = within(nav).getAllByRole('link');
    expect(links.map((a) => a.textContent)).toEqual(['Dashboard', 'Portfolio', 'History', 'Deposit', 'Withdraw', 'Referrals', 'Profile']);
    expect(within(nav).getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).toBe('page');
    expect(within(nav).getByRole('link', { name: 'Profile' }).getAttribute('aria-current')).toBeNull();
    expect(within(nav).queryByText('Staff')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Menu' })).toBeNull();
    expect(screen.queryByRole('navigation', { name: 'Footer' })).toBeNull();
    expect(document.querySelector('main')?.dataset.layout).toBe('app');
  });

  it('keeps Deposit, Invest and Withdraw one tap away in the top bar', async () => {
    open('/user-profile');
    await sidebar();
    const actions = screen.getByRole('list', { name: 'Money' });
    expect(within(actions).getAllByRole('link').map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Deposit', '/deposit-payment'],
      ['Invest', '/start-invest'],
      ['Withdraw', '/withdraw-wallet'],
    ]);
  });

  it('holds Profile and Log out in the account menu, which Escape closes with focus back on its button', async () => {
    const user = userEvent.setup();
    open('/my-account');
    const toggle = await screen.findByRole('button', { name: /^Account menu:\s*Ada Lovelace$/ });
    const panel = document.getElementById(toggle.getAttribute('aria-controls')!)!;
    expect(panel.hidden).toBe(true);
    await user.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(within(panel).getByRole('link', { name: 'Profile' }).getAttribute('href')).toBe('/user-profile');
    expect(within(panel).getByLabelText('Language')).toBeTruthy();
    within(panel).getByRole('button', { name: 'Log out' }).focus();
    await user.keyboard('{Escape}');
    expect(panel.hidden).toBe(true);
    expect(document.activeElement).toBe(toggle);

    await user.click(toggle);
    await user.click(within(panel).getByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeTruthy();
    expect(document.querySelector('main')?.dataset.layout).toBe('site');
  });

  it('closes the account menu on a click elsewhere', async () => {
    const user = userEvent.setup();
    open('/my-account');
    const toggle = await screen.findByRole('button', { name: /Account menu/ });
    await user.click(toggle);
    await user.click(screen.getByRole('heading', { level: 1, name: 'Welcome' }));
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
  });

  it('gives staff every queue with its pending count from the server', async () => {
    open('/admin-pending-deposit', makeUser({ role: 'author' }), {
      'GET /api/staff/queue-counts': json({ deposits: 3, withdrawals: 0, investments: 2, identityChecks: 1, approvals: 4, supportTickets: 5, testimonials: 0 }),
    });
    await screen.findByRole('heading', { level: 1, name: 'Pending Deposits' });
    const nav = await sidebar();
    const group = within(nav).getByRole('group', { name: 'Staff' });
    await waitFor(() => expect(within(group).getByRole('link', { name: /^Deposits/ }).textContent).toBe('Deposits3 (3 waiting)'));
    const count = (name: RegExp) => within(group).getByRole('link', { name }).getAttribute('data-count');
    expect([count(/^Deposits/), count(/^Withdrawals/), count(/^Investments/), count(/^Identity checks/), count(/^Second approvals/)]).toEqual(['3', '0', '2', '1', '4']);
    expect(within(group).getByRole('link', { name: /^Withdrawals/ }).textContent).toBe('Withdrawals');
    expect(within(group).getByRole('link', { name: /^Deposits/ }).getAttribute('aria-current')).toBe('page');
    expect(within(group).getByRole('link', { name: 'Users' }).getAttribute('href')).toBe('/user-profile?tab=users');
    expect(within(group).getByRole('link', { name: /^Support/ }).getAttribute('data-count')).toBe('5');
    for (const name of ['Testimonials', 'E-mail']) expect(within(group).getByRole('link', { name })).toBeTruthy();
  });

  it('does not ask an investor\u2019s browser for the staff queue counts', async () => {
    const { api } = open('/my-account');
    await sidebar();
    expect(api.to('GET /api/staff/queue-counts')).toHaveLength(0);
  });

  it('opens the account sheet from the bottom bar with the rest of the destinations and Log out', async () => {
    const user = userEvent.setup();
    open('/my-account');
    await sidebar();
    const bottom = document.querySelector<HTMLElement>('.app-bottom-bar')!;
    expect(within(bottom).getAllByRole('link').map((a) => a.textContent)).toEqual(['Home', 'Portfolio', 'History']);
    await user.click(within(bottom).getByRole('button', { name: 'More' }));
    const sheet = await screen.findByRole('dialog', { name: 'Account' });
    expect(within(sheet).getAllByRole('link').map((a) => a.textContent)).toEqual(['Deposit', 'Withdraw', 'Referrals', 'Profile']);
    expect(within(sheet).getByRole('button', { name: 'Log out' })).toBeTruthy();
    await user.click(within(sheet).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog', { name: 'Account' })).toBeNull();
  });
});

describe('marketing frame', () => {
  it('stays for visitors, with the navbar and footer', async () => {
    stubApi({});
    renderApp({ route: '/our-story', routes: appRoutes(table), ...signedOut() });
    await screen.findByRole('heading', { level: 1, name: 'About Us' });
    expect(screen.getByRole('navigation', { name: 'Main' }).querySelector('.nav__brand')).not.toBeNull();
    expect(document.querySelector('.app-shell')).toBeNull();
    expect(document.querySelector('main')?.dataset.layout).toBe('site');
  });
});

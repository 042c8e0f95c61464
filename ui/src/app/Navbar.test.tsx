import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../test/stubApi';

function menuParts() {
  const toggle = screen.getByRole('button', { name: 'Menu' });
  const menuId = toggle.getAttribute('aria-controls');
  const menu = menuId ? document.getElementById(menuId) : null;
  if (!menu) throw new Error('menu button does not control an element');
  return { toggle, menu };
}

describe('mobile menu', () => {
  it('opens and closes with the button', async () => {
    const user = userEvent.setup();
    renderApp();
    const { toggle, menu } = menuParts();
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(menu.dataset.open).toBe('false');

    await user.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(menu.dataset.open).toBe('true');

    await user.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
  });

  it('closes on Escape and gives focus back to the button', async () => {
    const user = userEvent.setup();
    renderApp();
    const { toggle, menu } = menuParts();

    await user.click(toggle);
    await user.tab();
    expect(menu.contains(document.activeElement)).toBe(true);
    await user.keyboard('{Escape}');

    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(menu.dataset.open).toBe('false');
    expect(document.activeElement).toBe(toggle);
  });

  it('closes when a link is followed', async () => {
    const user = userEvent.setup();
    renderApp();
    const { toggle, menu } = menuParts();

    await user.click(toggle);
    await user.click(within(menu).getByRole('link', { name: 'How It Works' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'How It Works' })).toBeTruthy();
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
  });

  it('closes when keyboard focus leaves it', async () => {
    const user = userEvent.setup();
    renderApp();
    const { toggle, menu } = menuParts();

    await user.click(toggle);
    const links = within(menu).getAllByRole('link');
    for (let i = 0; i <= links.length; i++) await user.tab();

    expect(menu.contains(document.activeElement)).toBe(false);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
  });
});

describe('navbar', () => {
  const mainLinks = () =>
    within(screen.getByRole('navigation', { name: 'Main' }))
      .getAllByRole('link')
      .map((a) => a.textContent);

  it('shows a visitor the public pages and Sign In, with the logo leading home', () => {
    renderApp();

    const [home] = within(screen.getByRole('navigation', { name: 'Main' })).getAllByRole('link');
    if (!home) throw new Error('the navbar has no links');
    expect(home.getAttribute('href')).toBe('/');
    expect(home.textContent).toBe('Clearvest');
    expect(mainLinks()).toContain('Sign In');
    expect(mainLinks()).not.toContain('Dashboard');
    expect(screen.queryByRole('button', { name: 'Logout' })).toBeNull();
  });

  it('shows a signed-in user on the home page the public pages and the way into their account, but no Log out', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser({ role: 'admin' })) });
    renderApp({ ...signedIn(makeUser({ role: 'admin' })) });

    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(await within(nav).findByRole('link', { name: 'My account' })).toBeTruthy();
    expect(within(nav).getByRole('link', { name: 'My account' }).getAttribute('href')).toBe('/my-account');
    expect(mainLinks()).toEqual(
      expect.arrayContaining(['Portfolio Plans', 'About Us', 'Help Center', 'How It Works', 'Current Rates']),
    );
    // The signed-in pages live in the app shell, Log out in its account menu.
    for (const name of ['Sign In', 'Dashboard', 'Profile', 'Send Email']) expect(mainLinks()).not.toContain(name);
    expect(screen.queryByRole('button', { name: /log ?out/i })).toBeNull();
  });
});

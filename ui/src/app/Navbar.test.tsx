import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../test/renderWithProviders';

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
    const { toggle } = menuParts();

    await user.click(toggle);
    await user.click(screen.getByRole('link', { name: 'How It Works' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'How It Works' })).toBeTruthy();
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
  });
});

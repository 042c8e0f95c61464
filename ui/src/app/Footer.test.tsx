import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../test/renderWithProviders';
import { json, signedIn, stubApi } from '../test/stubApi';

const linksOf = (name: string) =>
  within(screen.getByRole('navigation', { name }))
    .getAllByRole('link')
    .map((a) => [a.textContent, a.getAttribute('href')]);

describe('footer', () => {
  it('links the public pages and the company pages, and carries the risk line', () => {
    renderApp();
    const footer = screen.getByRole('contentinfo');

    expect(linksOf('Explore')).toEqual([
      ['Portfolio Plans', '/investment-plans'],
      ['How It Works', '/how-it-works'],
      ['Current Rates', '/market-rates'],
    ]);
    expect(linksOf('Footer')).toEqual([
      ['About Us', '/our-story'],
      ['Help Center', '/support'],
      ['Privacy Policy', '/privacy-policy'],
      ['License', '/license'],
    ]);
    expect(footer.textContent).toMatch(/you can lose money/i);
    expect(within(footer).getByRole('link', { name: 'Clearvest' }).getAttribute('href')).toBe('/');
  });

  it('offers the language switcher under the tagline', () => {
    renderApp();
    const slot = screen.getByRole('contentinfo').querySelector<HTMLElement>('.footer__locale');
    expect(slot).not.toBeNull();
    expect(within(slot!).getByRole('combobox', { name: 'Language' })).toBeTruthy();
  });

  it('links a signed-in user to their dashboard, and never to Sign In', async () => {
    stubApi({ 'GET /api/users/getUser': json({}) });
    renderApp({ ...signedIn() });

    const links = linksOf('Explore').map(([label]) => label);
    expect(links).toContain('Dashboard');
    expect(links).not.toContain('Sign In');
  });

  it('has a live-chat slot beside it that shows nothing until a widget mounts there', () => {
    renderApp();
    const slot = document.getElementById('chat-slot');
    expect(slot).not.toBeNull();
    expect(slot?.childElementCount).toBe(0);
  });
});

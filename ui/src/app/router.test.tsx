import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../test/stubApi';
import { AppRoutes } from './AppRoutes';

describe('routes', () => {
  it('shows the home page with the main navigation and a risk notice', () => {
    renderWithProviders(<AppRoutes />, { route: '/' });

    expect(screen.getByRole('heading', { level: 1, name: /fixed-term crypto savings plans/i })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const links = within(nav)
      .getAllByRole('link')
      .map((a) => [a.textContent, a.getAttribute('href')]);
    expect(links).toEqual([
      ['Clearvest', '/'],
      ['Portfolio Plans', '/investment-plans'],
      ['About Us', '/our-story'],
      ['Help Center', '/support'],
      ['How It Works', '/how-it-works'],
      ['Current Rates', '/market-rates'],
      ['Sign In', '/login'],
    ]);
    expect(screen.getByRole('heading', { name: 'Know the risks' })).toBeTruthy();
    expect(document.title).toBe('Clearvest');
  });

  it('shows the 404 page for an unknown path, and its link leads home', async () => {
    const user = userEvent.setup();
    renderWithProviders(<AppRoutes />, { route: '/definitely-missing' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
    // Lazy pages commit outside act(), so the title effect may land just after the heading.
    await waitFor(() => expect(document.title).toBe('Page not found · Clearvest'));
    const back = screen.getByRole('link', { name: 'Back to home' });
    expect(back.getAttribute('href')).toBe('/');

    await user.click(back);

    expect(screen.getByRole('heading', { level: 1, name: /fixed-term crypto savings plans/i })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Page not found' })).toBeNull();
  });

  it.each([
    ['/Hierarchy', 'Member Levels'],
    ['/how-it-works', 'How It Works'],
  ])('shows "Coming soon" for the planned public route %s', async (route, title) => {
    renderWithProviders(<AppRoutes />, { route });

    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeTruthy();
    expect(screen.getByText('Coming soon')).toBeTruthy();
    expect(screen.queryByText('Page not found')).toBeNull();
    await waitFor(() => expect(document.title).toBe(`${title} · Clearvest`));
  });

  it.each([
    ['/investment/inv-123', 'Investment Details'],
    ['/transaction-History', 'Transaction History'],
  ])('shows "Coming soon" for the planned account route %s when signed in', async (route, title) => {
    stubApi({ 'GET /api/users/loginStatus': json(true), 'GET /api/users/getUser': json(makeUser()) });
    renderWithProviders(<AppRoutes />, { route, preloadedState: signedIn() });

    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeTruthy();
    expect(screen.getByText('Coming soon')).toBeTruthy();
    expect(screen.queryByText('Page not found')).toBeNull();
    await waitFor(() => expect(document.title).toBe(`${title} · Clearvest`));
  });

  it('shows the server version in the footer when /api/meta answers', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ product: 'Clearvest', version: '1.2.3', environment: 'production' })),
    );
    renderWithProviders(<AppRoutes />, { route: '/' });

    expect((await screen.findByTestId('app-version')).textContent).toContain('1.2.3');
  });

  it('leaves the version out when /api/meta fails', async () => {
    const { store } = renderWithProviders(<AppRoutes />, { route: '/' });

    await vi.waitFor(() => expect(store.getState().api.queries['getMeta(undefined)']?.status).toBe('rejected'));
    const footer = screen.getByRole('contentinfo');
    expect(footer.textContent).not.toMatch(/version/i);
  });
});

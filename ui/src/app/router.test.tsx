import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../test/renderWithProviders';
import { json, makeUser, signedIn, signedOut, stubApi } from '../test/stubApi';
import { browserPage } from './pageLoader';
import { appRoutes } from './router';
import { labelOf, menuLinks, pages, type Menu, type PageRoute, type Viewer } from './routes';

describe('routes', () => {
  it('shows the home page with the main navigation and a risk notice', () => {
    renderApp({ route: '/' });

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
    renderApp({ route: '/definitely-missing' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
    // Lazy pages commit outside act(), so the title effect may land just after the heading.
    await waitFor(() => expect(document.title).toBe('Page not found · Clearvest'));
    const back = screen.getByRole('link', { name: 'Back to home' });
    expect(back.getAttribute('href')).toBe('/');

    await user.click(back);

    expect(screen.getByRole('heading', { level: 1, name: /fixed-term crypto savings plans/i })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Page not found' })).toBeNull();
  });

  it('shows the server version in the footer when /api/meta answers', async () => {
    stubApi({ 'GET /api/meta': json({ product: 'Clearvest', version: '1.2.3', environment: 'production' }) });
    renderApp({ route: '/' });

    expect((await screen.findByTestId('app-version')).textContent).toContain('1.2.3');
  });

  it('leaves the version out when /api/meta fails', async () => {
    const { store } = renderApp({ route: '/' });

    await vi.waitFor(() => expect(store.getState().api.queries['getMeta(undefined)']?.status).toBe('rejected'));
    const footer = screen.getByRole('contentinfo');
    expect(footer.textContent).not.toMatch(/version/i);
  });
});

describe('route table', () => {
  const linkTexts = (container: HTMLElement) =>
    within(container)
      .getAllByRole('link')
      .map((a) => [a.getAttribute('href') ?? '', a.textContent ?? ''] as const);

  it('names every page the same in the navbar and the footer, as the table does', async () => {
    stubApi({
      'GET /api/users/loginStatus': json(false),
      'GET /api/meta': json({ product: 'Clearvest', version: 'test', environment: 'development' }),
    });
    renderApp({ route: '/', ...signedOut() });
    await screen.findByRole('link', { name: 'Development mailbox' });

    const shown = [
      ...linkTexts(screen.getByRole('navigation', { name: 'Main' })),
      ...linkTexts(screen.getByRole('navigation', { name: 'Footer' })),
    ].filter(([href]) => href !== '/');
    expect(shown.length).toBeGreaterThan(8);
    for (const [href, text] of shown) {
      const page = pages.find((p) => p.path === href);
      expect(page, `${href} is in the route table`).toBeDefined();
      expect(text, `the link to ${href}`).toBe(labelOf(page!));
    }
  });

  it('lists in each menu exactly the pages the table puts there, for each kind of visitor', () => {
    const paths = (menu: Menu, viewer: Viewer) => menuLinks(menu, viewer).map((l) => l.to);
    const guest = { signedIn: false };
    const subscriber = { signedIn: true, role: 'subscriber' as const };
    const admin = { signedIn: true, role: 'admin' as const };

    expect(paths('main', guest)).toEqual(['/investment-plans', '/our-story', '/support', '/how-it-works', '/market-rates', '/login']);
    expect(paths('main', subscriber)).toEqual(['/my-account', '/investment-plans', '/our-story', '/support', '/how-it-works', '/market-rates', '/user-profile']);
    expect(paths('main', admin)).toContain('/compose-email');
    expect(paths('staff', subscriber)).toEqual([]);
    expect(paths('staff', admin)).toEqual(['/admin-pending-wallet', '/admin-pending-deposit', '/approvals', '/admin-pending-investment', '/pending-kyc', '/pending-testimonials', '/support-tickets', '/audit', '/settings']);
    expect(paths('staff', { signedIn: true, role: 'author' })).not.toContain('/settings');
    expect(paths('footer', guest)).not.toContain('/dev/mail');
    expect(paths('footer', { ...guest, development: true })).toContain('/dev/mail');
  });

  it('keeps admin pages from authors, and staff pages from subscribers', async () => {
    stubApi({ 'GET /api/users/getUser': json(makeUser({ role: 'author' })) });
    const author = renderApp({ route: '/edit-balance/u1', ...signedIn(makeUser({ role: 'author' })) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(author.router.state.location.pathname).toBe('/my-account');
    author.unmount();

    const subscriber = renderApp({ route: '/pending-kyc', ...signedIn(makeUser({ role: 'subscriber' })) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' })).toBeTruthy();
    expect(subscriber.router.state.location.pathname).toBe('/my-account');
  });
});

describe('route errors', () => {
  const home: PageRoute = { path: '/', access: 'public', page: { component: () => <h1>Home for tests</h1> } };
  const notFound = pages.find((p) => p.path === '*')!;
  const chunkGone = () => Promise.reject(new TypeError('Failed to fetch dynamically imported module: /assets/Broken-abc123.js'));

  it('reloads the page once when a page cannot be loaded, then shows the error page', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const reload = vi.spyOn(browserPage, 'reload').mockImplementation(() => {});
    const table = [home, { path: '/broken', title: 'Broken', access: 'public' as const, page: chunkGone }, notFound];

    // Following a link to the page: the failed navigation still moves the address there, so the
    // reload opens the page the visitor asked for.
    const first = renderApp({ route: '/', routes: appRoutes(table) });
    await act(() => first.router.navigate('/broken'));
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    expect(first.router.state.location.pathname).toBe('/broken');
    // The page is about to go; nothing claims it failed yet.
    expect(screen.queryByRole('heading', { name: 'Something went wrong' })).toBeNull();
    first.unmount();

    // The reloaded page fails the same way: no second reload, the error page instead.
    const user = userEvent.setup();
    renderApp({ route: '/broken', routes: appRoutes(table) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Something went wrong' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('This page could not be loaded');
    expect(reload).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Something went wrong · Clearvest'));

    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(reload).toHaveBeenCalledTimes(2);

    await user.click(screen.getByRole('link', { name: 'Back to home' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Home for tests' })).toBeTruthy();
  });

  it('forgets the reload once a page loads, so a later failure may reload again', async () => {
    const reload = vi.spyOn(browserPage, 'reload').mockImplementation(() => {});
    const fine: PageRoute = { path: '/fine', title: 'Fine', access: 'public', page: async () => () => <h1>Fine page</h1> };
    const table = [home, fine, { path: '/broken', title: 'Broken', access: 'public' as const, page: chunkGone }, notFound];

    const first = renderApp({ route: '/broken', routes: appRoutes(table) });
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    first.unmount();
    const second = renderApp({ route: '/fine', routes: appRoutes(table) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Fine page' })).toBeTruthy();
    second.unmount();

    renderApp({ route: '/broken', routes: appRoutes(table) });
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(2));
  });

  it('shows the error page inside the layout when a page fails while rendering', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const Broken = () => {
      throw new Error('render failed');
    };
    const table = [home, { path: '/crash', title: 'Crash', access: 'public' as const, page: { component: Broken } }, notFound];
    renderApp({ route: '/crash', routes: appRoutes(table) });

    expect(await screen.findByRole('heading', { level: 1, name: 'Something went wrong' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain('ran into a problem');
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to home' }).getAttribute('href')).toBe('/');
  });
});

import { startTransition, StrictMode, useEffect, type ReactNode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { createBrowserRouter, matchRoutes, RouterProvider, type RouteObject } from 'react-router';
import { appRoutes } from './app/router';
import { makeStore } from './app/store';
import { startLanguage } from './i18n';
import './styles/index.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// The marketing pages arrive rendered (scripts/prerender.mjs); every other page arrives with only
// the start-up loader (index.html) in #root.
const prerendered = root.firstElementChild !== null && !root.firstElementChild.classList.contains('boot');

// Hydration must render exactly the markup the server sent. The router would show its loading
// fallback until a lazy page's code arrived, so the pages on the current path are loaded first and
// put in place of their lazy definitions.
async function loadCurrentPages(routes: RouteObject[]) {
  const lazy = (matchRoutes(routes, window.location) ?? []).map(({ route }) => route).filter((route) => route.lazy);
  await Promise.all(
    lazy.map(async (route) => {
      if (typeof route.lazy !== 'function') return;
      const loaded = await route.lazy();
      Object.assign(route, { ...loaded, lazy: undefined });
    }),
  );
}

// Says when the app has taken over the page (hydrated or rendered): <html data-app="ready">.
// Browser tests wait for it before using a prerendered page's controls. A prerendered page is
// English, so the reader's language is started only once hydration has matched it.
function Ready({ children, hydrated }: { children: ReactNode; hydrated: boolean }) {
  useEffect(() => {
    document.documentElement.dataset.app = 'ready';
    if (hydrated) void startLanguage();
  }, [hydrated]);
  return children;
}

async function start(container: HTMLElement) {
  const routes = appRoutes();
  let hydrate = prerendered;
  // A page whose code cannot be fetched is rendered afresh instead: the router then shows the
  // error page that offers a reload.
  if (hydrate) hydrate = await loadCurrentPages(routes).then(() => true, () => false);
  // Any other page waits for the reader's language (a saved choice or the browser's), so a German
  // reader never sees it flash in English; English needs no wait, its texts are bundled.
  if (!hydrate) await startLanguage().catch(() => undefined);
  const app = (
    <StrictMode>
      <Ready hydrated={hydrate}>
        <Provider store={makeStore()}>
          <RouterProvider router={createBrowserRouter(routes)} />
        </Provider>
      </Ready>
    </StrictMode>
  );
  // As a transition, hydration yields to the browser every few milliseconds instead of holding the
  // main thread until the whole page is interactive; the page is already visible meanwhile.
  if (hydrate) startTransition(() => void hydrateRoot(container, app));
  else createRoot(container).render(app);
}

void start(root);

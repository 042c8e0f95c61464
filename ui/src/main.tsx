import { StrictMode, useEffect, type ReactNode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { createBrowserRouter, matchRoutes, RouterProvider, type RouteObject } from 'react-router';
import { hydrateInParts, nextTask, whenHydrated } from './app/hydration';
import { loadPreloaded } from './app/preloaded';
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

// Says when the app has taken over the page (hydrated or rendered, including the parts hydrated
// later): <html data-app="ready">. Browser tests wait for it before using a prerendered page's
// controls. A prerendered page is English, so the reader's language is started only once
// hydration has matched it.
function Ready({ children, hydrated }: { children: ReactNode; hydrated: boolean }) {
  useEffect(() => {
    void whenHydrated().then(() => {
      document.documentElement.dataset.app = 'ready';
      if (hydrated) void startLanguage();
    });
  }, [hydrated]);
  return children;
}

async function start(container: HTMLElement) {
  const routes = appRoutes();
  let hydrate = prerendered;
  // A page whose code cannot be fetched is rendered afresh instead: the router then shows the
  // error page that offers a reload.
  if (hydrate) hydrate = await loadCurrentPages(routes).then(() => true, () => false);
  // Evaluating the modules is one task; setting up the store and the router, and then the first
  // hydration pass, are tasks of their own, so that none of them holds the main thread for long.
  if (hydrate) await nextTask();
  // Any other page waits for the reader's language (a saved choice or the browser's), so a German
  // reader never sees it flash in English; English needs no wait, its texts are bundled.
  else await startLanguage().catch(() => undefined);
  const store = makeStore();
  loadPreloaded(store);
  const app = (
    <StrictMode>
      <Ready hydrated={hydrate}>
        <Provider store={store}>
          <RouterProvider router={createBrowserRouter(routes)} />
        </Provider>
      </Ready>
    </StrictMode>
  );
  // The page is already visible while it hydrates. Preact hydrates in one synchronous pass, so the
  // parts further down the page (HydrateLater) follow in tasks of their own (app/hydration.tsx).
  if (hydrate) {
    await nextTask();
    hydrateInParts(() => hydrateRoot(container, app));
  } else createRoot(container).render(app);
}

void start(root);

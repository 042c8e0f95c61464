import { render, type RenderOptions } from '@testing-library/react';
import { StrictMode, type ReactElement, type ReactNode } from 'react';
import { Provider } from 'react-redux';
import { createMemoryRouter, MemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { api, type User } from '../api/enhanced';
import { appRoutes } from '../app/router';
import { makeStore, type AppStore, type RootState } from '../app/store';

interface StoreOptions {
  preloadedState?: Partial<RootState>;
  store?: AppStore;
  // The signed-in user, put into the getUser query's cache as if the server had answered.
  user?: User;
}

function storeFor({ preloadedState, store = makeStore(preloadedState), user }: StoreOptions) {
  if (user) store.dispatch(api.util.upsertQueryEntries([{ endpointName: 'getUser', arg: {}, value: user }]));
  return store;
}

interface Options extends StoreOptions, Omit<RenderOptions, 'wrapper'> {
  route?: string;
}

// A component on its own, with a real store and a router at `route`.
export function renderWithProviders(ui: ReactElement, { route = '/', preloadedState, store, user, ...options }: Options = {}) {
  const realStore = storeFor({ preloadedState, store, user });
  function Wrapper({ children }: { children: ReactNode }) {
    return (
      <Provider store={realStore}>
        <MemoryRouter initialEntries={[route]}>{children}</MemoryRouter>
      </Provider>
    );
  }
  return { store: realStore, ...render(ui, { wrapper: Wrapper, ...options }) };
}

// The whole app as main.tsx mounts it (the route table, guards, layout and error pages), on a
// memory history at `route`.
interface AppOptions extends StoreOptions {
  route?: string;
  routes?: RouteObject[];
  // Under React's StrictMode, as main.tsx runs it (effects run twice in development).
  strict?: boolean;
}

export function renderApp({ route = '/', routes = appRoutes(), preloadedState, store, user, strict = false }: AppOptions = {}) {
  const realStore = storeFor({ preloadedState, store, user });
  const router = createMemoryRouter(routes, { initialEntries: [route] });
  const app = (
    <Provider store={realStore}>
      <RouterProvider router={router} />
    </Provider>
  );
  const view = render(strict ? <StrictMode>{app}</StrictMode> : app);
  return { store: realStore, router, ...view };
}

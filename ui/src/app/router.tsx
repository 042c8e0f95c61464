import { Outlet, type RouteObject } from 'react-router';
import { Spinner } from '../components/Spinner';
import { usePageTitle } from '../components/usePageTitle';
import { useTranslation } from '../i18n';
import { RequireAuth, RequireGuest, RequireRole } from '../features/auth/guards';
import { useCurrentPage, type PageHandle } from './currentPage';
import { Layout } from './Layout';
import { loadPage } from './pageLoader';
import { usePageNames } from './pageNames';
import { RouteError } from './RouteError';
import { pages, rolesFor, type Access, type PageRoute } from './routes';

// Sets the document title from the route table, for whichever page is showing, in the reader's
// language.
function PageFrame() {
  const page = useCurrentPage();
  const names = usePageNames();
  usePageTitle(page ? names.title(page) : undefined);
  return <Outlet />;
}

// What shows while the first page's code loads.
function PageLoading() {
  const { t } = useTranslation();
  return <Spinner label={t('routeError.loading')} />;
}

function pageRoute(page: PageRoute): RouteObject {
  const handle: PageHandle = { page };
  const path = page.path === '/' ? undefined : page.path;
  const base = page.path === '/' ? { index: true as const, handle } : { path, handle };
  if ('component' in page.page) return { ...base, Component: page.page.component };
  const load = page.page;
  return { ...base, lazy: async () => ({ Component: await loadPage(load) }) };
}

// The route objects of the app, built from the route table: each access level is wrapped in its
// guard, and errors below the layout show the error page inside it (with the navigation still
// there); an error in the layout itself shows the error page alone.
export function appRoutes(table: readonly PageRoute[] = pages): RouteObject[] {
  const withAccess = (access: Access) => table.filter((page) => page.access === access).map(pageRoute);
  const roleGuarded = (access: 'staff' | 'admin'): RouteObject => ({
    element: <RequireRole roles={rolesFor(access) ?? []} />,
    children: withAccess(access),
  });
  return [
    {
      element: <Layout />,
      errorElement: <RouteError />,
      children: [
        {
          Component: PageFrame,
          errorElement: <RouteError />,
          hydrateFallbackElement: <PageLoading />,
          children: [
            ...withAccess('public'),
            { element: <RequireGuest />, children: withAccess('guest') },
            {
              element: <RequireAuth />,
              children: [...withAccess('signedIn'), roleGuarded('staff'), roleGuarded('admin')],
            },
          ],
        },
      ],
    },
  ];
}

import { renderToString } from 'react-dom/server';
import { Provider } from 'react-redux';
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router';
import { appRoutes } from './app/router';
import { pages } from './app/routes';
import { makeStore } from './app/store';

// The build's server entry (vite build --ssr), run only by scripts/prerender.mjs: it renders the
// marketing pages to HTML with the same routes, layout and store the browser uses. Nothing is
// fetched while rendering (queries start in effects, which do not run here), so data-backed parts
// come out in their loading state, exactly as the browser's first render shows them; that is what
// lets the browser hydrate the markup instead of replacing it.

export { fillTemplate, headFor, isPrerendered, robots, routeManifest, sitemap } from './app/prerender';
export { pages };

export async function render(path: string): Promise<string> {
  const handler = createStaticHandler(appRoutes());
  const context = await handler.query(new Request(`http://prerender.invalid${path}`));
  if (context instanceof Response) throw new Error(`${path} answers ${context.status} instead of a page`);
  if (context.errors) throw new Error(`${path} failed to render: ${JSON.stringify(context.errors)}`);
  if (context.statusCode !== 200) throw new Error(`${path} renders with status ${context.statusCode}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToString(
    <Provider store={makeStore()}>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </Provider>,
  );
}

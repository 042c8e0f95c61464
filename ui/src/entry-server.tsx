import { renderToString } from 'react-dom/server';
import { Provider } from 'react-redux';
import { createStaticHandler, createStaticRouter, StaticRouter, StaticRouterProvider } from 'react-router';
import { api } from './api/enhanced';
import type { Plan, PlanList } from './api/generated';
import { appRoutes } from './app/router';
import { pages } from './app/routes';
import { makeStore } from './app/store';
import { PlanCard, PlanCardTemplate } from './features/plans/PlansPage';
import { i18n } from './i18n';

// The build's server entry (vite build --ssr), run only by scripts/prerender.mjs: it renders the
// marketing pages to HTML with the same routes, layout and store the browser uses. Nothing is
// fetched while rendering (queries start in effects, which do not run here), so data-backed parts
// come out in their loading state, exactly as the browser's first render shows them; that is what
// lets the browser hydrate the markup instead of replacing it. A page given its data (`preloaded`)
// renders with it, as the browser does when the server sent that data along (app/preloaded.ts).

export { fillTemplate, headFor, isPrerendered, robots, routeManifest, sitemap } from './app/prerender';
export { PRELOADED_ID } from './app/preloaded';
export { pages };

export interface PreloadedQuery {
  endpointName: 'listPlans';
  arg: undefined;
  value: PlanList;
}

export async function render(path: string, preloaded: PreloadedQuery[] = []): Promise<string> {
  const handler = createStaticHandler(appRoutes());
  const context = await handler.query(new Request(`http://prerender.invalid${path}`));
  if (context instanceof Response) throw new Error(`${path} answers ${context.status} instead of a page`);
  if (context.errors) throw new Error(`${path} failed to render: ${JSON.stringify(context.errors)}`);
  if (context.statusCode !== 200) throw new Error(`${path} renders with status ${context.statusCode}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  const store = makeStore();
  store.dispatch(api.util.upsertQueryEntries(preloaded));
  return renderToString(
    <Provider store={store}>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </Provider>,
  );
}

// One plan card: a plan's, or without one the template with a token for each part
// (PLAN_CARD_TOKENS), for the server to fill with each plan of its catalogue.
export function renderPlanCard(plan?: Plan): string {
  return renderToString(
    <Provider store={makeStore()}>
      <StaticRouter location="/investment-plans">{plan ? <PlanCard plan={plan} /> : <PlanCardTemplate />}</StaticRouter>
    </Provider>,
  );
}

// A plan's term in words, with {count} for the number of days: one form for a single day and one
// for any other number (English has no other plural forms, and the served page is English).
export function planTermWords(): { one: string; other: string } {
  const form = (count: number) => i18n.t('days', { ns: 'plans', count }).replace(String(count), '{count}');
  return { one: form(1), other: form(7) };
}

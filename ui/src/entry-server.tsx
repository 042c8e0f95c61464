import type { ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import { Provider } from 'react-redux';
import { createStaticHandler, createStaticRouter, StaticRouter, StaticRouterProvider } from 'react-router';
import { api } from './api/enhanced';
import type { BadgeLevel, BadgeName, ContentHowItWorks, Plan } from './api/generated';
import { appRoutes } from './app/router';
import { pages } from './app/routes';
import { makeStore } from './app/store';
import { Criteria, CriteriaView, LevelCard, LevelCardView } from './features/community/HierarchyPage';
import { contentIconNames, ContentIcon } from './features/content/ContentIcon';
import { HowItWorksContent, HowItWorksView, StepView } from './features/content/HowItWorksPage';
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

// A query's answer as the app's store holds it (app/preloaded.ts).
export interface PreloadedQuery {
  endpointName: string;
  arg: undefined;
  value: unknown;
}

export async function render(path: string, preloaded: PreloadedQuery[] = []): Promise<string> {
  const handler = createStaticHandler(appRoutes());
  const context = await handler.query(new Request(`http://prerender.invalid${path}`));
  if (context instanceof Response) throw new Error(`${path} answers ${context.status} instead of a page`);
  if (context.errors) throw new Error(`${path} failed to render: ${JSON.stringify(context.errors)}`);
  if (context.statusCode !== 200) throw new Error(`${path} renders with status ${context.statusCode}`);
  const router = createStaticRouter(handler.dataRoutes, context);
  const store = makeStore();
  store.dispatch(api.util.upsertQueryEntries(preloaded as Parameters<typeof api.util.upsertQueryEntries>[0]));
  const html = renderToString(
    <Provider store={store}>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </Provider>,
  );
  // The entries were given unused, so each started its cache timer (up to minutes); clearing the
  // store stops them, and the build's Node process ends when its work does.
  store.dispatch(api.util.resetApiState());
  return html;
}

// Pages the server serves filled with its current data (api/livepages.go, docs/public-site.md):
// each shows the answer of one query, which the build cannot know. For each, what the build needs
// to write the templates the server fills:
//   query    the API query whose answer the page shows (its endpoint name)
//   sample   an answer to render the page with, so the place of the answer's markup can be found
//   empty    an answer with nothing to show (the page then shows its empty state)
//   markup   the markup the sample answer puts in the page, rendered on its own; the server puts
//            the markup of its own answer there
//   parts    the templates the server builds that markup from, a token (__NAME__) for each value
//   counts   words for a count in the served language (English), {count} standing for the number:
//            one form for a single one and one for any other number
export interface LivePage {
  query: string;
  sample: unknown;
  empty: unknown;
  markup: ReactElement;
  parts: Record<string, ReactElement>;
  counts: Record<string, (count: number) => string>;
}

// Never served: the server puts its own plans, levels and steps in their place.
const samplePlan: Plan = {
  _id: '00000000-0000-7000-8000-000000000000',
  name: 'Sample',
  min: '100.00',
  max: '1000.00',
  termDays: 30,
  termRate: '0.0040',
  apr: '4.87',
  version: 1,
  example: { amount: '100.00', return: '0.40', payout: '100.40', maturityDays: 30 },
};
const sampleLevel: BadgeLevel = { name: 'leader', minInvested: '1000.00', minReferrals: 2 };
const sampleSteps: ContentHowItWorks = {
  intro: 'Sample intro',
  steps: [{ id: 'sample', title: 'Sample step', icon: 'user', descriptionHtml: '<p>Sample description</p>', link: '/register' }],
};
const badgeNames = ['member', 'leader', 'expert', 'master'] as const satisfies readonly BadgeName[];
// A step's template: the link is an absolute path on this site (platform/sitecontent checks it).
const stepTemplate = (link: boolean) => (
  <StepView
    parts={{
      icon: '__STEP_ICON__',
      title: '__STEP_TITLE__',
      descriptionHtml: '__STEP_DESCRIPTION__',
      link: link ? { to: '/__STEP_LINK__', text: i18n.t('content.goTo', { step: '__STEP_LINK_NAME__' }) } : undefined,
    }}
  />
);

export const livePages: Record<string, LivePage> = {
  '/investment-plans': {
    query: 'listPlans',
    sample: { plans: [samplePlan] },
    empty: { plans: [] },
    markup: <PlanCard plan={samplePlan} />,
    parts: { card: <PlanCardTemplate /> },
    counts: { days: (count) => i18n.t('days', { ns: 'plans', count }) },
  },
  '/Hierarchy': {
    query: 'listBadges',
    sample: { levels: [sampleLevel] },
    empty: { levels: [] },
    markup: <LevelCard level={sampleLevel} current={false} />,
    parts: {
      ...Object.fromEntries(badgeNames.map((name) => [`level.${name}`, <LevelCardView name={name} criteria="__LEVEL_CRITERIA__" />])),
      'criteria.everyAccount': <Criteria level={{ name: 'member', minInvested: '0.00', minReferrals: 0 }} />,
      criteria: <CriteriaView amount="__LEVEL_AMOUNT__" referrals="__LEVEL_REFERRALS__" />,
    },
    counts: { referrals: (count) => i18n.t('levels.referrals', { ns: 'community', count }) },
  },
  '/how-it-works': {
    query: 'getContentHowItWorks',
    sample: sampleSteps,
    empty: { intro: '', steps: [] },
    markup: <HowItWorksContent data={sampleSteps} />,
    parts: {
      body: <HowItWorksView steps="__HOW_STEPS__" />,
      'body.intro': <HowItWorksView intro="__HOW_INTRO__" steps="__HOW_STEPS__" />,
      step: stepTemplate(false),
      'step.link': stepTemplate(true),
      ...Object.fromEntries(contentIconNames.map((name) => [`icon.${name}`, <ContentIcon name={name} />])),
    },
    counts: {},
  },
};

// Markup of a part of a page, rendered as on that page.
export function renderPart(path: string, element: ReactElement): string {
  return renderToString(
    <Provider store={makeStore()}>
      <StaticRouter location={path}>{element}</StaticRouter>
    </Provider>,
  );
}

// The words for a count, with {count} for the number (English has no other plural forms, and the
// served page is English).
export function countWords(words: (count: number) => string): { one: string; other: string } {
  const form = (count: number) => words(count).replace(String(count), '{count}');
  return { one: form(1), other: form(7) };
}

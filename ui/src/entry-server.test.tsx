import { describe, expect, it } from 'vitest';
import { countWords, livePages, render, renderPart } from './entry-server';

// The server builds the markup of a page served with current data from the templates the build
// writes (api/livepages.go). For the app to hydrate that markup without a change, the templates,
// filled as the server fills them, must give exactly what the app renders for the same answer.
// These fill each page's templates with its sample answer, written as the server writes it.

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function part(path: string, name: string, values: Record<string, string> = {}, raw: Record<string, string> = {}) {
  const element = livePages[path]?.parts[name];
  if (!element) throw new Error(`${path} has no part ${name}`);
  let markup = renderPart(path, element);
  for (const [token, value] of Object.entries(values)) markup = markup.replaceAll(token, escape(value));
  for (const [token, value] of Object.entries(raw)) markup = markup.replace(token, value);
  return markup;
}

function words(path: string, name: string, count: number) {
  const form = livePages[path]?.counts[name];
  if (!form) throw new Error(`${path} has no count ${name}`);
  const { one, other } = countWords(form);
  return (count === 1 ? one : other).replace('{count}', String(count));
}

const sampleMarkup = (path: string) => renderPart(path, livePages[path]!.markup);

describe('templates of the pages served with current data', () => {
  it('fill a plan card exactly as the app renders it', () => {
    const p = '/investment-plans';
    const filled = part(p, 'card', {
      __PLAN_ID__: '00000000-0000-7000-8000-000000000000',
      __PLAN_NAME__: 'Sample',
      __PLAN_MIN__: '$100.00',
      __PLAN_MAX__: '$1,000.00',
      __PLAN_TERM__: words(p, 'days', 30),
      __PLAN_TERM_RATE__: '0.40%',
      __PLAN_APR__: '4.87%',
      __PLAN_EXAMPLE_AMOUNT__: '$100.00',
      __PLAN_EXAMPLE_PAYOUT__: '$100.40',
      __PLAN_EXAMPLE_RETURN__: '$0.40',
      __PLAN_EXAMPLE_TERM__: words(p, 'days', 30),
    });
    expect(filled).toBe(sampleMarkup(p));
  });

  it('fill a member level exactly as the app renders it, for each kind of criteria', () => {
    const p = '/Hierarchy';
    const criteria = part(p, 'criteria', { __LEVEL_AMOUNT__: '$1,000', __LEVEL_REFERRALS__: words(p, 'referrals', 2) });
    expect(part(p, 'level.leader', {}, { __LEVEL_CRITERIA__: criteria })).toBe(sampleMarkup(p));
    expect(part(p, 'criteria.everyAccount')).toBe('<p class="level__criteria">Every Clearvest account</p>');
    for (const name of ['member', 'leader', 'expert', 'master']) expect(part(p, `level.${name}`)).toContain('__LEVEL_CRITERIA__');
  });

  it('fill the steps of How It Works exactly as the app renders them', () => {
    const p = '/how-it-works';
    const step = part(p, 'step.link', { __STEP_TITLE__: 'Sample step', __STEP_LINK_NAME__: 'sample step' }, {
      '/__STEP_LINK__': '/register',
      __STEP_ICON__: part(p, 'icon.user'),
      __STEP_DESCRIPTION__: '<p>Sample description</p>',
    });
    expect(part(p, 'body.intro', { __HOW_INTRO__: 'Sample intro' }, { __HOW_STEPS__: step })).toBe(sampleMarkup(p));
    expect(part(p, 'step')).not.toContain('how-steps__link');
    expect(part(p, 'body')).toBe('<ol class="how-steps">__HOW_STEPS__</ol>');
  });

  it('render each page with its answer, not its loading state, and with its empty state for an empty answer', async () => {
    const loading = { '/investment-plans': 'Loading the plans', '/Hierarchy': 'Loading the levels', '/how-it-works': 'Loading the steps' };
    for (const [path, live] of Object.entries(livePages)) {
      const withSample = await render(path, [{ endpointName: live.query, arg: undefined, value: live.sample }]);
      expect(withSample.split(sampleMarkup(path)).length - 1, path).toBe(1);
      expect(withSample, path).not.toContain(loading[path as keyof typeof loading]);
      expect(await render(path), path).toContain(loading[path as keyof typeof loading]);
    }
  });
});

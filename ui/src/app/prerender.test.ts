import { describe, expect, it } from 'vitest';
import {
  descriptionOf,
  fillTemplate,
  headFor,
  isPrerendered,
  PUBLIC_ORIGIN_PLACEHOLDER,
  robots,
  routeManifest,
  sitemap,
} from './prerender';
import { pages, type PageRoute } from './routes';

describe('route manifest', () => {
  it('lists every page of the route table but the catch-all, in table order', () => {
    const manifest = routeManifest();
    expect(manifest.routes.map((route) => route.path)).toEqual(
      pages.filter((page) => page.path !== '*').map((page) => page.path),
    );
  });

  it('prerenders the public pages without parameters, not development tools', () => {
    const prerendered = routeManifest().routes.filter((route) => route.prerendered);
    expect(prerendered.map((route) => route.path)).toEqual(pages.filter(isPrerendered).map((page) => page.path));
    expect(prerendered.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/', '/investment-plans', '/our-story', '/support', '/how-it-works', '/Hierarchy']),
    );
    for (const path of ['/dev/mail', '/resetPassword/:resetToken', '/my-account', '/login', '*']) {
      expect(prerendered.map((route) => route.path)).not.toContain(path);
    }
    expect(prerendered.find((route) => route.path === '/')?.prerendered).toBe('prerendered/index.html');
    expect(prerendered.find((route) => route.path === '/Hierarchy')?.prerendered).toBe('prerendered/Hierarchy.html');
  });

  it('has the server fill the plans, member levels and how-it-works pages with its current data', () => {
    const filled = routeManifest().routes.filter((route) => route.data);
    expect(filled).toEqual([
      { path: '/investment-plans', prerendered: 'prerendered/investment-plans.html', data: 'prerendered/investment-plans.data.json' },
      { path: '/how-it-works', prerendered: 'prerendered/how-it-works.html', data: 'prerendered/how-it-works.data.json' },
      { path: '/Hierarchy', prerendered: 'prerendered/Hierarchy.html', data: 'prerendered/Hierarchy.data.json' },
    ]);
  });

  it('follows the table it is given', () => {
    const page = { component: () => null };
    const table: PageRoute[] = [
      { path: '/', access: 'public', page },
      { path: '/a/:id', access: 'signedIn', page },
      { path: '*', access: 'public', page },
    ];
    expect(routeManifest(table)).toEqual({
      routes: [{ path: '/', prerendered: 'prerendered/index.html' }, { path: '/a/:id' }],
    });
  });

  it('has a description of its own for every prerendered page', () => {
    const missing = pages.filter(isPrerendered).filter((page) => !descriptionOf(page.path));
    expect(missing.map((page) => page.path)).toEqual([]);
  });
});

describe('page head', () => {
  const page: PageRoute = { path: '/our-story', title: 'About "Us" & <co>', access: 'public', page: { component: () => null } };

  it('names the page, describes it and links its canonical address on the placeholder origin', () => {
    const head = headFor(page);
    expect(head).toContain('<title>About &quot;Us&quot; &amp; &lt;co&gt; · Clearvest</title>');
    expect(head).toContain(`<link rel="canonical" href="${PUBLIC_ORIGIN_PLACEHOLDER}/our-story" />`);
    expect(head).toContain(`<meta property="og:url" content="${PUBLIC_ORIGIN_PLACEHOLDER}/our-story" />`);
    expect(head).toContain('<meta property="og:title" content="About &quot;Us&quot; &amp; &lt;co&gt; · Clearvest" />');
    expect(head).toContain(`<meta name="description" content="${descriptionOf('/our-story')}" />`);
  });

  it('fills index.html with the head and the markup', () => {
    const template =
      '<head><meta name="description" content="generic" /><title>Clearvest</title></head><body><div id="root"></div></body>';
    const html = fillTemplate(template, headFor(page), '<main>$& hi</main>');
    expect(html).not.toContain('generic');
    expect(html).toContain('<div id="root"><main>$& hi</main></div>');
    expect(html.match(/<title>/g)).toHaveLength(1);
  });

  it('puts the page in place of the start-up loader', () => {
    const template =
      '<meta name="description" content="x" /><title>x</title><div id="root">\n  <!--boot--><div class="boot">Loading…</div><!--/boot-->\n</div>';
    const html = fillTemplate(template, headFor(page), '<main>page</main>');
    expect(html).toContain('<div id="root"><main>page</main></div>');
    expect(html).not.toContain('Loading…');
  });

  it('refuses a template it cannot fill', () => {
    expect(() => fillTemplate('<title>x</title><div id="root"></div>', '', '')).toThrow(/meta description/);
  });
});

describe('sitemap and robots.txt', () => {
  it('lists exactly the prerendered pages', () => {
    const locs = [...sitemap().matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]);
    expect(locs).toEqual(pages.filter(isPrerendered).map((page) => `${PUBLIC_ORIGIN_PLACEHOLDER}${page.path}`));
  });

  it('points to the sitemap and keeps crawlers out of the API', () => {
    expect(robots()).toContain(`Sitemap: ${PUBLIC_ORIGIN_PLACEHOLDER}/sitemap.xml`);
    expect(robots()).toContain('Disallow: /api/');
  });
});

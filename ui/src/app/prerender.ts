import { pages, type PageRoute } from './routes';

// What the build derives from the route table for the server: the route manifest (which paths
// are app pages, so anything else is a real 404), the marketing pages rendered to HTML ahead of
// time, and their <head> (title, description, Open Graph, canonical URL). scripts/prerender.mjs
// writes it all into dist/; api/spa.go reads it from the embedded build.

export const SITE_NAME = 'Clearvest';

// The site's public address is only known where it is deployed (CLEARVEST_PUBLIC_URL), so absolute
// URLs are written with this origin and the server puts its own in their place when it starts.
export const PUBLIC_ORIGIN_PLACEHOLDER = 'https://public-origin.clearvest.invalid';

// The words search engines and link previews show for each prerendered page.
const descriptions: Record<string, string> = {
  '/': 'Fixed-term crypto savings plans for beginners: see the term and the fixed return before you commit, and get your money plus that return when the term ends.',
  '/investment-plans': "Clearvest's savings plans side by side: the amounts each accepts, its term, its rate for the term and the annual rate, with a worked example.",
  '/our-story': 'Who runs Clearvest, why we built fixed-term crypto savings plans for beginners, and how we keep them plain.',
  '/support': 'Questions about your account, a deposit or a withdrawal? Find answers and send the Clearvest team a message.',
  '/how-it-works': 'From opening an account to your first withdrawal: verify your e-mail, pass the identity check, fund your wallet and choose a plan.',
  '/market-rates': 'Current crypto and currency rates, for context before you deposit or withdraw.',
  '/Hierarchy': 'The Clearvest member levels and what each one means.',
  '/privacy-policy': 'What personal data Clearvest keeps, why, for how long, and how to have it erased.',
  '/license': 'The licence under which the Clearvest software and this site are published.',
};

export const descriptionOf = (path: string) => descriptions[path];

// Marketing pages: public, with no parameters, and not a development tool. They are rendered at
// build time so a first visit shows content before any script has run.
export const isPrerendered = (page: PageRoute) =>
  page.access === 'public' && !page.developmentOnly && page.path !== '*' && !page.path.includes(':');

// Where a prerendered page is kept in dist/. The folder is not served as files: the server answers
// the page's own path with it.
export const prerenderFile = (path: string) => `prerendered/${path === '/' ? 'index' : path.slice(1)}.html`;

// Pages the server serves filled with its current data rather than as the build rendered them:
// the plan catalogue lives in the server's database, the member levels in its configuration and
// the steps of How It Works in the operator's content, so these pages are completed on every
// request (api/livepages.go) from the templates in this file (docs/public-site.md). Each has its
// entry in livePages (entry-server.tsx).
export const LIVE_DATA_PAGES: readonly string[] = ['/investment-plans', '/Hierarchy', '/how-it-works'];
export const liveDataFile = (path: string) =>
  LIVE_DATA_PAGES.includes(path) ? `prerendered/${path.slice(1)}.data.json` : undefined;

export interface ManifestRoute {
  // As the router matches it: static segments, and `:name` for one segment of any value.
  path: string;
  // dist/ file with the page's prerendered HTML, for the pages that have one.
  prerendered?: string;
  // dist/ file with the templates the server fills with its current data (liveDataFile).
  data?: string;
}

export interface RouteManifest {
  routes: ManifestRoute[];
}

// Every page of the table but the catch-all: the server answers these with 200 and anything else
// with 404 (and the app's "Page not found").
export function routeManifest(table: readonly PageRoute[] = pages): RouteManifest {
  return {
    routes: table
      .filter((page) => page.path !== '*')
      .map((page) => {
        if (!isPrerendered(page)) return { path: page.path };
        const data = liveDataFile(page.path);
        return { path: page.path, prerendered: prerenderFile(page.path), ...(data ? { data } : {}) };
      }),
  };
}

export const documentTitle = (title?: string) => (title ? `${title} · ${SITE_NAME}` : SITE_NAME);

const escapeHTML = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const absolute = (path: string) => `${PUBLIC_ORIGIN_PLACEHOLDER}${path === '/' ? '/' : path}`;

// The <head> tags that differ per page.
export function headFor(page: PageRoute): string {
  const title = escapeHTML(documentTitle(page.title));
  const description = escapeHTML(descriptionOf(page.path) ?? descriptions['/'] ?? '');
  const canonical = absolute(page.path);
  return [
    `<title>${title}</title>`,
    `<meta name="description" content="${description}" />`,
    `<link rel="canonical" href="${canonical}" />`,
    `<meta property="og:type" content="website" />`,
    `<meta property="og:site_name" content="${SITE_NAME}" />`,
    `<meta property="og:title" content="${title}" />`,
    `<meta property="og:description" content="${description}" />`,
    `<meta property="og:url" content="${canonical}" />`,
    `<meta name="twitter:card" content="summary" />`,
  ].join('\n    ');
}

const TITLE = /<title>[^<]*<\/title>/;
const DESCRIPTION = /\s*<meta name="description"[^>]*>/;
// #root as index.html has it: empty, or holding only the start-up loader between <!--boot--> and
// <!--/boot--> (a prerendered page needs no loader: its markup is the page).
const ROOT = /<div id="root">\s*(?:<!--boot-->[\s\S]*?<!--\/boot-->\s*)?<\/div>/;

// index.html (Vite's output, with its script and style links) made into one page: its head tags
// in place of the generic title and description, and the page's markup inside #root.
export function fillTemplate(template: string, head: string, markup: string): string {
  for (const [what, found] of [
    ['<title>', TITLE.test(template)],
    ['meta description', DESCRIPTION.test(template)],
    ['<div id="root">', ROOT.test(template)],
  ] as const) {
    if (!found) throw new Error(`index.html has no ${what} to fill in`);
  }
  return template
    .replace(DESCRIPTION, '')
    .replace(TITLE, () => head)
    .replace(ROOT, () => `<div id="root">${markup}</div>`);
}

export function sitemap(table: readonly PageRoute[] = pages): string {
  const urls = table
    .filter(isPrerendered)
    .map((page) => `  <url><loc>${escapeHTML(absolute(page.path))}</loc></url>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}

// The API has nothing for a search engine; the pages worth finding are listed in the sitemap (the
// signed-in pages only ever show a visitor the sign-in form).
export const robots = () => `User-agent: *\nDisallow: /api/\n\nSitemap: ${PUBLIC_ORIGIN_PLACEHOLDER}/sitemap.xml\n`;

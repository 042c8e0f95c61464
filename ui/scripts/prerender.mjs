// Build step after `vite build` and `vite build --ssr` (npm run build): renders the marketing
// pages of the route table to HTML with the server bundle in dist-ssr/, and writes into dist/
//   prerendered/<path>.html  each page, ready to hydrate, with its own <head>, the styles inline and
//                            the app's scripts started after the first paint
//   prerendered/<path>.data.json  for a page served with current data (the plans, the member
//                            levels, How It Works), the templates the server fills (api/livepages.go)
//   routes.json              the route manifest: which paths are pages (the server 404s the rest)
//   sitemap.xml, robots.txt
// Absolute URLs carry a placeholder origin that the server replaces with CLEARVEST_PUBLIC_URL.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ui = resolve(import.meta.dirname, '..');
const dist = resolve(ui, 'dist');
const server = await import(pathToFileURL(resolve(ui, 'dist-ssr/entry-server.js')).href);

// The marketing pages carry the stylesheet inline: a visitor's first paint then waits for one
// response, not two (the shell of the other pages keeps the cacheable link).
async function inlineStylesheets(html) {
  const links = [...html.matchAll(/<link rel="stylesheet"[^>]*href="\/(assets\/[^"]+\.css)"[^>]*>/g)];
  for (const [tag, file] of links) {
    const css = await readFile(resolve(dist, file), 'utf8');
    if (css.includes('</style')) throw new Error(`${file} cannot be inlined: it contains </style`);
    html = html.replace(tag, () => `<style>${css.trim()}</style>`);
  }
  return html;
}

// The marketing pages ask for the app's scripts only once their HTML has been painted. On a slow
// connection the scripts (most of the bytes) would otherwise share the line with the stylesheet
// and font the first paint needs; the page is readable meanwhile, and the app takes it over a
// moment later (<html data-app="ready">). The scripts keep the tags Vite gave them: an inline
// starter adds them when the browser reports the first contentful paint, or at once for a page
// loaded out of sight, which paints nothing.
function startAppAfterFirstPaint(html) {
  const entry = html.match(/<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>\s*/);
  if (!entry) throw new Error('index.html has no module entry script');
  const preloads = [...html.matchAll(/<link rel="modulepreload" crossorigin href="(\/assets\/[^"]+\.js)">\s*/g)];
  for (const [tag] of [entry, ...preloads]) html = html.replace(tag, '');
  const starter = `<script>
      (function () {
        var started = false;
        function start() {
          if (started) return;
          started = true;
          var tags = document.createDocumentFragment();
          ${JSON.stringify(preloads.map(([, href]) => href))}.forEach(function (href) {
            var link = document.createElement('link');
            link.rel = 'modulepreload';
            link.crossOrigin = '';
            link.href = href;
            tags.appendChild(link);
          });
          var script = document.createElement('script');
          script.type = 'module';
          script.crossOrigin = '';
          script.src = ${JSON.stringify(entry[1])};
          tags.appendChild(script);
          document.head.appendChild(tags);
        }
        var observer = window.PerformanceObserver;
        if (document.visibilityState === 'hidden') start();
        else if (observer && (observer.supportedEntryTypes || []).indexOf('paint') >= 0) {
          new observer(function (list) {
            if (list.getEntriesByName('first-contentful-paint').length > 0) start();
          }).observe({ type: 'paint', buffered: true });
        } else {
          // A browser without paint timing starts the app once the page has loaded.
          window.addEventListener('load', start);
        }
        document.addEventListener('visibilitychange', start);
      })();
    </script>
  </body>`;
  if (!html.includes('</body>')) throw new Error('index.html has no </body>');
  return html.replace('</body>', () => starter);
}

const template = startAppAfterFirstPaint(await inlineStylesheets(await readFile(resolve(dist, 'index.html'), 'utf8')));
const manifest = server.routeManifest();

async function write(name, content) {
  const file = resolve(dist, name);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
}

export const MARKER = '<!--live-data-->';

// The templates of a page completed with current data (api/livepages.go, entry-server.tsx's
// livePages):
//   query  the query whose answer the page shows, and dataId the element the app reads it from
//   page   the page with the marker where the answer's markup goes
//   empty  the page of an answer with nothing to show
//   parts  the templates that markup is built from, a token (__NAME__) for each value
//   counts the words of a count, {count} standing for the number
async function liveTemplates(route, page, live) {
  const answer = (value) => [{ endpointName: live.query, arg: undefined, value }];
  const withSample = await server.render(route.path, answer(live.sample));
  const sample = server.renderPart(route.path, live.markup);
  const found = withSample.split(sample).length - 1;
  if (found !== 1) throw new Error(`${route.path}: the sample's markup appears ${found} times in the page instead of once`);
  const fill = (markup) => server.fillTemplate(template, server.headFor(page), markup);
  return {
    query: live.query,
    page: fill(withSample.replace(sample, () => MARKER)),
    empty: fill(await server.render(route.path, answer(live.empty))),
    marker: MARKER,
    parts: Object.fromEntries(Object.entries(live.parts).map(([name, element]) => [name, server.renderPart(route.path, element)])),
    counts: Object.fromEntries(Object.entries(live.counts).map(([name, words]) => [name, server.countWords(words)])),
    dataId: server.PRELOADED_ID,
  };
}

for (const route of manifest.routes.filter((r) => r.prerendered)) {
  const page = server.pages.find((p) => p.path === route.path);
  const markup = await server.render(route.path);
  await write(route.prerendered, server.fillTemplate(template, server.headFor(page), markup));
  console.log(`prerendered ${route.path} -> dist/${route.prerendered} (${markup.length} characters of markup)`);
  if (route.data) {
    const live = server.livePages[route.path];
    if (!live) throw new Error(`${route.path} is served with current data but entry-server.tsx has no livePages entry for it`);
    await write(route.data, `${JSON.stringify(await liveTemplates(route, page, live))}\n`);
    console.log(`wrote the current-data templates of ${route.path} -> dist/${route.data}`);
  }
}
await write('routes.json', `${JSON.stringify(manifest, null, 2)}\n`);
await write('sitemap.xml', server.sitemap());
await write('robots.txt', server.robots());
console.log(`wrote dist/routes.json (${manifest.routes.length} routes), dist/sitemap.xml and dist/robots.txt`);

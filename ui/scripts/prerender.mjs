// Build step after `vite build` and `vite build --ssr` (npm run build): renders the marketing
// pages of the route table to HTML with the server bundle in dist-ssr/, and writes into dist/
//   prerendered/<path>.html  each page, ready to hydrate, with its own <head> and the styles inline
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

const template = await inlineStylesheets(await readFile(resolve(dist, 'index.html'), 'utf8'));
const manifest = server.routeManifest();

async function write(name, content) {
  const file = resolve(dist, name);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content);
}

for (const route of manifest.routes.filter((r) => r.prerendered)) {
  const page = server.pages.find((p) => p.path === route.path);
  const markup = await server.render(route.path);
  await write(route.prerendered, server.fillTemplate(template, server.headFor(page), markup));
  console.log(`prerendered ${route.path} -> dist/${route.prerendered} (${markup.length} characters of markup)`);
}
await write('routes.json', `${JSON.stringify(manifest, null, 2)}\n`);
await write('sitemap.xml', server.sitemap());
await write('robots.txt', server.robots());
console.log(`wrote dist/routes.json (${manifest.routes.length} routes), dist/sitemap.xml and dist/robots.txt`);

// JavaScript budgets of the built UI (npm run check-budgets, after npm run build; scripts/test.sh
// runs it right after the build). For every page of the route table it adds up, gzipped, the
// scripts the browser must load to show that page: the entry chunk and its static imports, and
// the page's own chunk (its lazy import in src/app/routes.ts) with its static imports. Code a page
// loads later, on demand, is shown beside it but not counted. It fails when
//   - the home page needs more than HOME_BUDGET_KB, or any other page more than PAGE_BUDGET_KB;
//   - the home page loads code of a signed-in or staff page, or the signed-in app shell.
// A signed-in, staff or admin page counts the app shell's chunk (the lazy import in
// src/app/Layout.tsx) with its own; public pages do not, as visitors never load it.
// Reads dist/.vite/manifest.json and dist/.vite/chunk-modules.json (written by vite.config.ts).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import ts from 'typescript';

// The home page's target. The libraries every page starts with (React Router 30, Redux Toolkit
// with RTK Query 34, i18next 21, Preact 10, gzipped) leave it about 40 KB of room for page code
// (docs/public-site.md, "Budgets").
export const HOME_BUDGET_KB = 150;
export const PAGE_BUDGET_KB = 300;

const ui = resolve(import.meta.dirname, '..');
const dist = join(ui, 'dist');
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));
const chunkModules = JSON.parse(readFileSync(join(dist, '.vite/chunk-modules.json'), 'utf8'));

// The source file a dynamic import names, as Vite's manifest keys it (relative to ui/).
function resolveImport(fromFile, specifier) {
  const base = relative(ui, resolve(dirname(join(ui, fromFile)), specifier));
  const key = ['.tsx', '.ts', '.jsx', '.js', ''].map((ext) => base + ext).find((candidate) => manifest[candidate]);
  if (!key) throw new Error(`${fromFile}: import('${specifier}') is not a chunk of the build`);
  return key;
}

function parse(file) {
  return ts.createSourceFile(file, readFileSync(join(ui, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

// The dynamic import() specifiers under a node.
function dynamicImports(node) {
  const found = [];
  const visit = (n) => {
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = n.arguments;
      if (arg && ts.isStringLiteral(arg)) found.push(arg.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

// The route table's entries, read from src/app/routes.ts: path, access and the chunk the page's
// loader imports (null for a page in the entry chunk, undefined for a page not built yet).
function routeTable() {
  const file = 'src/app/routes.ts';
  const source = parse(file);
  let table;
  const find = (n) => {
    if (ts.isVariableDeclaration(n) && n.name.getText() === 'pages' && n.initializer) {
      table = ts.isArrayLiteralExpression(n.initializer) ? n.initializer : undefined;
    }
    ts.forEachChild(n, find);
  };
  find(source);
  if (!table) throw new Error(`${file}: no array literal named pages`);
  return table.elements.filter(ts.isObjectLiteralExpression).map((entry) => {
    const prop = (name) => entry.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText() === name);
    const text = (name) => {
      const p = prop(name);
      return p && ts.isStringLiteral(p.initializer) ? p.initializer.text : undefined;
    };
    const page = prop('page');
    let chunk;
    if (page) {
      const [specifier] = dynamicImports(page.initializer);
      chunk = specifier ? resolveImport(file, specifier) : null;
    }
    return { path: text('path'), access: text('access'), chunk };
  });
}

// The signed-in app shell (sidebar, bottom bar, account menu), the one lazy import of
// src/app/Layout.tsx: every signed-in, staff and admin page loads it with its own chunk.
function appShellChunk() {
  const file = 'src/app/Layout.tsx';
  const imports = dynamicImports(parse(file));
  if (imports.length !== 1) throw new Error(`${file}: expected one dynamic import (the app shell), found ${imports.length}`);
  return resolveImport(file, imports[0]);
}

const PRIVATE_ACCESS = ['signedIn', 'staff', 'admin'];

// A chunk and everything it imports statically, as manifest keys.
function closure(keys) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const imported of manifest[key]?.imports ?? []) visit(imported);
  };
  keys.forEach(visit);
  return seen;
}

const gzipped = new Map();
function gzipSize(key) {
  const file = manifest[key].file;
  if (!gzipped.has(file)) gzipped.set(file, gzipSync(readFileSync(join(dist, file)), { level: 9 }).length);
  return gzipped.get(file);
}
const kb = (bytes) => bytes / 1024;
const total = (keys) => [...keys].reduce((sum, key) => sum + gzipSize(key), 0);

const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
const routes = routeTable();
const appShell = appShellChunk();
const failures = [];
const rows = [];

for (const route of routes) {
  if (route.chunk === undefined) failures.push(`${route.path} has no page in src/app/routes.ts`);
  const own = route.chunk ?? null;
  const inShell = PRIVATE_ACCESS.includes(route.access);
  const loaded = closure([entry, ...(own ? [own] : []), ...(inShell ? [appShell] : [])]);
  const onDemand = closure([...loaded].flatMap((key) => manifest[key].dynamicImports ?? []).filter((key) => key !== own));
  const lazyExtra = own ? closure(manifest[own].dynamicImports ?? []) : new Set();
  const later = [...lazyExtra].filter((key) => !loaded.has(key) && onDemand.has(key));
  const size = kb(total(loaded));
  const budget = route.path === '/' ? HOME_BUDGET_KB : PAGE_BUDGET_KB;
  const ok = size <= budget;
  if (!ok) failures.push(`${route.path} loads ${size.toFixed(1)} KB of JavaScript (gzip), over its budget of ${budget} KB`);
  rows.push({ route, size, later: kb(total(later)), budget, ok, chunks: loaded.size });
  if (route.path === '/') {
    // The modules of every signed-in and staff page (the dashboard and the rest) stay out of it.
    const privatePages = routes.filter((r) => r.chunk && PRIVATE_ACCESS.includes(r.access));
    const forbidden = new Set([...privatePages.map((r) => r.chunk), appShell]);
    const homeModules = new Set([...loaded].flatMap((key) => Object.keys(chunkModules[manifest[key].file] ?? {})));
    for (const module of forbidden) {
      if (homeModules.has(module) || loaded.has(module)) failures.push(`the home page loads ${module}, a signed-in page`);
    }
  }
}

const pad = (value, width) => String(value).padEnd(width);
const padStart = (value, width) => String(value).padStart(width);
console.log(`JavaScript each page needs before it shows (gzip level 9, KB); budgets: home ${HOME_BUDGET_KB}, other pages ${PAGE_BUDGET_KB}`);
console.log(`${pad('route', 30)}${pad('access', 10)}${padStart('chunks', 7)}${padStart('KB', 9)}${padStart('budget', 8)}  ${pad('later, on demand', 17)}`);
for (const { route, size, later, budget, ok, chunks } of rows) {
  const laterText = later > 0 ? `+${later.toFixed(1)} KB` : '';
  console.log(
    `${pad(route.path, 30)}${pad(route.access, 10)}${padStart(chunks, 7)}${padStart(size.toFixed(1), 9)}${padStart(budget, 8)}  ${pad(laterText, 17)}${ok ? '' : 'OVER BUDGET'}`,
  );
}
if (failures.length > 0) {
  console.error(`\nBudget check failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log('\nAll pages are within their JavaScript budgets; the home page loads no signed-in page.');

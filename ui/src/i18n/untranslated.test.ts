import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { de } from './de';
import { en } from './en';

// Every word a reader sees goes through t() (docs/i18n.md). This reads the source of the
// screens below with the TypeScript compiler and fails on English written straight into them:
// JSX text with letters, and string literals with letters in props a reader sees or hears
// (aria-label, title, placeholder, alt, label…) or in JSX expressions, unless they are inside a
// t() call. It also reads every other module of the UI (helpers that name, count or describe
// things) and fails on a literal that reads like words: a phrase ("waiting 5 min", `${a} on
// ${b}`) or a capitalised word ("Status"), wherever it is, except where a literal shows nothing
// (a comparison, a key, a class name, an import, an error for developers, a list of values).

// Where the rule holds: a directory of src/ (every .tsx below it) or one file.
// Every screen and shared piece of the UI.
const checked = ['app', 'components', 'features', 'i18n'];

// Being translated now, in other changes; each moves to `checked` when its translation lands.
// Development tools, never served in production: they stay English (docs/i18n.md).
const englishOnly = ['features/dev-mail'];

// Modules whose English is on purpose (docs/i18n.md, "What stays English"): the route table's
// page names, which other languages translate by path in pages.json; the prerendered <head>,
// always English; the form checks' English wording, which is the key useFormMessages() looks up;
// and the activity ticker's times, which go with the server's English sentences.
const englishByDesign = ['app/routes.ts', 'app/prerender.ts', 'features/auth/validation.ts', 'features/kyc/validation.ts', 'features/community/relativeTime.ts'];

// Words that are the same in every language: names and symbols; and the label of the contact
// form's hidden field, which no person sees and bots fill in by its name.
const allowed = new Set([
  'Clearvest',
  'Google',
  'USDT',
  'BTC',
  'ETH',
  'TRON',
  'English',
  'Deutsch',
  'Website',
  'Bitcoin',
  'Ethereum',
  'Edge',
  'Opera',
  'Firefox',
  'Chrome',
  'Safari',
  'Android',
  'iOS',
  'Windows',
  'macOS',
  'ChromeOS',
  'Linux',
]);

// Props whose text a reader sees or a screen reader speaks.
const visibleProps = new Set([
  'aria-label',
  'aria-description',
  'aria-valuetext',
  'aria-roledescription',
  'title',
  'placeholder',
  'alt',
  'label',
  'hint',
  'lead',
  'busyLabel',
  'emptyLabel',
  'message',
]);

const sources = import.meta.glob<string>(['/src/**/*.{ts,tsx}', '!/src/**/*.test.{ts,tsx}', '!/src/**/*.d.ts', '!/src/i18n/*/index.ts'], {
  query: '?raw',
  import: 'default',
  eager: true,
});
const files = Object.keys(sources).map((path) => path.replace(/^\/src\//, ''));

const inScope = (file: string, scope: readonly string[]) => scope.some((entry) => file === entry || file.startsWith(`${entry}/`));

const hasWords = (text: string) => /\p{L}/u.test(text) && !allowed.has(text.trim());

// Whether a node is an argument of t('…') / i18n.t('…') / <Trans i18nKey="…">.
function insideTranslation(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isCallExpression(at)) {
      const callee = at.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (name === 't') return true;
    }
    if (ts.isJsxAttribute(at) || ts.isJsxElement(at) || ts.isJsxSelfClosingElement(at)) return false;
  }
  return false;
}

// The literals with words an expression puts on screen (not those passed to t()).
function wordsIn(expression: ts.Node, out: ts.Node[]) {
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (hasWords(node.text) && !insideTranslation(node)) out.push(node);
      return;
    }
    if (ts.isTemplateExpression(node)) {
      const parts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
      if (hasWords(parts) && !insideTranslation(node)) out.push(node);
    }
    // A comparison or a key (status === 'open', labels['x']) shows nothing; a call's own
    // arguments are the callee's business (a helper that returns words must use t() itself).
    if (ts.isBinaryExpression(node) && node.operatorToken.kind !== ts.SyntaxKind.BarBarToken && node.operatorToken.kind !== ts.SyntaxKind.QuestionQuestionToken && node.operatorToken.kind !== ts.SyntaxKind.PlusToken) return;
    if (ts.isCallExpression(node) || ts.isElementAccessExpression(node) || ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node)) return;
    if (ts.isConditionalExpression(node)) {
      visit(node.whenTrue);
      visit(node.whenFalse);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(expression);
}

export function untranslated(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const report = (node: ts.Node, text: string) => {
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.push(`${file}:${line + 1}: ${text.trim().slice(0, 60)}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && hasWords(node.text)) report(node, node.text);
    if (ts.isJsxAttribute(node) && node.initializer) {
      const name = node.name.getText(sf);
      if (visibleProps.has(name)) {
        if (ts.isStringLiteral(node.initializer)) {
          if (hasWords(node.initializer.text)) report(node, `${name}="${node.initializer.text}"`);
        } else if (ts.isJsxExpression(node.initializer) && node.initializer.expression) {
          const literals: ts.Node[] = [];
          wordsIn(node.initializer.expression, literals);
          for (const literal of literals) report(literal, `${name}={${literal.getText(sf)}}`);
        }
      }
    }
    if (ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) {
      const literals: ts.Node[] = [];
      wordsIn(node.expression, literals);
      for (const literal of literals) report(literal, `{${literal.getText(sf)}}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

// Whether a literal reads like words to a person: a phrase with at least one word that is not a
// name or symbol, or one capitalised word. Class lists ("badge badge--success"), paths, ids,
// SVG paths and Intl options do not.
const word = /^[\p{L}’']{2,}[.,:;!?…]*$/u;
const classList = (text: string) => /[-_]/.test(text) && text.split(/\s+/).every((token) => /^[a-z][a-z0-9]*(?:[-_]{1,2}[a-z0-9]+)*$/.test(token));
export function readsLikeWords(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed || classList(trimmed)) return false;
  const tokens = trimmed.split(/\s+/);
  if (tokens.length === 1) return /^\p{Lu}\p{Ll}+$/u.test(trimmed) && !allowed.has(trimmed);
  return tokens.some((token) => word.test(token) && !allowed.has(token.replace(/[.,:;!?…]+$/u, '')) && !/^\p{Lu}+$/u.test(token));
}

// Calls whose string arguments are never shown: lookups, matching, storage, the DOM, cache tags,
// messages for developers.
const silentCalls = new Set([
  't',
  'Error',
  'error',
  'warn',
  'log',
  'info',
  'debug',
  'super',
  'querySelector',
  'querySelectorAll',
  'getElementById',
  'createElement',
  'matchMedia',
  'getItem',
  'setItem',
  'removeItem',
  'includes',
  'startsWith',
  'endsWith',
  'test',
  'match',
  'replace',
  'split',
  'addEventListener',
  'removeEventListener',
  'getAttribute',
  'setAttribute',
  'setRequestHeader',
  'invalidateTags',
  'get',
  'has',
]);

// JSX props that are never read out: classes, ids, links, types, data and ARIA references.
const hiddenProp = (name: string) =>
  /^(className|style|id|href|to|src|type|name|autoComplete|rel|role|lang|d|viewBox|fill|stroke|method|htmlFor|key|inputMode|accept|pattern|dataKey|target|dateTime)$|^data-|^aria-(describedby|labelledby|controls|owns|live|current|hidden|expanded|haspopup)$/.test(
    name,
  );

// Object keys whose values are never shown.
const hiddenKey = /^(className|id|path|href|to|testId|key|style|type|method|tone)$/;

const comparisons = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.InKeyword]);

function calleeName(call: ts.CallExpression) {
  const callee = call.expression;
  if (callee.kind === ts.SyntaxKind.SuperKeyword) return 'super';
  return ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
}

// Whether a literal is in a place where it shows nothing.
function silent(node: ts.Node): boolean {
  for (let child: ts.Node = node, at = node.parent; at; child = at, at = at.parent) {
    if (ts.isCallExpression(at) && child !== at.expression && silentCalls.has(calleeName(at))) return true;
    if (ts.isNewExpression(at) && ts.isIdentifier(at.expression) && /Error$|^(URL|URLSearchParams|RegExp|Blob|Date)$/.test(at.expression.text)) return true;
    if (ts.isImportDeclaration(at) || ts.isExportDeclaration(at) || ts.isTypeNode(at) || ts.isSatisfiesExpression(at)) return true;
    if (ts.isBinaryExpression(at) && comparisons.has(at.operatorToken.kind)) return true;
    if (ts.isElementAccessExpression(at) && at.argumentExpression === child) return true;
    if (ts.isCaseClause(at) && at.expression === child) return true;
    // A list of values (tags, statuses) rather than a sentence.
    if (ts.isArrayLiteralExpression(at) && at.elements.every((e) => ts.isStringLiteral(e))) return true;
    if (ts.isJsxAttribute(at) && hiddenProp(at.name.getText())) return true;
    if ((ts.isPropertyAssignment(at) || ts.isPropertySignature(at)) && (at.name === child || hiddenKey.test(at.name.getText()))) return true;
    if (ts.isFunctionLike(at) || ts.isSourceFile(at)) return false;
  }
  return false;
}

// Literals that read like words anywhere in a module, outside t() and the places above: what a
// helper returns, a table of labels, a default text.
export function wordsInCode(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    // A placeholder reads as a number: `waiting ${n} min` is a phrase, `plan-${id}` is not.
    else if (ts.isTemplateExpression(node)) text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('0');
    if (text !== undefined && readsLikeWords(text) && !silent(node)) {
      const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      found.push(`${file}:${line + 1}: ${node.getText(sf).slice(0, 60)}`);
    }
    if (ts.isTemplateExpression(node)) {
      for (const span of node.templateSpans) visit(span.expression);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('translated screens', () => {
  it('lists only files that exist', () => {
    for (const entry of [...checked, ...englishOnly]) expect(files.some((file) => inScope(file, [entry])), entry).toBe(true);
  });

  const translated = files.filter((file) => inScope(file, checked) && !inScope(file, englishOnly));

  it('write no English straight into the JSX', () => {
    const problems = translated.filter((file) => file.endsWith('.tsx')).flatMap((file) => untranslated(file, sources[`/src/${file}`] ?? ''));
    expect(problems).toEqual([]);
  });

  it('have no English words in their code, helpers included', () => {
    const problems = translated.filter((file) => !englishByDesign.includes(file)).flatMap((file) => wordsInCode(file, sources[`/src/${file}`] ?? ''));
    expect(problems).toEqual([]);
  });

  it('list only modules that exist as English by design', () => {
    for (const file of englishByDesign) expect(files, file).toContain(file);
  });

  // <Trans> drops the content of a tag named like an HTML void element (<link>Sign in</link>
  // renders an empty link), so texts must name their tags otherwise.
  it('name no <Trans> tag like an HTML void element', () => {
    const voidTag = /<\/?(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)\b[^>]*>/;
    const texts = (tree: unknown, path: string): string[] =>
      typeof tree === 'string' ? (voidTag.test(tree) ? [path] : []) : Object.entries(tree as object).flatMap(([k, v]) => texts(v, `${path}.${k}`));
    expect([...texts(en, 'en'), ...texts(de, 'de')]).toEqual([]);
  });

  it('finds English written into JSX', () => {
    const sample = `
      export const A = () => <p title="Close it" aria-label={t('ok')}>Hello {count} <b>{open ? 'Open' : t('closed')}</b></p>;
      export const B = () => <input placeholder={\`Type \${x}\`} alt="Clearvest" label={status === 'open' ? t('a') : t('b')} />;
    `;
    expect(untranslated('sample.tsx', sample).map((p) => p.replace(/^sample\.tsx:\d+: /, ''))).toEqual([
      'title="Close it"',
      'Hello',
      "{'Open'}",
      'placeholder={`Type ${x}`}',
    ]);
  });

  it('finds English in helpers and ignores what shows nothing', () => {
    const sample = `
      import { x } from './words';
      export const waited = (n: number) => (n < 1 ? 'waiting less than a minute' : \`waiting \${n} min\`);
      export const route = (a: string, b: string) => \`\${a} on \${b}\`;
      export const rows = (w: W) => [['Status', w.status], [t('facts.fee'), w.fee]];
      export const network = { BTC: 'Bitcoin', TRC20: 'TRON (TRC-20)' };
      export const tone = (s: string) => (s === 'Pending' ? 'badge badge--warning' : ['Approved', 'Active'].includes(s) ? 'ok' : 'none');
      export const fail = () => { throw new Error('The page could not be loaded'); };
      export const id = (n: number) => \`plan-\${n}-name\`;
      export const tags = ['Me', 'History'] as const;
      export const Sample = ({ children = 'Sample' }) => <p className="muted sample" data-testid="Sample text">{children}</p>;
    `;
    expect(wordsInCode('sample.tsx', sample).map((p) => p.replace(/^sample\.tsx:\d+: /, ''))).toEqual([
      "'waiting less than a minute'",
      '`waiting ${n} min`',
      '`${a} on ${b}`',
      "'Status'",
      "'Sample'",
    ]);
  });
});

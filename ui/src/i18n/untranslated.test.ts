import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { de } from './de';
import { en } from './en';

// Every word a reader sees goes through t() (docs/i18n.md). This reads the source of the
// screens below with the TypeScript compiler and fails on English written straight into them:
// JSX text with letters, and string literals with letters in props a reader sees or hears
// (aria-label, title, placeholder, alt, label…) or in JSX expressions, unless they are inside a
// t() call.

// Where the rule holds: a directory of src/ (every .tsx below it) or one file.
// Every screen and shared piece of the UI.
const checked = ['app', 'components', 'features', 'i18n'];

// Being translated now, in other changes; each moves to `checked` when its translation lands.
// Development tools, never served in production: they stay English (docs/i18n.md).
const englishOnly = ['features/dev-mail'];

// Words that are the same in every language: names and symbols; and the label of the contact
// form's hidden field, which no person sees and bots fill in by its name.
const allowed = new Set(['Clearvest', 'Google', 'USDT', 'BTC', 'ETH', 'TRON', 'English', 'Deutsch', 'Website']);

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

const sources = import.meta.glob<string>(['/src/**/*.tsx', '/src/app/pageNames.ts', '!/src/**/*.test.tsx'], {
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

describe('translated screens', () => {
  it('lists only files that exist, each once', () => {
    for (const entry of [...checked, ...englishOnly]) expect(files.some((file) => inScope(file, [entry])), entry).toBe(true);
  });

  it('write no English straight into the JSX', () => {
    const problems = files
      .filter((file) => checked.includes(file) || (inScope(file, checked) && !inScope(file, englishOnly)))
      .flatMap((file) => untranslated(file, sources[`/src/${file}`] ?? ''));
    expect(problems).toEqual([]);
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
});

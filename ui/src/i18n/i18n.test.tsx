import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pages } from '../app/routes';
import { renderApp } from '../test/renderWithProviders';
import { signedIn, signedOut, json, makeUser, stubApi } from '../test/stubApi';
import { de } from './de';
import { en, type Namespace } from './en';
import { chooseLanguage, i18n, LANGUAGES, preferredLanguage, startLanguage } from './index';

// Runs first: nothing in this file has asked for German yet, so the German texts must not be
// there until a reader chooses the language.
describe('loading languages', () => {
  it('bundles English and fetches German only when it is chosen', async () => {
    expect(i18n.hasResourceBundle('en', 'plans')).toBe(true);
    expect(i18n.hasResourceBundle('de', 'plans')).toBe(false);
    expect(i18n.t('notFound.title')).toBe('Page not found');

    await chooseLanguage('de');

    for (const namespace of Object.keys(en)) expect(i18n.hasResourceBundle('de', namespace)).toBe(true);
    expect(i18n.t('notFound.title')).toBe('Seite nicht gefunden');
  });
});

// Every leaf of a texts tree as "a.b.c" → text.
function leaves(tree: object, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else if (value && typeof value === 'object') for (const [k, v] of leaves(value, path)) out.set(k, v);
  }
  return out;
}

const PLURAL = /_(zero|one|two|few|many|other)$/;

// The placeholders ({{count}}) and markup (<min />, <arrow>) a text must keep in every language.
const slots = (text: string) => [...text.matchAll(/\{\{\s*(\w+)[^}]*\}\}|<\/?\s*(\w+)\s*\/?>/g)].map((m) => m[0].replace(/\s+/g, '')).sort();

describe('German texts', () => {
  const translated = (Object.keys(en) as Namespace[]).filter((namespace) => namespace !== 'pages');

  it.each(translated)('has every English key of the %s namespace, and no other', (namespace) => {
    const english = leaves(en[namespace]);
    const german = leaves(de[namespace]);
    // Plural forms differ between languages: a plural key needs the forms German uses.
    const germanForms = new Intl.PluralRules('de').resolvedOptions().pluralCategories;
    const expected = new Set<string>();
    for (const key of english.keys()) {
      if (!PLURAL.test(key)) expected.add(key);
      else for (const form of germanForms) expected.add(key.replace(PLURAL, `_${form}`));
    }
    expect([...expected].filter((key) => !german.has(key)), 'missing in de').toEqual([]);
    expect([...german.keys()].filter((key) => !expected.has(key)), 'in de but not in en').toEqual([]);
  });

  it.each(translated)('keeps the placeholders and markup of every %s text', (namespace) => {
    const german = leaves(de[namespace]);
    const broken = [...leaves(en[namespace])]
      .filter(([key]) => german.has(key))
      .filter(([key, text]) => slots(text).join() !== slots(german.get(key) ?? '').join())
      .map(([key]) => key);
    expect(broken).toEqual([]);
  });

  it('names every page of the route table, and only those', () => {
    const names = de.pages as Record<string, { title?: string; label?: string }>;
    const missing = pages.flatMap((page) => [
      ...(page.title !== undefined && !names[page.path]?.title ? [`${page.path} title`] : []),
      ...(page.label !== undefined && !names[page.path]?.label ? [`${page.path} label`] : []),
    ]);
    expect(missing).toEqual([]);
    const paths = new Set(pages.map((page) => page.path));
    expect(Object.keys(names).filter((path) => !paths.has(path))).toEqual([]);
  });
});

describe('choosing a language', () => {
  afterEach(() => localStorage.clear());

  const browserLanguages = (languages: string[]) => vi.spyOn(navigator, 'languages', 'get').mockReturnValue(languages);

  it('prefers the saved choice, then the browser’s languages, then English', async () => {
    browserLanguages(['fr-FR', 'de-AT', 'en']);
    expect(preferredLanguage()).toBe('de');
    browserLanguages(['fr-FR', 'es']);
    expect(preferredLanguage()).toBe('en');
    await chooseLanguage('de');
    expect(preferredLanguage()).toBe('de');
    localStorage.setItem('clearvest:language', 'klingon');
    expect(preferredLanguage()).toBe('en');
  });

  it('starts in the preferred language and keeps <html lang> in step', async () => {
    browserLanguages(['de-DE']);
    await startLanguage();
    expect(i18n.language).toBe('de');
    expect(document.documentElement.lang).toBe('de');
    await chooseLanguage('en');
    expect(document.documentElement.lang).toBe('en');
    expect(localStorage.getItem('clearvest:language')).toBe('en');
  });

  it('leaves the page alone when the preferred language is the one already shown', async () => {
    browserLanguages(['en-GB']);
    await chooseLanguage('en');
    const changed = vi.fn();
    i18n.on('languageChanged', changed);
    try {
      await startLanguage();
    } finally {
      i18n.off('languageChanged', changed);
    }
    expect(i18n.language).toBe('en');
    expect(changed).not.toHaveBeenCalled();
  });

  it('offers every language under its own name', () => {
    expect(LANGUAGES.map((l) => l.name)).toEqual(['English', 'Deutsch']);
  });
});

describe('the language switcher', () => {
  it('switches the navbar, the footer, the page and the document title, and remembers the choice', async () => {
    stubApi({ 'GET /api/invest/plans': json({ plans: [] }) });
    const u = userEvent.setup();
    renderApp({ route: '/investment-plans', ...signedOut() });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Portfolio Plans' })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Portfolio Plans · Clearvest'));

    await u.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'Deutsch');

    const deNav = await screen.findByRole('navigation', { name: 'Hauptnavigation' });
    expect(within(deNav).getByRole('link', { name: 'Anlagepläne' })).toBeTruthy();
    expect(within(deNav).getByRole('link', { name: 'Anmelden' })).toBeTruthy();
    expect(within(deNav).getByRole('button', { name: 'Menü' })).toBeTruthy();
    const footer = screen.getByRole('navigation', { name: 'Fußzeile' });
    expect(within(footer).getByRole('link', { name: 'Über uns' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Anlagepläne' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Zum Inhalt springen' })).toBeTruthy();
    const select = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Sprache' });
    expect(select.value).toBe('de');
    await waitFor(() => expect(document.title).toBe('Anlagepläne · Clearvest'));
    expect(document.documentElement.lang).toBe('de');
    expect(localStorage.getItem('clearvest:language')).toBe('de');

    await u.selectOptions(select, 'English');
    expect(await screen.findByRole('heading', { level: 1, name: 'Portfolio Plans' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('en');
  });

  it('names a signed-in reader’s links and a staff page in German', async () => {
    const user = makeUser({ role: 'admin' });
    stubApi({ 'GET /api/users/getUser': json(user), 'GET /api/email/broadcasts': json({ broadcasts: [], limitPerHour: 5 }) });
    await chooseLanguage('de');
    renderApp({ route: '/compose-email', ...signedIn(user) });
    expect(await screen.findByRole('heading', { level: 1, name: 'E-Mail senden' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 2, name: 'Verfassen' })).toBeTruthy();
    expect(await screen.findByText('Noch keine E-Mails gesendet.')).toBeTruthy();
    // The app shell: its sidebar (and the phone's bottom bar, both in the page) and account menu.
    const [nav] = await screen.findAllByRole('navigation', { name: 'Hauptnavigation' });
    expect(within(nav!).getByRole('link', { name: 'Übersicht' })).toBeTruthy();
    expect(within(nav!).getByRole('group', { name: 'Team' })).toBeTruthy();
    expect(within(nav!).getByRole('link', { name: 'E-Mail' }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('button', { name: /^Kontomenü:\s*Ada Lovelace$/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Abmelden', hidden: true })).toBeTruthy();
  });

  it('shows the not-found page in German', async () => {
    await chooseLanguage('de');
    renderApp({ route: '/no-such-page' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Seite nicht gefunden' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Zur Startseite' })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe('Seite nicht gefunden · Clearvest'));
  });
});

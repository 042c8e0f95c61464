import i18next from 'i18next';
import resourcesToBackend from 'i18next-resources-to-backend';
import { initReactI18next, useTranslation } from 'react-i18next';
import { en, type Namespace } from './en';

// The one i18next instance of the UI (docs/i18n.md). It starts in English, synchronously, from
// texts bundled with the app, so the first render (in the browser or in a prerender on the server)
// never waits. Nothing here touches window, document or localStorage when the module loads: the
// browser-only parts run in startLanguage() and chooseLanguage().

// Every language the UI offers, each named in its own language so a reader finds theirs.
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
] as const;
export type Language = (typeof LANGUAGES)[number]['code'];

const DEFAULT_LANGUAGE: Language = 'en';
const STORAGE_KEY = 'clearvest:language';

// Each language other than English is its own chunk, fetched the first time it is used, so an
// English reader downloads no other language.
const lazyLanguages: Record<Exclude<Language, 'en'>, () => Promise<Record<Namespace, object>>> = {
  de: () => import('./de').then((m) => m.de),
};

const isLazy = (code: string): code is keyof typeof lazyLanguages => code in lazyLanguages;

export const i18n = i18next.createInstance();

void i18n
  .use(
    resourcesToBackend(async (language: string, namespace: string) => {
      if (!isLazy(language)) throw new Error(`no texts for the language "${language}"`);
      const texts = await lazyLanguages[language]();
      return texts[namespace as Namespace];
    }),
  )
  .use(initReactI18next)
  .init({
    lng: DEFAULT_LANGUAGE,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: LANGUAGES.map((l) => l.code),
    load: 'languageOnly',
    ns: Object.keys(en),
    defaultNS: 'common',
    resources: { en },
    // English is bundled, the rest comes through the lazy backend above.
    partialBundledLanguages: true,
    initAsync: false,
    // React escapes what it renders.
    interpolation: { escapeValue: false },
    // A language is switched only once all its namespaces have arrived, so nothing needs to
    // suspend; a page that renders meanwhile shows the previous language.
    react: { useSuspense: false },
  });

// <html lang> names the language the page is shown in, for screen readers, hyphenation and
// translation tools.
i18n.on('languageChanged', (language) => {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = language;
  document.documentElement.dir = i18n.dir(language);
});

export function supportedLanguage(tag: string | null | undefined): Language | undefined {
  const code = tag?.trim().toLowerCase().split('-')[0];
  return LANGUAGES.find((language) => language.code === code)?.code;
}

function savedLanguage() {
  try {
    return supportedLanguage(localStorage.getItem(STORAGE_KEY));
  } catch {
    // Storage can be switched off; the browser's preference still applies.
    return undefined;
  }
}

// The reader's saved choice, else the first of their browser's languages we offer, else English.
export function preferredLanguage(): Language {
  const browser = navigator.languages?.length ? navigator.languages : [navigator.language];
  return savedLanguage() ?? browser.map(supportedLanguage).find((code) => code !== undefined) ?? DEFAULT_LANGUAGE;
}

// Switches to a language once its texts have arrived. If they cannot be fetched (a deploy replaced
// the chunk, the connection dropped), the page stays English rather than claiming, in <html lang>
// and the switcher, a language it is not shown in.
async function show(language: Language) {
  // Switching to the language already shown would still re-render every translated component, a
  // long task at start-up for the English reader of a prerendered page.
  if (language === i18n.resolvedLanguage) return;
  await i18n.changeLanguage(language);
  if (Object.keys(en).every((namespace) => i18n.hasResourceBundle(language, namespace))) return;
  console.error(`the texts for "${language}" could not be loaded; showing English`);
  await i18n.changeLanguage(DEFAULT_LANGUAGE);
}

// Called once in the browser, before the app first renders. A page prerendered in English must be
// hydrated first and call this afterwards, so the hydrated markup matches the server's.
export async function startLanguage() {
  await show(preferredLanguage());
}

// Who wants to know when the reader picks a language (the signed-in user's record of it, which
// their e-mails follow). Switching at start-up from the saved choice is not a pick.
const choiceListeners = new Set<(language: Language) => void>();
export function onLanguageChosen(listener: (language: Language) => void): () => void {
  choiceListeners.add(listener);
  return () => choiceListeners.delete(listener);
}

// The reader picked a language: remember it in this browser and show it.
export async function chooseLanguage(language: Language) {
  for (const listener of choiceListeners) listener(language);
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Without storage the choice lasts until the tab is closed.
  }
  await show(language);
}

// The active language as a locale for Intl (numbers, money, dates). Components that format call
// this so they re-render when the language changes.
export function useLocale(): string {
  return useTranslation().i18n.language;
}

// Components translate with these, imported from here rather than from react-i18next, so the
// instance above is always set up before the first t().
export { Trans, useTranslation } from 'react-i18next';

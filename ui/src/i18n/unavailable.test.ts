import { describe, expect, it, vi } from 'vitest';
import { chooseLanguage, i18n } from './index';

// The German chunk cannot be fetched, as after a deploy that replaced it.
vi.mock('./de', () => {
  throw new Error('Failed to fetch dynamically imported module');
});

describe('a language whose texts cannot be loaded', () => {
  it('leaves the page in English, and says so in <html lang>', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    await chooseLanguage('de');
    expect(i18n.language).toBe('en');
    expect(document.documentElement.lang).toBe('en');
    expect(i18n.t('notFound.title')).toBe('Page not found');
    expect(logged).toHaveBeenCalledWith('the texts for "de" could not be loaded; showing English');
  });
});

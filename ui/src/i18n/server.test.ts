import { afterEach, describe, expect, it, vi } from 'vitest';

// The public pages are also prerendered on a server, where there is no window, document, storage
// or navigator: loading the texts and rendering must not need them.
describe('without a browser', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('loads, and renders in English', async () => {
    vi.resetModules();
    for (const name of ['window', 'document', 'localStorage', 'sessionStorage', 'navigator']) vi.stubGlobal(name, undefined);
    const { createElement } = await import('react');
    const { renderToString } = await import('react-dom/server');
    const { i18n, useTranslation } = await import('./index');

    function Probe() {
      const { t } = useTranslation('plans');
      return createElement('h1', null, t('heading'));
    }
    expect(i18n.language).toBe('en');
    expect(renderToString(createElement(Probe))).toBe('<h1>Portfolio Plans</h1>');
  });
});

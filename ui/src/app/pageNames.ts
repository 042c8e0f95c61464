import { useTranslation } from '../i18n';
import { labelOf, menuLinks, pages, type Menu, type PageRoute, type Viewer } from './routes';

// Page names in the reader's language. English is the route table itself (title and label in
// routes.ts); every other language translates them in its pages.json, keyed by the page's path
// exactly as the table spells it ("/investment-plans", "/pending-kyc/:id", "*"), with a `title`
// and, where the table gives one, a `label`. A name not translated yet shows in English.
export function usePageNames() {
  const { t } = useTranslation('pages');
  // Paths hold ':' before parameters, so the namespace separator is off for these keys.
  const lookup = (page: PageRoute, field: 'title' | 'label', english: string) =>
    t(`${page.path}.${field}`, { defaultValue: english, nsSeparator: false });
  return {
    title: (page: PageRoute) => (page.title === undefined ? undefined : lookup(page, 'title', page.title)),
    label: (page: PageRoute) =>
      page.label !== undefined
        ? lookup(page, 'label', page.label)
        : page.title !== undefined
          ? lookup(page, 'title', page.title)
          : labelOf(page),
  };
}

// menuLinks, named in the reader's language; the component re-renders when the language changes.
export function useMenuLinks(menu: Menu, viewer: Viewer) {
  const names = usePageNames();
  return menuLinks(menu, viewer, pages, names.label);
}

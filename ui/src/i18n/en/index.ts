import common from './common.json';
import plans from './plans.json';

// The page names in English are the route table's own titles and labels (app/routes.ts), so this
// namespace is empty in English; other languages translate them in their pages.json, keyed by the
// page's path (docs/i18n.md, "Page names").
export type PageNames = Record<string, { title?: string; label?: string }>;
const pages: PageNames = {};

// English ships in the main bundle: it is the default and the fallback of every other language.
export const en = { common, plans, pages };

export type Namespace = keyof typeof en;

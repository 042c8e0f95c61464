import 'i18next';
import type { en } from './en';

// Keys are checked against the English texts: t('nav.menu') compiles, a misspelt key does not.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: typeof en;
  }
}

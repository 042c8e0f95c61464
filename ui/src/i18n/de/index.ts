import type { Namespace } from '../en';
import common from './common.json';
import pages from './pages.json';
import plans from './plans.json';

// German, in its own chunk: loaded only when someone chooses it (or their browser asks for it).
export const de: Record<Namespace, object> = { common, plans, pages };

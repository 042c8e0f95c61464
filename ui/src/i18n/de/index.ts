import type { Namespace } from '../en';
import common from './common.json';
import community from './community.json';
import deposits from './deposits.json';
import forms from './forms.json';
import home from './home.json';
import market from './market.json';
import pages from './pages.json';
import plans from './plans.json';
import support from './support.json';
import withdrawals from './withdrawals.json';

// German, in its own chunk: loaded only when someone chooses it (or their browser asks for it).
export const de: Record<Namespace, object> = { common, home, community, market, support, plans, pages, forms, withdrawals, deposits };

import type { Namespace } from '../en';
import auth from './auth.json';
import common from './common.json';
import community from './community.json';
import deposits from './deposits.json';
import forms from './forms.json';
import history from './history.json';
import dashboard from './dashboard.json';
import home from './home.json';
import invest from './invest.json';
import kyc from './kyc.json';
import labels from './labels.json';
import market from './market.json';
import member from './member.json';
import pages from './pages.json';
import plans from './plans.json';
import shell from './shell.json';
import staff from './staff.json';
import support from './support.json';
import withdrawals from './withdrawals.json';
import corrections from './corrections.json';
import impersonation from './impersonation.json';
import mail from './mail.json';
import audit from './audit.json';
import settings from './settings.json';
import passkeys from './passkeys.json';
import chain from './chain.json';

// German, in its own chunk: loaded only when someone chooses it (or their browser asks for it).
export const de: Record<Namespace, object> = { common, history, home, invest, community, market, support, plans, labels, auth, member, staff, kyc, pages, shell, dashboard, forms, withdrawals, deposits,
  corrections, impersonation, mail, audit, settings, passkeys, chain };

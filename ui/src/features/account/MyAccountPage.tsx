import { Link } from 'react-router';
import { useGetMyKycQuery, useSendVerificationEmailMutation, type User } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { DecisionReasons } from '../../components/DecisionReasons';
import { useGateLink, useInvestGate } from '../../components/investGate';
import { QueryState } from '../../components/QueryState';
import { RetryButton } from '../../components/RetryButton';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { useSettleDueInvestments } from '../../components/settleDue';
import { useTranslation } from '../../i18n';
import { isStaff, useCurrentUser } from '../auth/session';
import { WaitingForYou } from './WaitingForYou';
import { ChainWatchers } from './ChainWatchers';
import { DashboardPanels } from './DashboardPanels';
import './dashboard.css';

function VerifyEmailBanner() {
  const { t } = useTranslation('dashboard');
  const run = useRunMutation();
  const [send, { isLoading }] = useSendVerificationEmailMutation();
  const [formError, setFormError] = useFormError();
  const resend = async () => {
    if (isLoading) return;
    await run(send(), { fallback: t('verify.failed'), success: ({ message }) => message, formError: setFormError });
  };
  return (
    <div className="banner banner--warning">
      <p>
        <strong>{t('verify.title')}</strong> {t('verify.body')}{' '}
        <button type="button" className="link-button" aria-disabled={isLoading || undefined} onClick={() => void resend()}>
          {isLoading ? t('verify.sending') : t('verify.resend')}
        </button>
      </p>
      <FormError message={formError} />
    </div>
  );
}

// The investor's identity check, while it still stands between them and investing.
function KycNotice({ status }: { status: User['kycStatus'] }) {
  const { t } = useTranslation('dashboard');
  if (status === 'Approved') return null;
  if (status === 'Pending') {
    return (
      <div className="banner banner--info" data-testid="kyc-notice">
        <p>
          <strong>{t('kyc.pendingTitle')}</strong> {t('kyc.pendingBody')}
        </p>
      </div>
    );
  }
  if (status === 'Rejected') return <KycRejectedNotice />;
  return (
    <div className="banner banner--info" data-testid="kyc-notice">
      <p>
        <strong>{t('kyc.missingTitle')}</strong> {t('kyc.missingBody')} <Link to="/upload-kyc">{t('kyc.upload')}</Link>
      </p>
    </div>
  );
}

// A rejection with the reviewer's reasons, so the user knows what to fix before re-uploading.
function KycRejectedNotice() {
  const { t } = useTranslation('dashboard');
  const kyc = useGetMyKycQuery({});
  const decision = kyc.data?.lastDecision;
  return (
    <div className="banner banner--error" data-testid="kyc-notice">
      <p>
        <strong>{t('kyc.rejectedTitle')}</strong> {t('kyc.rejectedBody')}
      </p>
      {decision && decision.status === 'Rejected' ? <DecisionReasons decision={decision} /> : null}
      <p>
        <Link to="/upload-kyc">{t('kyc.uploadAgain')}</Link>
      </p>
    </div>
  );
}

function ActionLink({ to, label, note, primary }: { to: string; label: string; note: string; primary?: boolean }) {
  return (
    <Link className={`action-tile money-action${primary ? ' money-action--primary' : ''}`} to={to}>
      <span className="money-action__label">{label}</span>
      <span className="money-action__note">{note}</span>
    </Link>
  );
}

// "Invest" opens only when the server says the investor may invest; otherwise the tile says why,
// with the way forward when there is one.
function InvestAction({ user }: { user: User }) {
  const { t } = useTranslation('dashboard');
  const { t: ti } = useTranslation('invest');
  const gate = useInvestGate();
  const gateLink = useGateLink();
  const label = t('actions.invest');
  if (gate.state === 'unknown') {
    // The check failed: nothing is known, so the tile offers only to ask again, calmly.
    return (
      <div className="action-tile money-action money-action--closed" data-testid="invest-gate-unknown">
        <span className="money-action__label">{label}</span>
        <span className="money-action__note">{ti('gate.unknown')}</span>
        <RetryButton busy={gate.retrying} onRetry={gate.retry} className="button button--secondary button--small" />
      </div>
    );
  }
  if (gate.state !== 'closed') return <ActionLink to="/start-invest" label={label} note={t('actions.investNote')} primary />;
  const link = gateLink(user);
  return (
    <div className="action-tile money-action money-action--closed" data-testid="invest-gate">
      <span className="money-action__label">
        {label} <span className="badge">{t('actions.locked')}</span>
      </span>
      <span className="money-action__note">{gate.message}</span>
      {link ? (
        <Link className="money-action__link" to={link.to}>
          {link.label}
        </Link>
      ) : null}
    </div>
  );
}

function Figure({ label, amount, lead }: { label: string; amount: string; lead?: boolean }) {
  return (
    <div className={`figure${lead ? ' figure--lead' : ''}`}>
      <dt className="figure__label">{label}</dt>
      <dd className="figure__value">
        <Amount amount={amount} />
      </dd>
    </div>
  );
}

// The dashboard, in the order a person looks for things: what they have, what they can do with
// it, what is waiting, then how it moved over time. Staff see their own money the same way, but
// none of the prompts that lead an investor through the identity check and into a first plan.
function Dashboard({ user }: { user: User }) {
  const { t } = useTranslation('dashboard');
  // A staff member viewing as the user changes nothing, not even this.
  useSettleDueInvestments(!user.isImpersonated);
  const staff = isStaff(user.role);
  const firstName = user.name.trim().split(/\s+/)[0] || user.name;
  return (
    <div className="dashboard">
      <header className="dashboard__head">
        <p className="eyebrow">{t('eyebrow')}</p>
        <h1 id="account-title">{t('welcome', { name: firstName })}</h1>
      </header>
      {!user.isVerified ? <VerifyEmailBanner /> : null}
      {staff ? <WaitingForYou /> : null}
      {staff ? <ChainWatchers /> : null}

      <section aria-labelledby="money-title" className="dashboard__section">
        <h2 id="money-title" className="visually-hidden">
          {t('money.title')}
        </h2>
        <dl className="figures dashboard__figures">
          <Figure label={t('money.available')} amount={user.balance} lead />
          <Figure label={t('money.invested')} amount={user.investmentBalance} />
          <Figure label={t('money.returns')} amount={user.totalMaturityAmount} />
          {user.hasFees ? <Figure label={t('money.fees')} amount={user.fees} /> : null}
        </dl>
      </section>

      <section aria-labelledby="actions-title" className="dashboard__section">
        <h2 id="actions-title" className="visually-hidden">
          {t('actions.title')}
        </h2>
        <ul className="actions-grid money-actions">
          <li>
            <ActionLink to="/deposit-payment" label={t('actions.deposit')} note={t('actions.depositNote')} />
          </li>
          <li>
            {staff ? (
              <ActionLink to="/start-invest" label={t('actions.invest')} note={t('actions.investNote')} primary />
            ) : (
              <InvestAction user={user} />
            )}
          </li>
          <li>
            <ActionLink to="/withdraw-wallet" label={t('actions.withdraw')} note={t('actions.withdrawNote')} />
          </li>
        </ul>
      </section>

      <DashboardPanels notice={staff ? null : <KycNotice status={user.kycStatus} />} />

      {staff ? null : (
        <section className="card share-link" aria-labelledby="share-title">
          <div>
            <h2 id="share-title" className="panel__title">
              {t('share.title')}
            </h2>
            <p className="muted">{t('share.body')}</p>
          </div>
          <Link className="button button--secondary" to="/share-your-experience">
            {t('share.link')}
          </Link>
        </section>
      )}
    </div>
  );
}

export function MyAccountPage() {
  const { t } = useTranslation('dashboard');
  const me = useCurrentUser();
  return (
    <section className="page container" aria-labelledby="account-title">
      <QueryState query={me} loading={t('loading')} failed={t('failed')} heading={<h1 id="account-title">{t('title')}</h1>}>
        {(user) => <Dashboard user={user} />}
      </QueryState>
    </section>
  );
}

import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { apiErrorInfo, errorMessage } from '../../api/errors';
import {
  useLazyGetInvestmentQuoteQuery,
  useListPlansQuery,
  useStartInvestmentMutation,
  type Investment,
  type InvestmentQuote,
  type Plan,
} from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { useGateLink, useInvestGate } from '../../components/investGate';
import { QueryState } from '../../components/QueryState';
import { RedirectCountdown } from '../../components/RedirectCountdown';
import { RetryButton } from '../../components/RetryButton';
import { Spinner } from '../../components/Spinner';
import { FormError, useFormError } from '../../components/form/FormError';
import { FieldMessage } from '../../components/form/TextField';
import { useRunMutation } from '../../components/useRunMutation';
import { useCurrentUser } from '../auth/session';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { aprPercent, termRatePercent } from '../../components/planWords';
import { RiskNotice } from '../../components/RiskNotice';
import { formatDate } from '../../components/format';
import { Trans, useLocale, useTranslation } from '../../i18n';

// After an investment is requested the page goes to the dashboard after this many seconds.
export const REDIRECT_SECONDS = 2;

// Step 1: a plan and an amount. The figures of step 2 are the server's (GET /api/invest/quote),
// worked out with the plan's current terms: the page formats them and does no money arithmetic.
function ChoosePlan({ plans, onQuoted }: { plans: Plan[]; onQuoted: (q: InvestmentQuote) => void }) {
  const { t } = useTranslation('invest');
  const locale = useLocale();
  const [formError, setFormError] = useFormError();
  const [amountError, setAmountError] = useState('');
  const [params] = useSearchParams();
  const preselected = plans.find((p) => p._id === params.get('plan'));
  const [planName, setPlanName] = useState(preselected?.name ?? '');
  const [amount, setAmount] = useState('');
  const [quote, { isFetching }] = useLazyGetInvestmentQuoteQuery();

  const review = async (event: FormEvent) => {
    event.preventDefault();
    if (isFetching) return;
    setFormError(null);
    setAmountError('');
    if (!planName) {
      setFormError(t('start.selectPlan'));
      return;
    }
    try {
      onQuoted(await quote({ planName, amount: amount.trim() }).unwrap());
    } catch (raw) {
      const message = errorMessage(raw, t('start.quoteFailed'));
      // A refusal of the amount is said on the amount, which takes the focus.
      if (apiErrorInfo(raw).field === 'amount') {
        setAmountError(message);
        document.getElementById('invest-amount')?.focus();
      } else setFormError(message);
    }
  };

  return (
    <>
    <FormError message={formError} />
    <form className="form" onSubmit={(e) => void review(e)} noValidate>
      <fieldset className="stack">
        <legend className="field__label">{t('start.plan')}</legend>
        {plans.map((p) => (
          <div key={p._id} className="choice card" data-testid="plan-choice">
            <input
              id={`plan-${p._id}`}
              type="radio"
              name="plan"
              value={p.name}
              checked={planName === p.name}
              onChange={() => setPlanName(p.name)}
              aria-describedby={`plan-${p._id}-terms`}
            />
            <label htmlFor={`plan-${p._id}`} className="choice__label">
              {p.name}
            </label>
            <p id={`plan-${p._id}-terms`} className="choice__detail">
              <Trans
                t={t}
                i18nKey="start.planTerms"
                values={{ days: t('days', { count: p.termDays }), rate: termRatePercent(p.termRate, locale), apr: aprPercent(p.apr, locale) }}
                components={{ min: <Amount amount={p.min} />, max: <Amount amount={p.max} /> }}
              />
            </p>
          </div>
        ))}
      </fieldset>
      <div className="field" data-invalid={amountError ? true : undefined}>
        <label className="field__label" htmlFor="invest-amount">
          {t('start.amount')}
        </label>
        <input
          id="invest-amount"
          className="field__input"
          inputMode="decimal"
          autoComplete="off"
          value={amount}
          onChange={(e) => {
            setAmount(e.target.value);
            setAmountError('');
          }}
          aria-invalid={amountError ? true : undefined}
          aria-describedby={amountError ? 'invest-amount-error' : undefined}
        />
        <FieldMessage id="invest-amount-error" message={amountError || undefined} />
      </div>
      <button type="submit" className="button" aria-disabled={isFetching || undefined}>
        {isFetching ? t('start.reviewing') : t('start.review')}
      </button>
    </form>
    </>
  );
}

// Step 2: the figures, the risk notice to acknowledge, then the request. One Idempotency-Key per
// confirmation step, so a double click or a retry after a lost answer asks once.
// The request carries the plan version the figures came from: if the plan's terms changed since,
// the server refuses it with the new figures, which replace these and are to be reviewed again.
function Confirm({
  quote,
  notice,
  onBack,
  onStarted,
  onQuoteChanged,
}: {
  quote: InvestmentQuote;
  notice: string | null;
  onBack: () => void;
  onStarted: (i: Investment) => void;
  onQuoteChanged: (q: InvestmentQuote, message: string) => void;
}) {
  const { t } = useTranslation('invest');
  const locale = useLocale();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [start, { isLoading }] = useStartInvestmentMutation();
  const [key] = useState(newIdempotencyKey);
  const [acknowledged, setAcknowledged] = useState(false);

  const confirm = async () => {
    if (isLoading) return;
    if (!acknowledged) {
      setFormError(t('start.acknowledgeRisk'));
      return;
    }
    const request = { planName: quote.plan, amount: quote.amount, planVersion: quote.planVersion };
    const outcome = await run(start({ 'Idempotency-Key': key, startInvestmentRequest: request }), {
      fallback: t('start.failed'),
      success: t('start.requested'),
      formError: setFormError,
      handled: (e) => e.code === 'plan_changed' && e.investmentQuote !== undefined,
    });
    if (outcome.ok) onStarted(outcome.data);
    else if (outcome.error.code === 'plan_changed' && outcome.error.investmentQuote) onQuoteChanged(outcome.error.investmentQuote, outcome.message);
  };

  const rows: [string, ReactNode][] = [
    [t('detail.plan'), quote.plan],
    [t('detail.amount'), <Amount amount={quote.amount} />],
    [t('detail.term'), t('days', { count: quote.termDays })],
    [t('detail.rate'), termRatePercent(quote.termRate, locale)],
    [t('detail.apr'), t('detail.aprValue', { apr: aprPercent(quote.apr, locale) })],
    [t('detail.return'), <Amount amount={quote.return} />],
    [t('detail.paidAtMaturity'), <strong data-testid="quote-payout"><Amount amount={quote.payout} /></strong>],
    [t('start.maturesOn'), t('start.maturesOnValue', { date: formatDate(quote.maturesAt) })],
  ];
  return (
    <div className="stack" data-testid="invest-confirm">
      <h2 className="section-title">{t('start.checkTitle')}</h2>
      <FormError message={formError} />
      {notice ? (
        <p className="panel panel--warning" role="alert" data-testid="invest-quote-changed">
          {notice}
        </p>
      ) : null}
      <dl className="facts">
        {rows.map(([term, value]) => (
          <div key={term} className="facts__row">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        <Trans t={t} i18nKey="start.held" components={{ amount: <Amount amount={quote.available} /> }} />
      </p>
      <RiskNotice />
      <label className="checkbox">
        <input type="checkbox" checked={acknowledged} onChange={(e) => setAcknowledged(e.target.checked)} />
        {t('start.acknowledge')}
      </label>
      <div className="button-row">
        <button type="button" className="button" aria-disabled={isLoading || !acknowledged || undefined} onClick={() => void confirm()}>
          {isLoading ? t('start.sending') : t('start.confirm')}
        </button>
        <button type="button" className="button button--secondary" onClick={onBack}>
          {t('start.change')}
        </button>
      </div>
    </div>
  );
}

function StartInvest() {
  const { t } = useTranslation('invest');
  const plans = useListPlansQuery();
  const [quote, setQuote] = useState<InvestmentQuote | null>(null);
  const [notice, setNotice] = useState<{ text: string; round: number } | null>(null);
  const [started, setStarted] = useState<Investment | null>(null);
  if (started) {
    return (
      <div className="panel" data-testid="invest-started">
        <h2 className="panel__title">{t('start.startedTitle')}</h2>
        <p>
          <Trans t={t} i18nKey="start.started" values={{ plan: started.plan }} components={{ amount: <Amount amount={started.amount} /> }} />{' '}
          <Link to={`/investment/${started._id}`}>{t('start.seeInvestment')}</Link>
        </p>
        <RedirectCountdown seconds={REDIRECT_SECONDS} />
      </div>
    );
  }
  if (quote) {
    return (
      <Confirm
        // New terms are a new confirmation step: the risk notice is acknowledged again, under a new key.
        key={notice?.round ?? 0}
        quote={quote}
        notice={notice?.text ?? null}
        onBack={() => {
          setQuote(null);
          setNotice(null);
        }}
        onStarted={setStarted}
        onQuoteChanged={(q, text) => {
          setQuote(q);
          setNotice((n) => ({ text, round: (n?.round ?? 0) + 1 }));
        }}
      />
    );
  }
  return (
    <QueryState
      query={plans}
      loading={t('start.loadingPlans')}
      failed={t('start.plansFailed')}
      empty={{ when: (data) => data.plans.length === 0, message: t('start.noPlans') }}
    >
      {(data) => <ChoosePlan plans={data.plans} onQuoted={setQuote} />}
    </QueryState>
  );
}

export function StartInvestPage() {
  const { t } = useTranslation('invest');
  const gate = useInvestGate();
  const { data: user } = useCurrentUser();
  const gateLink = useGateLink();
  const link = user ? gateLink(user) : null;
  return (
    <section className="page container page--narrow" aria-labelledby="start-invest-title">
      <h1 id="start-invest-title">{t('start.title')}</h1>
      {gate.state === 'checking' ? <Spinner label={t('gate.checking')} /> : null}
      {gate.state === 'closed' ? (
        <div className="panel panel--warning" data-testid="invest-gate">
          <h2 className="panel__title">{t('gate.closedTitle')}</h2>
          <p>{gate.message}</p>
          {link ? (
            <Link className="button" to={link.to}>
              {link.label}
            </Link>
          ) : !user?.isVerified ? (
            <Link to="/my-account">{t('gate.resend')}</Link>
          ) : null}
        </div>
      ) : null}
      {gate.state === 'unknown' ? (
        // The check failed: a calm note and a way to ask again, never an action that may be refused.
        <div className="panel" data-testid="invest-gate-unknown">
          <p>{t('gate.unknownRetry')}</p>
          <RetryButton busy={gate.retrying} onRetry={gate.retry} />
        </div>
      ) : null}
      {gate.state === 'open' ? <StartInvest /> : null}
    </section>
  );
}

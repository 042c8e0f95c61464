import { Link } from 'react-router';
import { useListPlansQuery, type Plan } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { QueryState } from '../../components/QueryState';
import { aprPercent, termRatePercent } from '../../components/planWords';
import { RiskNotice } from '../../components/RiskNotice';
import { Trans, useLocale, useTranslation } from '../../i18n';

// The plan catalogue for everyone, signed in or not. Every figure is the server's: the terms,
// the annualised rate and the worked example come from GET /api/invest/plans, computed by the
// same rules an investment follows (docs/plans.md). The page only formats them, in the reader's
// language (docs/i18n.md).

function PlanCard({ plan }: { plan: Plan }) {
  const { t } = useTranslation('plans');
  const locale = useLocale();
  const titleId = `plan-${plan._id}-name`;
  const { example } = plan;
  return (
    <li className="card plan-card" data-testid="plan-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="plan-card__name">
        {plan.name}
      </h2>
      <dl className="plan-card__terms">
        <div>
          <dt>{t('card.amount')}</dt>
          <dd>
            <Trans
              t={t}
              i18nKey="card.range"
              components={{ min: <Amount amount={plan.min} />, max: <Amount amount={plan.max} /> }}
            />
          </dd>
        </div>
        <div>
          <dt>{t('card.term')}</dt>
          <dd>{t('days', { count: plan.termDays })}</dd>
        </div>
        <div>
          <dt>{t('card.termRate')}</dt>
          <dd data-testid="plan-term-rate">{termRatePercent(plan.termRate, locale)}</dd>
        </div>
        <div>
          <dt>{t('card.apr')}</dt>
          <dd data-testid="plan-apr">{t('card.aprValue', { rate: aprPercent(plan.apr, locale) })}</dd>
        </div>
      </dl>
      <p className="plan-card__example" data-testid="plan-example">
        <Trans
          t={t}
          i18nKey="card.example"
          values={{ days: t('days', { count: example.maturityDays }) }}
          components={{
            amount: <Amount amount={example.amount} />,
            payout: <Amount amount={example.payout} />,
            profit: <Amount amount={example.return} />,
            arrow: <span aria-hidden="true" />,
            hidden: <span className="visually-hidden" />,
            return: <span className="plan-card__return" />,
          }}
        />
      </p>
      <Link
        className="button plan-card__cta"
        to={`/start-invest?plan=${encodeURIComponent(plan._id)}`}
        aria-label={t('card.ctaLabel', { plan: plan.name })}
      >
        {t('card.cta')}
      </Link>
    </li>
  );
}

export function PlansPage() {
  const { t } = useTranslation('plans');
  const plans = useListPlansQuery();
  return (
    <section className="page container" aria-labelledby="plans-title">
      <h1 id="plans-title">{t('heading')}</h1>
      <p className="plans__lead muted">{t('lead')}</p>
      <RiskNotice />
      <QueryState
        query={plans}
        loading={t('loading')}
        failed={t('failed')}
        empty={{ when: (data) => data.plans.length === 0, message: t('empty') }}
      >
        {(data) => (
          <>
            <ul className="card-grid" aria-label={t('listLabel')} aria-busy={plans.isFetching || undefined}>
              {data.plans.map((plan) => (
                <PlanCard key={plan._id} plan={plan} />
              ))}
            </ul>
            <p className="muted plans__footnote">{t('footnote')}</p>
          </>
        )}
      </QueryState>
    </section>
  );
}

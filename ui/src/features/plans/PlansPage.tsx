import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { HydrateLater } from '../../app/hydration';
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

// What a plan card shows, each part already in words. The server fills the same card for visitors
// without JavaScript (api/livepages.go, from PlanCardTemplate below), so the card's markup is made
// from these parts and nothing else: a real plan and the template then render the same markup.
export interface PlanCardParts {
  id: string;
  name: string;
  min: ReactNode;
  max: ReactNode;
  term: string;
  termRate: string;
  apr: string;
  exampleAmount: ReactNode;
  examplePayout: ReactNode;
  exampleReturn: ReactNode;
  exampleTerm: string;
}

export function PlanCardView({ parts }: { parts: PlanCardParts }) {
  const { t } = useTranslation('plans');
  const titleId = `plan-${parts.id}-name`;
  return (
    <li className="card plan-card" data-testid="plan-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="plan-card__name">
        {parts.name}
      </h2>
      <dl className="plan-card__terms">
        <div>
          <dt>{t('card.amount')}</dt>
          <dd>
            <Trans t={t} i18nKey="card.range" components={{ min: <>{parts.min}</>, max: <>{parts.max}</> }} />
          </dd>
        </div>
        <div>
          <dt>{t('card.term')}</dt>
          <dd>{parts.term}</dd>
        </div>
        <div>
          <dt>{t('card.termRate')}</dt>
          <dd data-testid="plan-term-rate">{parts.termRate}</dd>
        </div>
        <div>
          <dt>{t('card.apr')}</dt>
          <dd data-testid="plan-apr">{t('card.aprValue', { rate: parts.apr })}</dd>
        </div>
      </dl>
      <p className="plan-card__example" data-testid="plan-example">
        <Trans
          t={t}
          i18nKey="card.example"
          values={{ days: parts.exampleTerm }}
          components={{
            amount: <>{parts.exampleAmount}</>,
            payout: <>{parts.examplePayout}</>,
            profit: <>{parts.exampleReturn}</>,
            arrow: <span aria-hidden="true" />,
            hidden: <span className="visually-hidden" />,
            return: <span className="plan-card__return" />,
          }}
        />
      </p>
      <Link
        className="button plan-card__cta"
        to={`/start-invest?plan=${encodeURIComponent(parts.id)}`}
        aria-label={t('card.ctaLabel', { plan: parts.name })}
      >
        {t('card.cta')}
      </Link>
    </li>
  );
}

export function PlanCard({ plan }: { plan: Plan }) {
  const { t } = useTranslation('plans');
  const locale = useLocale();
  const { example } = plan;
  return (
    <PlanCardView
      parts={{
        id: plan._id,
        name: plan.name,
        min: <Amount amount={plan.min} />,
        max: <Amount amount={plan.max} />,
        term: t('days', { count: plan.termDays }),
        termRate: termRatePercent(plan.termRate, locale),
        apr: aprPercent(plan.apr, locale),
        exampleAmount: <Amount amount={example.amount} />,
        examplePayout: <Amount amount={example.payout} />,
        exampleReturn: <Amount amount={example.return} />,
        exampleTerm: t('days', { count: example.maturityDays }),
      }}
    />
  );
}

// The card with a token in place of each part, for the server to fill (api/livepages.go): the
// build writes it beside the prerendered page (scripts/prerender.mjs).
export const PLAN_CARD_TOKENS: Record<keyof PlanCardParts, string> = {
  id: '__PLAN_ID__',
  name: '__PLAN_NAME__',
  min: '__PLAN_MIN__',
  max: '__PLAN_MAX__',
  term: '__PLAN_TERM__',
  termRate: '__PLAN_TERM_RATE__',
  apr: '__PLAN_APR__',
  exampleAmount: '__PLAN_EXAMPLE_AMOUNT__',
  examplePayout: '__PLAN_EXAMPLE_PAYOUT__',
  exampleReturn: '__PLAN_EXAMPLE_RETURN__',
  exampleTerm: '__PLAN_EXAMPLE_TERM__',
};

export function PlanCardTemplate() {
  return <PlanCardView parts={PLAN_CARD_TOKENS} />;
}

export function PlansPage() {
  const { t } = useTranslation('plans');
  const plans = useListPlansQuery();
  return (
    <section className="page container" aria-labelledby="plans-title">
      <h1 id="plans-title">{t('heading')}</h1>
      <p className="plans__lead muted">{t('lead')}</p>
      <HydrateLater name="plans-risk">{() => <RiskNotice />}</HydrateLater>
      <QueryState
        query={plans}
        loading={t('loading')}
        failed={t('failed')}
        empty={{ when: (data) => data.plans.length === 0, message: t('empty') }}
      >
        {(data) => (
          <>
            <ul className="card-grid" aria-label={t('listLabel')} aria-busy={plans.isFetching || undefined}>
              {/* Each card hydrates in a task of its own after the page's first pass: the cards'
                  sentences (Trans) are most of the page's hydration work, and one pass over all of
                  them held a slow phone's main thread for long (docs/public-site.md, "Hydration"). */}
              {data.plans.map((plan) => (
                <HydrateLater key={plan._id} name={`plan-${plan._id}`}>
                  {() => <PlanCard plan={plan} />}
                </HydrateLater>
              ))}
            </ul>
            <p className="muted plans__footnote">{t('footnote')}</p>
          </>
        )}
      </QueryState>
    </section>
  );
}

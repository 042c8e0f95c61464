import { Link } from 'react-router';
import { useGetInvestmentHistoryQuery, type Investment } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDate } from '../../components/format';
import { sumAmounts } from '../../components/money';
import { QueryState } from '../../components/QueryState';
import { Trans, useTranslation } from '../../i18n';
import { investmentBadge, useStatusText } from './investWords';

const DAY_MS = 24 * 60 * 60 * 1000;

// Whole days of the term that have passed by the server's clock (asOf), within 0..term.
export function daysElapsed(inv: Investment, asOf: string): number {
  if (!inv.startDate) return 0;
  const elapsed = Math.floor((new Date(asOf).getTime() - new Date(inv.startDate).getTime()) / DAY_MS);
  return Math.min(Math.max(elapsed, 0), inv.termDays);
}

function TermProgress({ inv, asOf }: { inv: Investment; asOf: string }) {
  const { t } = useTranslation('invest');
  const elapsed = daysElapsed(inv, asOf);
  const text = t('portfolio.progress', { elapsed, term: inv.termDays });
  const percent = inv.termDays > 0 ? (elapsed / inv.termDays) * 100 : 0;
  return (
    <div className="term-progress">
      <div
        className="term-progress__track"
        role="progressbar"
        aria-label={t('portfolio.progressLabel', { plan: inv.plan })}
        aria-valuemin={0}
        aria-valuemax={inv.termDays}
        aria-valuenow={elapsed}
        aria-valuetext={text}
        data-testid="term-progress"
      >
        <span className="term-progress__bar" style={{ width: `${percent}%` }} />
      </div>
      <p className="term-progress__text">
        <span>{text}</span>
        {inv.endDate ? <span>{t('portfolio.maturesOn', { date: formatDate(inv.endDate) })}</span> : null}
      </p>
    </div>
  );
}

function Row({ inv, asOf }: { inv: Investment; asOf: string }) {
  const { t } = useTranslation('invest');
  const statusText = useStatusText();
  const ended = inv.status === 'Ended' || inv.status === 'Rejected';
  const paid = inv.closedEarly ? inv.amount : inv.payout;
  let when = '';
  if (inv.status === 'Pending') when = t('portfolio.requestedOn', { date: formatDate(inv.requestedAt) });
  else if (ended && (inv.closedAt ?? inv.decidedAt)) when = t('portfolio.endedOn', { date: formatDate(inv.closedAt ?? inv.decidedAt) });
  return (
    <li className="portfolio-item" data-testid="investment-item">
      <div className="portfolio-item__head">
        <h3 className="portfolio-item__name">
          <Link to={`/investment/${encodeURIComponent(inv._id)}`}>
            <Trans t={t} i18nKey="portfolio.in" values={{ plan: inv.plan }} components={{ amount: <Amount amount={inv.amount} /> }} />
          </Link>
        </h3>
        <span className={investmentBadge(inv.status)} data-testid="investment-status">
          {statusText(inv.status, inv.closedEarly)}
        </span>
      </div>
      <p className="portfolio-item__meta">
        <span className="movement__ref">{inv.reference}</span>
        <span>{t('days', { count: inv.termDays })}</span>
        {when ? <span>{when}</span> : null}
        {inv.status !== 'Rejected' ? (
          <span className="portfolio-item__pays">
            <Trans t={t} i18nKey={inv.status === 'Ended' ? 'portfolio.paid' : 'portfolio.pays'} components={{ amount: <Amount amount={paid} /> }} />
          </span>
        ) : null}
      </p>
      {inv.status === 'Active' ? <TermProgress inv={inv} asOf={asOf} /> : null}
    </li>
  );
}

function Totals({ investments }: { investments: Investment[] }) {
  const { t } = useTranslation('invest');
  const active = investments.filter((i) => i.status === 'Active');
  // A matured investment earned its return; one closed early gave it up.
  const matured = investments.filter((i) => i.status === 'Ended' && !i.closedEarly);
  const figures: [string, string, string?][] = [
    [t('portfolio.investedNow'), sumAmounts(active.map((i) => i.amount))],
    [t('portfolio.expectedReturns'), sumAmounts(active.map((i) => i.maturityAmount)), t('portfolio.expectedReturnsNote')],
    [t('portfolio.earned'), sumAmounts(matured.map((i) => i.maturityAmount))],
  ];
  return (
    <section className="figures portfolio-totals" aria-label={t('portfolio.totals')} data-testid="portfolio-totals">
      {figures.map(([label, amount, note]) => (
        <div key={label} className="figure">
          <p className="figure__label">{label}</p>
          <p className="figure__value">
            <Amount amount={amount} />
          </p>
          {note ? <p className="figure__note">{note}</p> : null}
        </div>
      ))}
    </section>
  );
}

function Section({ id, title, none, list, asOf }: { id: string; title: string; none: string; list: Investment[]; asOf: string }) {
  return (
    <section aria-labelledby={id} className="portfolio-section" data-testid={id}>
      <h2 id={id} className="statement-section__title">
        {title}
      </h2>
      {list.length === 0 ? (
        <p className="muted">{none}</p>
      ) : (
        <ul className="portfolio-list">
          {list.map((inv) => (
            <Row key={inv._id} inv={inv} asOf={asOf} />
          ))}
        </ul>
      )}
    </section>
  );
}

export function InvestStatusPage() {
  const { t } = useTranslation('invest');
  const list = useGetInvestmentHistoryQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="portfolio-title">
      <h1 id="portfolio-title">{t('portfolio.title')}</h1>
      <QueryState
        query={list}
        loading={t('portfolio.loading')}
        failed={t('portfolio.failed')}
        empty={{
          when: (data) => data.investments.length === 0,
          message: (
            <>
              {t('portfolio.empty')} <Link to="/start-invest">{t('portfolio.start')}</Link>
            </>
          ),
        }}
      >
        {(data) => {
          const running = data.investments.filter((i) => i.status === 'Active' || i.status === 'Pending');
          const ended = data.investments.filter((i) => i.status === 'Ended' || i.status === 'Rejected');
          return (
            <div aria-busy={list.isFetching || undefined}>
              <Totals investments={data.investments} />
              <Section id="portfolio-active" title={t('portfolio.active')} none={t('portfolio.activeNone')} list={running} asOf={data.asOf} />
              <Section id="portfolio-ended" title={t('portfolio.ended')} none={t('portfolio.endedNone')} list={ended} asOf={data.asOf} />
            </div>
          );
        }}
      </QueryState>
    </section>
  );
}

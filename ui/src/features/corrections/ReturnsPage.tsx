import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { StaffInvestment } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDate } from '../../components/format';
import { termRatePercent } from '../../components/planWords';
import { useLabels } from '../../components/labels';
import { useLocale, useTranslation } from '../../i18n';
import { UserMoneyFrame, useUserID } from './shared';

// /edit-balance/:id: a user's investments, each with the plan terms captured when it was made.
// Returns follow those terms and cannot be edited (PUT /api/users/updateDepositBalance/{id} is
// always refused with that explanation); a mistake is put right with a balance correction.

function InvestmentItem({ inv }: { inv: StaffInvestment }) {
  const { t } = useTranslation('corrections');
  const locale = useLocale();
  const labels = useLabels();
  const rows: [string, ReactNode][] = [
    [t('returns.amount'), <Amount key="a" amount={inv.amount} />],
    [t('returns.rate'), termRatePercent(inv.termRate, locale)],
    [t('returns.term'), t('returns.termDays', { count: inv.termDays })],
    [t('returns.dates'), inv.start ? `${formatDate(inv.start, locale)} – ${formatDate(inv.end, locale)}` : t('returns.notStarted')],
    [t('returns.return'), <Amount key="r" amount={inv.return} />],
    [t('returns.status'), labels.investment(inv.status)],
  ];
  return (
    <li className="queue-item" data-testid="returns-item">
      <div className="queue-item__who">
        <h3 className="queue-item__name">{inv.plan}</h3>
        <dl className="facts">
          {rows.map(([term, value]) => (
            <div key={term} className="facts__row">
              <dt>{term}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </div>
    </li>
  );
}

export function ReturnsPage() {
  const { t } = useTranslation('corrections');
  const id = useUserID();
  return (
    <UserMoneyFrame titleId="returns-title" title={t('returns.heading')}>
      {(money) => (
        <>
          <section className="panel stack" data-testid="returns-explain">
            <p>{t('returns.explain')}</p>
            <p>
              <Link className="button button--secondary" to={`/edit-user-balance/${encodeURIComponent(id)}`}>
                {t('returns.correct')}
              </Link>
            </p>
          </section>
          {money.investments.length === 0 ? (
            <p className="empty">{t('returns.empty')}</p>
          ) : (
            <ul className="queue" aria-label={t('returns.listLabel')}>
              {money.investments.map((inv) => (
                <InvestmentItem key={inv.id} inv={inv} />
              ))}
            </ul>
          )}
        </>
      )}
    </UserMoneyFrame>
  );
}

import { useGetPublicStatsQuery } from '../../api/community';
import { useLocale, useTranslation } from '../../i18n';
import './community.css';
import { currentLocale, numberFormat } from '../../components/format';

// "5,000+" (in German "5.000+"): the server has already rounded down, so the plus sign is always
// true.
export function countWords(n: number, locale = currentLocale()) {
  return `${numberFormat({}, locale).format(n)}+`;
}

interface InvestorCountsProps {
  className?: string;
}

// How many people invest with Clearvest and from how many countries, from real data: users with
// a confirmed deposit and the countries of their profiles, rounded down by the server. A count
// below the operator's minimum comes back null and is not shown; with neither, nothing renders
// (and nothing while loading or when the server cannot be reached: no placeholder figures).
export function InvestorCounts({ className }: InvestorCountsProps) {
  const { t } = useTranslation('community');
  const locale = useLocale();
  const { data } = useGetPublicStatsQuery();
  if (!data || (data.investors === null && data.countries === null)) return null;
  return (
    <dl className={['counts', className].filter(Boolean).join(' ')} data-testid="investor-counts">
      {data.investors !== null ? (
        <div className="counts__item">
          <dt className="counts__label">{t('counts.investors')}</dt>
          <dd className="counts__value" data-testid="count-investors">
            {countWords(data.investors, locale)}
          </dd>
        </div>
      ) : null}
      {data.countries !== null ? (
        <div className="counts__item">
          <dt className="counts__label">{t('counts.countries')}</dt>
          <dd className="counts__value" data-testid="count-countries">
            {countWords(data.countries, locale)}
          </dd>
        </div>
      ) : null}
    </dl>
  );
}

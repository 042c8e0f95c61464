import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useGetMyBadgeQuery, useListBadgesQuery, type BadgeLevel, type BadgeName, type MyBadge } from '../../api/community';
import { useAppSelector } from '../../app/hooks';
import { QueryState } from '../../components/QueryState';
import { selectIsLoggedIn } from '../auth/authSlice';
import { ActivityTicker } from './ActivityTicker';
import { BadgeIcon } from './BadgeIcon';
import { InvestorCounts } from './InvestorCounts';
import { useLocale, useTranslation } from '../../i18n';
import { dollars, percentWords } from './levelWords';
import './community.css';

// A level's criteria, each already in words. The server fills the same markup for visitors
// without JavaScript (api/livepages.go, from the templates entry-server.tsx renders with these
// views), so a real level and a template render the same markup.
export function CriteriaView({ amount, referrals }: { amount: string; referrals: string }) {
  const { t } = useTranslation('community');
  return (
    <ul className="level__criteria">
      <li>{t('levels.invested', { amount })}</li>
      <li>{referrals}</li>
    </ul>
  );
}

export function Criteria({ level }: { level: BadgeLevel }) {
  const { t } = useTranslation('community');
  const locale = useLocale();
  if (level.minInvested === '0.00' && level.minReferrals === 0) {
    return <p className="level__criteria">{t('levels.everyAccount')}</p>;
  }
  return <CriteriaView amount={dollars(level.minInvested, locale)} referrals={t('levels.referrals', { count: level.minReferrals })} />;
}

export function LevelCardView({ name, criteria, current = false }: { name: BadgeName; criteria: ReactNode; current?: boolean }) {
  const { t } = useTranslation('community');
  return (
    <li className={current ? 'level level--current' : 'level'} data-testid="badge-level" aria-current={current ? 'true' : undefined}>
      <BadgeIcon level={name} />
      <h3 className="level__name">
        {t(`levels.names.${name}`)}
        {current ? <span className="visually-hidden">{t('levels.yours')}</span> : null}
      </h3>
      {criteria}
    </li>
  );
}

export function LevelCard({ level, current }: { level: BadgeLevel; current: boolean }) {
  return <LevelCardView name={level.name} current={current} criteria={<Criteria level={level} />} />;
}

// The list of levels, as the page shows it once they are known.
export function LevelList({ levels, current }: { levels: readonly BadgeLevel[]; current?: BadgeName }) {
  return (
    <ol className="levels">
      {levels.map((level) => (
        <LevelCard key={level.name} level={level} current={level.name === current} />
      ))}
    </ol>
  );
}

function MyStanding({ badge }: { badge: MyBadge }) {
  const { t } = useTranslation('community');
  const locale = useLocale();
  const next = badge.next;
  return (
    <div className="card my-badge" data-testid="my-badge">
      <BadgeIcon level={badge.current} />
      <div className="my-badge__body stack">
        <h2 className="panel__title">{t('standing.title', { level: t(`levels.names.${badge.current}`) })}</h2>
        <p className="muted">
          {t('standing.summary', {
            amount: dollars(badge.invested, locale),
            referrals: t('levels.referrals', { count: badge.referrals }),
          })}
        </p>
        {next ? (
          <>
            <p id="badge-progress-label">
              {t('standing.progress', {
                percent: percentWords(badge.percent, locale),
                level: t(`levels.names.${next.name}`),
                amount: dollars(next.minInvested, locale),
                referrals: t('levels.referrals', { count: next.minReferrals }),
              })}
            </p>
            <progress className="progress" aria-labelledby="badge-progress-label" value={badge.percent} max={100}>
              {percentWords(badge.percent, locale)}
            </progress>
            <p className="muted">
              <Link to="/start-invest">{t('standing.newInvestment')}</Link> · <Link to="/referrals">{t('standing.refer')}</Link>
            </p>
          </>
        ) : (
          <p>{t('standing.top')}</p>
        )}
      </div>
    </div>
  );
}

function SignedInStanding() {
  const { t } = useTranslation('community');
  const badge = useGetMyBadgeQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <QueryState query={badge} loading={t('standing.loading')} failed={t('standing.failed')}>
      {(data) => <MyStanding badge={data} />}
    </QueryState>
  );
}

// Member levels: what each asks (from the server's configuration) and, for a signed-in
// investor, their level and how far they are from the next. Below, the community's real
// activity and counts (each hidden when there is nothing honest to show).
export function HierarchyPage() {
  const { t } = useTranslation('community');
  const signedIn = useAppSelector(selectIsLoggedIn);
  const levels = useListBadgesQuery();
  const mine = useGetMyBadgeQuery({}, { skip: !signedIn });
  const current = signedIn ? mine.data?.current : undefined;
  return (
    <section className="page container stack stack--lg" aria-labelledby="hierarchy-title">
      <div>
        <p className="eyebrow">{t('levels.eyebrow')}</p>
        <h1 id="hierarchy-title">{t('levels.title')}</h1>
        <p className="muted">{t('levels.intro')}</p>
      </div>
      {signedIn ? <SignedInStanding /> : null}
      <div>
        <h2>{t('levels.listTitle')}</h2>
        <QueryState query={levels} loading={t('levels.loading')} failed={t('levels.failed')}>
          {(data) => <LevelList levels={data.levels} current={current} />}
        </QueryState>
      </div>
      <InvestorCounts />
      <ActivityTicker />
    </section>
  );
}

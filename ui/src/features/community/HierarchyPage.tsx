import { Link } from 'react-router';
import { useGetMyBadgeQuery, useListBadgesQuery, type BadgeLevel, type MyBadge } from '../../api/community';
import { useAppSelector } from '../../app/hooks';
import { QueryState } from '../../components/QueryState';
import { selectIsLoggedIn } from '../auth/authSlice';
import { ActivityTicker } from './ActivityTicker';
import { BadgeIcon } from './BadgeIcon';
import { InvestorCounts } from './InvestorCounts';
import { dollars, levelTitle, referralWords } from './levelWords';
import './community.css';

function Criteria({ level }: { level: BadgeLevel }) {
  if (level.minInvested === '0.00' && level.minReferrals === 0) {
    return <p className="level__criteria">Every Clearvest account</p>;
  }
  return (
    <ul className="level__criteria">
      <li>{dollars(level.minInvested)} invested in total</li>
      <li>{referralWords(level.minReferrals)}</li>
    </ul>
  );
}

function LevelCard({ level, current }: { level: BadgeLevel; current: boolean }) {
  return (
    <li className={current ? 'level level--current' : 'level'} data-testid="badge-level" aria-current={current ? 'true' : undefined}>
      <BadgeIcon level={level.name} />
      <h3 className="level__name">
        {levelTitle[level.name]}
        {current ? <span className="visually-hidden"> (your level)</span> : null}
      </h3>
      <Criteria level={level} />
    </li>
  );
}

function MyStanding({ badge }: { badge: MyBadge }) {
  const next = badge.next;
  return (
    <div className="card my-badge" data-testid="my-badge">
      <BadgeIcon level={badge.current} />
      <div className="my-badge__body stack">
        <h2 className="panel__title">Your level: {levelTitle[badge.current]}</h2>
        <p className="muted">
          You have invested {dollars(badge.invested)} in total and have {referralWords(badge.referrals)}.
        </p>
        {next ? (
          <>
            <p id="badge-progress-label">
              {badge.percent}% of the way to {levelTitle[next.name]}: it needs {dollars(next.minInvested)} invested and{' '}
              {referralWords(next.minReferrals)}.
            </p>
            <progress className="progress" aria-labelledby="badge-progress-label" value={badge.percent} max={100}>
              {badge.percent}%
            </progress>
            <p className="muted">
              <Link to="/start-invest">New investment</Link> · <Link to="/referrals">Refer a friend</Link>
            </p>
          </>
        ) : (
          <p>You hold the highest level. Thank you for being part of Clearvest.</p>
        )}
      </div>
    </div>
  );
}

function SignedInStanding() {
  const badge = useGetMyBadgeQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <QueryState query={badge} loading="Loading your level…" failed="Your level could not be loaded">
      {(data) => <MyStanding badge={data} />}
    </QueryState>
  );
}

// Member levels: what each asks (from the server's configuration) and, for a signed-in
// investor, their level and how far they are from the next. Below, the community's real
// activity and counts (each hidden when there is nothing honest to show).
export function HierarchyPage() {
  const signedIn = useAppSelector(selectIsLoggedIn);
  const levels = useListBadgesQuery();
  const mine = useGetMyBadgeQuery({}, { skip: !signedIn });
  const current = signedIn ? mine.data?.current : undefined;
  return (
    <section className="page container stack stack--lg" aria-labelledby="hierarchy-title">
      <div>
        <p className="eyebrow">Community</p>
        <h1 id="hierarchy-title">Member Levels</h1>
        <p className="muted">
          Levels recognise what you have built with Clearvest: the total you have invested over time (reinvested returns not
          counted twice) and the friends you referred whose first deposit was confirmed. A level is reached when both of its
          criteria are met. Levels are recognition only: they change no rates and no fees.
        </p>
      </div>
      {signedIn ? <SignedInStanding /> : null}
      <div>
        <h2>Levels</h2>
        <QueryState query={levels} loading="Loading the levels…" failed="The levels could not be loaded">
          {(data) => (
            <ol className="levels">
              {data.levels.map((level) => (
                <LevelCard key={level.name} level={level} current={level.name === current} />
              ))}
            </ol>
          )}
        </QueryState>
      </div>
      <InvestorCounts />
      <ActivityTicker />
    </section>
  );
}

import { useGetReferralsQuery, type Referral, type Referrals } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Avatar } from '../../components/Avatar';
import { formatDateTime } from '../../components/format';
import { formatUsd } from '../../components/money';
import { QueryState } from '../../components/QueryState';
import { useToast } from '../../components/toast/useToast';

const joinedDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

function formatJoined(iso: string) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : joinedDate.format(date);
}

// "$5" for a whole number of dollars, as the prompt reads; "$2.50" otherwise.
export function bonusWords(amount: string) {
  return formatUsd(amount).replace(/\.00$/, '');
}

function CopyButton({ text, label, what }: { text: string; label: string; what: 'code' | 'link' }) {
  const toast = useToast();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(what === 'code' ? 'Referral code copied to clipboard!' : 'Referral link copied to clipboard!');
    } catch {
      toast.error(what === 'code' ? 'Failed to copy referral code.' : 'Failed to copy referral link.');
    }
  };
  return (
    <button type="button" className="button button--secondary" onClick={() => void copy()} aria-label={label}>
      Copy
    </button>
  );
}

function ShareCard({ data }: { data: Referrals }) {
  return (
    <div className="panel referral-share">
      <h2 className="panel__title">Refer a friend and earn up to {bonusWords(data.bonus)}</h2>
      <dl className="referral-share__fields">
        <div className="referral-share__field">
          <dt>Your referral code</dt>
          <dd>
            <code data-testid="referral-code">{data.referralCode}</code>
            <CopyButton text={data.referralCode} label="Copy referral code" what="code" />
          </dd>
        </div>
        <div className="referral-share__field">
          <dt>Your referral link</dt>
          <dd>
            <span className="break-anywhere" data-testid="referral-link">
              {data.referralLink}
            </span>
            <CopyButton text={data.referralLink} label="Copy referral link" what="link" />
          </dd>
        </div>
      </dl>
      <h3>How it works</h3>
      <ol className="referral-steps">
        <li>Share your code or link with a friend.</li>
        <li>They sign up with it and make a deposit.</li>
        <li>
          When their first deposit is confirmed, <Amount amount={data.bonus} /> is added to your wallet.
        </li>
      </ol>
      <p className="muted">
        You have earned <strong data-testid="referral-total">{formatUsd(data.totalEarned)}</strong> from referrals.
      </p>
    </div>
  );
}

function ReferredItem({ r }: { r: Referral }) {
  const name = r.closed ? 'Closed account' : r.name || 'Unnamed user';
  return (
    <li className="queue-item referral-item" data-testid="referral-item">
      <div className="referral-item__who">
        <Avatar name={r.closed ? '?' : r.name} photo={r.closed ? undefined : r.photo || undefined} />
        <div>
          <h3 className="queue-item__name">{name}</h3>
          <p className="muted">
            Joined{' '}
            <time dateTime={r.joinedAt} title={formatDateTime(r.joinedAt)}>
              {formatJoined(r.joinedAt)}
            </time>
          </p>
        </div>
      </div>
      <p className="queue-item__meta">
        {r.qualified ? <span className="badge badge--success">Qualified</span> : <span className="badge">Not qualified yet</span>}
        {r.bonus ? (
          <span>
            +<Amount amount={r.bonus} /> earned
          </span>
        ) : null}
      </p>
    </li>
  );
}

export function ReferralsPage() {
  const query = useGetReferralsQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="referrals-title">
      <h1 id="referrals-title">Referrals</h1>
      <QueryState query={query} loading="Loading your referrals…" failed="Failed to fetch referrals.">
        {(data) => (
          <>
            <ShareCard data={data} />
            <h2>People you referred</h2>
            {data.referrals.length === 0 ? (
              <p className="empty">{data.message || 'No referrals'}. Share your link to invite a friend.</p>
            ) : (
              <ol className="queue" aria-busy={query.isFetching || undefined}>
                {data.referrals.map((r) => (
                  <ReferredItem key={r._id} r={r} />
                ))}
              </ol>
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}

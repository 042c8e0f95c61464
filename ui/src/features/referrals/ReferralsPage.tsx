import { useGetReferralsQuery, type Referral, type Referrals } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Avatar } from '../../components/Avatar';
import { currentLocale, dateFormat, formatDateTime } from '../../components/format';
import { formatUsd } from '../../components/money';
import { QueryState } from '../../components/QueryState';
import { useToast } from '../../components/toast/useToast';
import { FormError, useFormError } from '../../components/form/FormError';
import { Trans, useLocale, useTranslation } from '../../i18n';

function formatJoined(iso: string, locale: string) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat({ dateStyle: 'medium' }, locale).format(date);
}

// "$5" for a whole number of dollars, as the prompt reads; "$2.50" otherwise ("5 $", "2,50 $").
export function bonusWords(amount: string, locale = currentLocale()) {
  return formatUsd(amount, locale).replace(/[.,]00(?=\D*$)/, '');
}

function CopyButton({ text, label, what }: { text: string; label: string; what: 'code' | 'link' }) {
  const { t } = useTranslation('member');
  const toast = useToast();
  const [failed, setFailed] = useFormError();
  const copy = async () => {
    setFailed(null);
    try {
      await navigator.clipboard.writeText(text);
      toast.success(what === 'code' ? t('referrals.codeCopied') : t('referrals.linkCopied'));
    } catch {
      setFailed(what === 'code' ? t('referrals.codeFailed') : t('referrals.linkFailed'));
    }
  };
  return (
    <>
      <button type="button" className="button button--secondary" onClick={() => void copy()} aria-label={label}>
        {t('referrals.copy')}
      </button>
      <FormError message={failed} />
    </>
  );
}

function ShareCard({ data }: { data: Referrals }) {
  const { t } = useTranslation('member');
  const locale = useLocale();
  return (
    <div className="panel referral-share">
      <h2 className="panel__title">{t('referrals.share', { bonus: bonusWords(data.bonus, locale) })}</h2>
      <dl className="referral-share__fields">
        <div className="referral-share__field">
          <dt>{t('referrals.code')}</dt>
          <dd>
            <code data-testid="referral-code">{data.referralCode}</code>
            <CopyButton text={data.referralCode} label={t('referrals.copyCode')} what="code" />
          </dd>
        </div>
        <div className="referral-share__field">
          <dt>{t('referrals.link')}</dt>
          <dd>
            <span className="break-anywhere" data-testid="referral-link">
              {data.referralLink}
            </span>
            <CopyButton text={data.referralLink} label={t('referrals.copyLink')} what="link" />
          </dd>
        </div>
      </dl>
      <h3>{t('referrals.how')}</h3>
      <ol className="referral-steps">
        <li>{t('referrals.step1')}</li>
        <li>{t('referrals.step2')}</li>
        <li>
          <Trans t={t} i18nKey="referrals.step3" components={{ amount: <Amount amount={data.bonus} /> }} />
        </li>
      </ol>
      <p className="muted">
        <Trans
          t={t}
          i18nKey="referrals.earned"
          values={{ total: formatUsd(data.totalEarned, locale) }}
          components={{ total: <strong data-testid="referral-total" /> }}
        />
      </p>
    </div>
  );
}

function ReferredItem({ r }: { r: Referral }) {
  const { t } = useTranslation('member');
  const locale = useLocale();
  const name = r.closed ? t('referrals.closed') : r.name || t('referrals.unnamed');
  return (
    <li className="queue-item referral-item" data-testid="referral-item">
      <div className="referral-item__who">
        <Avatar name={r.closed ? '?' : r.name} photo={r.closed ? undefined : r.photo || undefined} />
        <div>
          <h3 className="queue-item__name">{name}</h3>
          <p className="muted">
            <Trans
              t={t}
              i18nKey="referrals.joined"
              values={{ date: formatJoined(r.joinedAt, locale) }}
              components={{ time: <time dateTime={r.joinedAt} title={formatDateTime(r.joinedAt)} /> }}
            />
          </p>
        </div>
      </div>
      <p className="queue-item__meta">
        {r.qualified ? (
          <span className="badge badge--success">{t('referrals.qualified')}</span>
        ) : (
          <span className="badge">{t('referrals.notQualified')}</span>
        )}
        {r.bonus ? (
          <span>
            <Trans t={t} i18nKey="referrals.bonus" components={{ amount: <Amount amount={r.bonus} /> }} />
          </span>
        ) : null}
      </p>
    </li>
  );
}

export function ReferralsPage() {
  const { t } = useTranslation('member');
  const query = useGetReferralsQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="referrals-title">
      <h1 id="referrals-title">{t('referrals.title')}</h1>
      <QueryState query={query} loading={t('referrals.loading')} failed={t('referrals.failed')}>
        {(data) => (
          <>
            <ShareCard data={data} />
            <h2>{t('referrals.people')}</h2>
            {data.referrals.length === 0 ? (
              <p className="empty">{t('referrals.empty')}</p>
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

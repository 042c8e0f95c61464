import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import {
  useGetInvestmentQuery,
  useLazyPreviewEarlyRedemptionQuery,
  useRedeemEarlyMutation,
  useSetMaturityInstructionMutation,
  type EarlyRedemption,
  type Investment,
  type MaturityInstruction,
} from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { Dialog } from '../../components/Dialog';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { formatDate, formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { FormError, useFormError } from '../../components/form/FormError';
import { useRunMutation } from '../../components/useRunMutation';
import { isStaff, useCurrentUser } from '../auth/session';
import { aprPercent, termRatePercent } from '../../components/planWords';
import { Trans, useLocale, useTranslation } from '../../i18n';
import { InvestmentDecision } from './InvestmentDecision';
import { investmentBadge, useStatusText } from './investWords';

function Facts({ inv }: { inv: Investment }) {
  const { t } = useTranslation('invest');
  const locale = useLocale();
  const statusText = useStatusText();
  const fixed = inv.status !== 'Pending';
  const rows: [string, ReactNode][] = [
    [t('detail.reference'), <span className="movement__ref" data-testid="investment-reference">{inv.reference}</span>],
    [t('detail.plan'), inv.plan],
    [
      t('detail.status'),
      <span className={investmentBadge(inv.status)} data-testid="investment-status">
        {statusText(inv.status, inv.closedEarly)}
      </span>,
    ],
    [t('detail.amount'), <Amount amount={inv.amount} />],
    [t('detail.term'), t('days', { count: inv.termDays })],
    [t('detail.rate'), termRatePercent(inv.termRate, locale)],
    [t('detail.apr'), t('detail.aprValue', { apr: aprPercent(inv.apr, locale) })],
  ];
  if (inv.status !== 'Rejected') {
    rows.push([fixed ? t('detail.return') : t('detail.returnIfApproved'), <Amount amount={inv.maturityAmount} />]);
    rows.push([t('detail.paidAtMaturity'), <strong data-testid="investment-payout"><Amount amount={inv.payout} /></strong>]);
  }
  if (inv.startDate) rows.push([t('detail.started'), formatDate(inv.startDate)]);
  if (inv.endDate) rows.push([t('detail.ends'), formatDate(inv.endDate)]);
  if (inv.closedEarly) rows.push([t('detail.forfeited'), <Amount amount={inv.forfeited} />]);
  if (inv.reason) rows.push([t('detail.reason'), inv.reason]);
  if (inv.reinvestedFrom) rows.push([t('detail.reinvestedFrom'), <Link to={`/investment/${inv.reinvestedFrom}`}>{t('detail.previous')}</Link>]);
  if (inv.reinvestedAs) rows.push([t('detail.reinvestedAs'), <Link to={`/investment/${inv.reinvestedAs}`}>{t('detail.next')}</Link>]);
  if (inv.user) rows.push([t('detail.investor'), `${inv.user.name} (${inv.user.email})`]);
  rows.push([t('detail.requested'), formatDateTime(inv.requestedAt)]);
  return (
    <dl className="facts" data-testid="investment-details">
      {rows.map(([term, value]) => (
        <div key={term} className="facts__row">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Progress({ inv }: { inv: Investment }) {
  const { t } = useTranslation('invest');
  return (
    <div className="panel upload-progress" data-testid="investment-progress">
      <label htmlFor="term-progress">{t('detail.progress', { percent: inv.progressPercent })}</label>
      <progress id="term-progress" max={100} value={inv.progressPercent} />
      <p>
        <Trans t={t} i18nKey="detail.accrued" components={{ amount: <Amount amount={inv.accruedEstimate} /> }} />
      </p>
      <p className="muted">
        <Trans t={t} i18nKey="detail.accruedNote" components={{ amount: <Amount amount={inv.payout} /> }} />
      </p>
    </div>
  );
}

// What an ended investment paid, and when, with the way to its row in the history.
function Outcome({ inv, owner }: { inv: Investment; owner: boolean }) {
  const { t } = useTranslation('invest');
  const date = formatDate(inv.closedAt ?? inv.endDate);
  const link = owner ? (
    <p>
      <Link to={`/transaction-History?ref=${encodeURIComponent(inv.reference)}`} data-testid="see-payout">
        {t('detail.seePayout')}
      </Link>
    </p>
  ) : null;
  if (inv.closedEarly) {
    return (
      <section className="panel outcome" aria-labelledby="outcome-title" data-testid="investment-outcome">
        <h2 id="outcome-title" className="panel__title">
          {t('detail.closedTitle')}
        </h2>
        <p>
          <Trans
            t={t}
            i18nKey="detail.closed"
            values={{ date }}
            components={{ principal: <strong><Amount amount={inv.amount} /></strong>, forfeited: <Amount amount={inv.forfeited} /> }}
          />
        </p>
        {link}
      </section>
    );
  }
  return (
    <section className="panel panel--success outcome" aria-labelledby="outcome-title" data-testid="investment-outcome">
      <h2 id="outcome-title" className="panel__title">
        {t('detail.paidTitle')}
      </h2>
      <p className="outcome__total">
        <Amount amount={inv.payout} />
      </p>
      <p>
        <Trans
          t={t}
          i18nKey={inv.reinvestedAs ? 'detail.paidReinvested' : 'detail.paid'}
          values={{ date }}
          components={{
            total: <strong><Amount amount={inv.payout} /></strong>,
            principal: <Amount amount={inv.amount} />,
            return: <Amount amount={inv.maturityAmount} />,
          }}
        />
      </p>
      {link}
    </section>
  );
}

function Instruction({ inv }: { inv: Investment }) {
  const { t } = useTranslation('invest');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [set, { isLoading }] = useSetMaturityInstructionMutation();
  const choose = async (instruction: MaturityInstruction) => {
    if (isLoading || instruction === inv.instruction) return;
    await run(set({ investmentId: inv._id, maturityInstructionRequest: { instruction } }), {
      fallback: t('instruction.failed'),
      success: t('instruction.saved'),
      formError: setFormError,
    });
  };
  return (
    <fieldset className="panel stack" aria-busy={isLoading || undefined}>
      <legend className="panel__title">{t('instruction.legend')}</legend>
      <FormError message={formError} />
      {(['payout', 'reinvest'] as const).map((ins) => (
        <label key={ins} className="checkbox">
          <input type="radio" name="instruction" value={ins} checked={inv.instruction === ins} onChange={() => void choose(ins)} />
          {t(`instruction.${ins}`)}
        </label>
      ))}
      <p className="muted">{t('instruction.note')}</p>
    </fieldset>
  );
}

function EarlyRedemptionAction({ inv }: { inv: Investment }) {
  const { t } = useTranslation('invest');
  const run = useRunMutation();
  // The preview's refusal beside its button; the redemption's in the dialog.
  const [previewError, setPreviewError] = useFormError();
  const [formError, setFormError] = useFormError();
  const [preview, { isFetching }] = useLazyPreviewEarlyRedemptionQuery();
  const [redeem, { isLoading }] = useRedeemEarlyMutation();
  const [shown, setShown] = useState<EarlyRedemption | null>(null);
  // One Idempotency-Key per preview shown: confirming twice, or again after a lost answer,
  // redeems once.
  const [key, setKey] = useState(newIdempotencyKey);

  const open = async () => {
    if (isFetching) return;
    setPreviewError(null);
    setFormError(null);
    try {
      setShown(await preview({ investmentId: inv._id }).unwrap());
      setKey(newIdempotencyKey());
    } catch (raw) {
      setPreviewError(errorMessage(raw, t('redeem.previewFailed')));
    }
  };
  const confirm = async () => {
    if (isLoading) return;
    const outcome = await run(redeem({ investmentId: inv._id, 'Idempotency-Key': key }), {
      fallback: t('redeem.failed'),
      success: t('redeem.done'),
      formError: setFormError,
    });
    if (outcome.ok) setShown(null);
  };
  return (
    <>
      <FormError message={previewError} />
      <button type="button" className="button button--secondary" aria-disabled={isFetching || undefined} onClick={() => void open()}>
        {t('redeem.open')}
      </button>
      {shown ? (
        <Dialog
          title={t('redeem.title')}
          tone="warning"
          onClose={() => setShown(null)}
          actions={
            <>
              <button type="button" className="button button--secondary" onClick={() => setShown(null)}>
                {t('redeem.keep')}
              </button>
              <button type="button" className="button button--danger" aria-disabled={isLoading || undefined} onClick={() => void confirm()}>
                {isLoading ? t('redeem.confirming') : t('redeem.confirm')}
              </button>
            </>
          }
        >
          <FormError message={formError} />
          <p data-testid="redemption-preview">
            <Trans
              t={t}
              i18nKey="redeem.preview"
              components={{ principal: <strong><Amount amount={shown.principal} /></strong>, forfeited: <strong><Amount amount={shown.forfeited} /></strong> }}
            />
          </p>
        </Dialog>
      ) : null}
    </>
  );
}

export function InvestmentDetailsPage() {
  const { t } = useTranslation('invest');
  const { investmentId = '' } = useParams();
  const investment = useGetInvestmentQuery({ investmentId }, { skip: !investmentId });
  const { data: me } = useCurrentUser();
  const staff = me ? isStaff(me.role) : false;
  return (
    <section className="page container page--narrow" aria-labelledby="investment-title">
      <p className="eyebrow">
        <Link to={staff ? '/admin-pending-investment' : '/invest-status'}>{staff ? t('detail.queue') : t('detail.portfolio')}</Link>
      </p>
      <h1 id="investment-title">{t('detail.title')}</h1>
      <QueryState query={investment} loading={t('detail.loading')} failed={t('detail.failed')}>
        {(inv) => {
          const owner = !inv.user || inv.user._id === me?._id;
          const open = inv.status === 'Pending' || inv.status === 'Active';
          return (
            <div className="stack">
              {inv.status === 'Ended' ? <Outcome inv={inv} owner={owner} /> : null}
              <Facts inv={inv} />
              {inv.status === 'Active' ? <Progress inv={inv} /> : null}
              {owner && open ? <Instruction inv={inv} /> : null}
              {owner && inv.status === 'Active' ? <EarlyRedemptionAction inv={inv} /> : null}
              {staff && !owner && inv.status === 'Pending' ? <InvestmentDecision investment={inv} /> : null}
            </div>
          );
        }}
      </QueryState>
    </section>
  );
}

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
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { isStaff, useCurrentUser } from '../auth/session';
import { aprPercent, days, termRatePercent } from '../../components/planWords';
import { InvestmentDecision } from './InvestmentDecision';
import { formatDate, instructionText, investmentBadge, statusText } from './investWords';

function Facts({ inv }: { inv: Investment }) {
  const fixed = inv.status !== 'Pending';
  const rows: [string, ReactNode][] = [
    ['Plan', inv.plan],
    [
      'Status',
      <span className={investmentBadge(inv.status)} data-testid="investment-status">
        {statusText(inv.status, inv.closedEarly)}
      </span>,
    ],
    ['Amount', <Amount amount={inv.amount} />],
    ['Term', days(inv.termDays)],
    ['Rate for the term', termRatePercent(inv.termRate)],
    ['Annual rate (APR)', `${aprPercent(inv.apr)} a year`],
  ];
  if (inv.status !== 'Rejected') {
    rows.push([fixed ? 'Return' : 'Return if approved', <Amount amount={inv.maturityAmount} />]);
    rows.push(['Paid at maturity', <strong data-testid="investment-payout"><Amount amount={inv.payout} /></strong>]);
  }
  if (inv.startDate) rows.push(['Started', formatDate(inv.startDate)]);
  if (inv.endDate) rows.push(['Ends', formatDate(inv.endDate)]);
  if (inv.closedEarly) rows.push(['Return forfeited', <Amount amount={inv.forfeited} />]);
  if (inv.reason) rows.push(['Reason', inv.reason]);
  if (inv.reinvestedFrom) rows.push(['Reinvested from', <Link to={`/investment/${inv.reinvestedFrom}`}>the previous investment</Link>]);
  if (inv.reinvestedAs) rows.push(['Reinvested as', <Link to={`/investment/${inv.reinvestedAs}`}>a new investment</Link>]);
  if (inv.user) rows.push(['Investor', `${inv.user.name} (${inv.user.email})`]);
  rows.push(['Requested', formatDateTime(inv.requestedAt)]);
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
  return (
    <div className="panel upload-progress" data-testid="investment-progress">
      <label htmlFor="term-progress">{inv.progressPercent}% of the term has passed</label>
      <progress id="term-progress" max={100} value={inv.progressPercent} />
      <p>
        Accrued to date (an estimate): <Amount amount={inv.accruedEstimate} />
      </p>
      <p className="muted">
        The estimate spreads the return evenly over the term. Nothing is paid until maturity, when you receive{' '}
        <Amount amount={inv.payout} />.
      </p>
    </div>
  );
}

function Instruction({ inv }: { inv: Investment }) {
  const run = useRunMutation();
  const [set, { isLoading }] = useSetMaturityInstructionMutation();
  const choose = async (instruction: MaturityInstruction) => {
    if (isLoading || instruction === inv.instruction) return;
    await run(set({ investmentId: inv._id, maturityInstructionRequest: { instruction } }), {
      fallback: 'The instruction could not be saved.',
      success: 'Maturity instruction saved.',
    });
  };
  return (
    <fieldset className="panel stack" aria-busy={isLoading || undefined}>
      <legend className="panel__title">At maturity</legend>
      {(['payout', 'reinvest'] as const).map((ins) => (
        <label key={ins} className="checkbox">
          <input type="radio" name="instruction" value={ins} checked={inv.instruction === ins} onChange={() => void choose(ins)} />
          {instructionText[ins]}
        </label>
      ))}
      <p className="muted">Reinvesting puts the whole payout into a new investment on the same terms when this one ends.</p>
    </fieldset>
  );
}

function EarlyRedemptionAction({ inv }: { inv: Investment }) {
  const toast = useToast();
  const run = useRunMutation();
  const [preview, { isFetching }] = useLazyPreviewEarlyRedemptionQuery();
  const [redeem, { isLoading }] = useRedeemEarlyMutation();
  const [shown, setShown] = useState<EarlyRedemption | null>(null);
  // One Idempotency-Key per preview shown: confirming twice, or again after a lost answer,
  // redeems once.
  const [key, setKey] = useState(newIdempotencyKey);

  const open = async () => {
    if (isFetching) return;
    try {
      setShown(await preview({ investmentId: inv._id }).unwrap());
      setKey(newIdempotencyKey());
    } catch (raw) {
      toast.error(errorMessage(raw, 'The early redemption could not be worked out.'));
    }
  };
  const confirm = async () => {
    if (isLoading) return;
    const outcome = await run(redeem({ investmentId: inv._id, 'Idempotency-Key': key }), {
      fallback: 'The investment could not be redeemed.',
      success: 'Investment redeemed early. The amount is back in your balance.',
    });
    if (outcome.ok) setShown(null);
  };
  return (
    <>
      <button type="button" className="button button--secondary" aria-disabled={isFetching || undefined} onClick={() => void open()}>
        Redeem early…
      </button>
      {shown ? (
        <Dialog
          title="Redeem this investment early?"
          tone="warning"
          onClose={() => setShown(null)}
          actions={
            <>
              <button type="button" className="button button--secondary" onClick={() => setShown(null)}>
                Keep investing
              </button>
              <button type="button" className="button button--danger" aria-disabled={isLoading || undefined} onClick={() => void confirm()}>
                {isLoading ? 'Redeeming…' : 'Redeem early'}
              </button>
            </>
          }
        >
          <p data-testid="redemption-preview">
            You get <strong><Amount amount={shown.principal} /></strong> back in your available balance now and give up the
            return of <strong><Amount amount={shown.forfeited} /></strong>. This cannot be undone.
          </p>
        </Dialog>
      ) : null}
    </>
  );
}

export function InvestmentDetailsPage() {
  const { investmentId = '' } = useParams();
  const investment = useGetInvestmentQuery({ investmentId }, { skip: !investmentId });
  const { data: me } = useCurrentUser();
  const staff = me ? isStaff(me.role) : false;
  return (
    <section className="page container page--narrow" aria-labelledby="investment-title">
      <p className="eyebrow">
        <Link to={staff ? '/admin-pending-investment' : '/invest-status'}>{staff ? 'Investment Queue' : 'My Portfolio'}</Link>
      </p>
      <h1 id="investment-title">Investment Details</h1>
      <QueryState query={investment} loading="Loading the investment…" failed="The investment could not be loaded">
        {(inv) => {
          const owner = !inv.user || inv.user._id === me?._id;
          const open = inv.status === 'Pending' || inv.status === 'Active';
          return (
            <div className="stack">
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

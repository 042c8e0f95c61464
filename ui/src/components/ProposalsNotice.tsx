import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useGetProposalsQuery, type ApprovalThresholds } from '../api/enhanced';
import { Trans, useLocale, useTranslation } from '../i18n';
import { APPROVALS_PATH } from './approvalWords';
import { formatUsd, isDecimal } from './money';

type QueueKind = 'deposit_confirmation' | 'withdrawal_approval';

// Whether a threshold is set: zero or an unreadable one means the rule does not apply.
const isSet = (amount: string | undefined) => isDecimal((amount ?? '').trim()) && !(amount ?? '').trim().startsWith('-') && /[1-9]/.test(amount ?? '');

// The four-eyes rule of one queue in words (docs/security.md, "Separation of duties"), as
// approvalWords' depositRuleLine and withdrawalRuleLine say it in English.
function useRuleLine(kind: QueueKind, thresholds: ApprovalThresholds): string {
  const { t } = useTranslation('staff');
  const locale = useLocale();
  if (kind === 'withdrawal_approval') {
    return isSet(thresholds.withdrawalThreshold) ? t('proposals.withdrawalRule', { amount: formatUsd(thresholds.withdrawalThreshold, locale) }) : '';
  }
  const tolerance = thresholds.depositTolerancePercent;
  return isSet(thresholds.depositThreshold)
    ? t('proposals.depositRule', { amount: formatUsd(thresholds.depositThreshold, locale), tolerance })
    : t('proposals.depositRuleTolerance', { tolerance });
}

// Above a money queue: when its decisions need a second staff member, and how many of its kind
// wait for one on the Second Approvals page. Without the proposals (a failed read) the queue
// works as before; the server applies the rule either way.
export function ProposalsNotice({ kind }: { kind: QueueKind }) {
  const { data } = useGetProposalsQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });
  if (!data) return null;
  return <Notice kind={kind} thresholds={data.thresholds} waiting={data.pending.filter((p) => p.kind === kind).length} />;
}

function Notice({ kind, thresholds, waiting }: { kind: QueueKind; thresholds: ApprovalThresholds; waiting: number }) {
  const { t } = useTranslation('staff');
  const rule = useRuleLine(kind, thresholds);
  return (
    <>
      {rule ? (
        <p className="muted" data-testid="approval-rule">
          {rule}
        </p>
      ) : null}
      {waiting > 0 ? (
        <p className="panel panel--warning" data-testid="proposals-waiting">
          {kind === 'deposit_confirmation' ? t('proposals.depositsWaiting', { count: waiting }) : t('proposals.withdrawalsWaiting', { count: waiting })}{' '}
          <Link to={APPROVALS_PATH}>{t('proposals.open')}</Link>
        </p>
      ) : null}
    </>
  );
}

// What a decision that became a proposal says in a dialog, in place of its form: `what` is what
// happens once approved ("the payout is sent"), in the reader's language.
export function ProposalSent({ what }: { what: ReactNode }) {
  const { t } = useTranslation('staff');
  return (
    <div className="panel panel--warning" role="status" data-testid="proposal-sent">
      <p>
        <Trans t={t} i18nKey="proposals.sent" components={{ what: <>{what}</> }} />
      </p>
      <p>
        <Link to={APPROVALS_PATH}>{t('proposals.open')}</Link>
      </p>
    </div>
  );
}

import { Link } from 'react-router';
import { useGetProposalsQuery } from '../api/enhanced';
import { useTranslation } from '../i18n';
import { APPROVALS_PATH, useApprovalRules } from './approvalWords';

// Above a money queue: when its decisions need a second staff member, and how many of its kind
// wait for one on the Second Approvals page. Without the proposals (a failed read) the queue
// works as before; the server applies the rule either way.
export function ProposalsNotice({ kind }: { kind: 'deposit_confirmation' | 'withdrawal_approval' }) {
  const { t } = useTranslation('staff');
  const rules = useApprovalRules();
  const { data } = useGetProposalsQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });
  if (!data) return null;
  const rule = kind === 'deposit_confirmation' ? rules.deposit(data.thresholds) : rules.withdrawal(data.thresholds);
  const waiting = data.pending.filter((p) => p.kind === kind).length;
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

// What a decision that became a proposal says in a dialog, in place of its form: the whole
// sentence, in the reader's language.
export function ProposalSent({ message }: { message: string }) {
  const { t } = useTranslation('staff');
  return (
    <div className="panel panel--warning" role="status" data-testid="proposal-sent">
      <p>{message}</p>
      <p>
        <Link to={APPROVALS_PATH}>{t('proposal.open')}</Link>
      </p>
    </div>
  );
}

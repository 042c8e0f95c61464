import { useApproveInvestmentMutation, useRejectInvestmentMutation, type Investment } from '../../api/enhanced';
import { DecisionPanel } from '../../components/DecisionPanel';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';

// Staff approve or reject a pending investment, from the queue or its page.
export function InvestmentDecision({ investment }: { investment: Investment }) {
  const { t } = useTranslation('invest');
  const run = useRunMutation();
  const [approve, approving] = useApproveInvestmentMutation();
  const [reject, rejecting] = useRejectInvestmentMutation();
  const words = {
    approve: t('decision.approve'),
    approving: t('decision.approving'),
    reject: t('decision.reject'),
    reasonLabel: t('decision.reasonLabel'),
  };
  return (
    <DecisionPanel
      id={`investment-${investment._id}`}
      words={words}
      approving={approving.isLoading}
      rejecting={rejecting.isLoading}
      onApprove={(formError) =>
        run(approve({ investmentId: investment._id }), {
          fallback: t('decision.approveFailed'),
          success: t('decision.approved'),
          formError,
        })
      }
      onReject={(reason, formError) =>
        run(reject({ investmentId: investment._id, rejectInvestmentRequest: { reason } }), {
          fallback: t('decision.rejectFailed'),
          success: t('decision.rejected'),
          formError,
        })
      }
    />
  );
}

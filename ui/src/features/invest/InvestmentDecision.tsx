import { useApproveInvestmentMutation, useRejectInvestmentMutation, type Investment } from '../../api/enhanced';
import { DecisionPanel } from '../../components/DecisionPanel';
import { useRunMutation } from '../../components/useRunMutation';

const WORDS = {
  approve: 'Approve',
  approving: 'Approving…',
  reject: 'Reject investment',
  reasonLabel: 'Reason (e-mailed to the investor)',
};

// Staff approve or reject a pending investment, from the queue or its page.
export function InvestmentDecision({ investment }: { investment: Investment }) {
  const run = useRunMutation();
  const [approve, approving] = useApproveInvestmentMutation();
  const [reject, rejecting] = useRejectInvestmentMutation();
  return (
    <DecisionPanel
      id={`investment-${investment._id}`}
      words={WORDS}
      approving={approving.isLoading}
      rejecting={rejecting.isLoading}
      onApprove={() =>
        run(approve({ investmentId: investment._id }), {
          fallback: 'Failed to approve the investment.',
          success: 'Investment approved successfully!',
        })
      }
      onReject={(reason) =>
        run(reject({ investmentId: investment._id, rejectInvestmentRequest: { reason } }), {
          fallback: 'Failed to reject the investment.',
          success: 'Investment rejected.',
        })
      }
    />
  );
}

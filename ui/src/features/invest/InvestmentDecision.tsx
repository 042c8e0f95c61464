import { useState, type FormEvent } from 'react';
import { useApproveInvestmentMutation, useRejectInvestmentMutation, type Investment } from '../../api/enhanced';
import { useRunMutation } from '../../components/useRunMutation';

// Staff approve or reject a pending investment, from the queue or its page. Another reviewer
// deciding first is the server's 409: its message stays on the item, not only in a toast.
export function InvestmentDecision({ investment }: { investment: Investment }) {
  const run = useRunMutation();
  const [approve, approving] = useApproveInvestmentMutation();
  const [reject, rejecting] = useRejectInvestmentMutation();
  const [rejectOpen, setRejectOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [conflict, setConflict] = useState('');
  const busy = approving.isLoading || rejecting.isLoading;
  const reasonId = `reject-reason-${investment._id}`;
  const on409 = (e: { status: number | string }) => e.status === 409;

  const onApprove = async () => {
    if (busy) return;
    const outcome = await run(approve({ investmentId: investment._id }), {
      fallback: 'Failed to approve the investment.',
      success: 'Investment approved successfully!',
    });
    if (!outcome.ok && on409(outcome.error)) setConflict(outcome.message);
  };
  const onReject = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const outcome = await run(reject({ investmentId: investment._id, rejectInvestmentRequest: { reason: reason.trim() } }), {
      fallback: 'Failed to reject the investment.',
      success: 'Investment rejected.',
    });
    if (!outcome.ok && on409(outcome.error)) setConflict(outcome.message);
  };

  if (conflict) {
    return (
      <p className="panel panel--warning" role="alert" data-testid="decision-conflict">
        {conflict}. Someone else decided it first; the list is up to date now.
      </p>
    );
  }
  return (
    <div className="stack">
      <div className="button-row">
        <button type="button" className="button" aria-disabled={busy || undefined} onClick={() => void onApprove()}>
          {approving.isLoading ? 'Approving…' : 'Approve'}
        </button>
        <button type="button" className="button button--danger" aria-expanded={rejectOpen} aria-controls={`${reasonId}-form`} onClick={() => setRejectOpen((o) => !o)}>
          Reject…
        </button>
      </div>
      {rejectOpen ? (
        <form id={`${reasonId}-form`} className="form" onSubmit={(e) => void onReject(e)} noValidate>
          <div className="field">
            <label className="field__label" htmlFor={reasonId}>
              Reason (e-mailed to the investor)
            </label>
            <textarea id={reasonId} className="field__input" rows={3} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
          </div>
          <button type="submit" className="button button--danger" aria-disabled={busy || undefined}>
            {rejecting.isLoading ? 'Rejecting…' : 'Reject investment'}
          </button>
        </form>
      ) : null}
    </div>
  );
}

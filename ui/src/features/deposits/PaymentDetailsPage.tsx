import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useConfirmDepositMutation, useRejectDepositMutation, useViewPaymentStatusQuery, type Deposit } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';
import { DepositDetails } from './DepositDetails';

// Staff decide a Pending deposit: confirm with the amount that actually arrived, or reject.
// Another reviewer deciding first is the server's 409, shown as its message.
function Decision({ deposit }: { deposit: Deposit }) {
  const run = useRunMutation();
  const [confirm, confirming] = useConfirmDepositMutation();
  const [reject, rejecting] = useRejectDepositMutation();
  const [received, setReceived] = useState(deposit.amount);
  const [notes, setNotes] = useState('');
  const busy = confirming.isLoading || rejecting.isLoading;

  const onConfirm = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    await run(
      confirm({ confirmDepositRequest: { transactionId: deposit.transactionId, amount: received.trim(), ...(notes.trim() ? { notes: notes.trim() } : {}) } }),
      { fallback: 'Failed to confirm payment.', success: 'Payment successfully confirmed!' },
    );
  };
  const onReject = async () => {
    if (busy) return;
    await run(reject({ rejectDepositRequest: { transactionId: deposit.transactionId, ...(notes.trim() ? { notes: notes.trim() } : {}) } }), {
      fallback: 'Failed to reject payment.',
      success: 'Payment rejected.',
    });
  };

  return (
    <form className="form panel" onSubmit={(e) => void onConfirm(e)} noValidate>
      <h2 className="panel__title">Decide</h2>
      <div className="field">
        <label className="field__label" htmlFor="received">
          Amount received (USD)
        </label>
        <p className="field__hint">What actually arrived; it may differ from what the investor stated.</p>
        <input id="received" className="field__input" inputMode="decimal" value={received} onChange={(e) => setReceived(e.target.value)} />
      </div>
      <div className="field">
        <label className="field__label" htmlFor="notes">
          Notes<span className="field__optional"> (optional, e-mailed to the investor)</span>
        </label>
        <textarea id="notes" className="field__input" rows={3} maxLength={500} value={notes} onChange={(e) => setNotes(e.target.value)} />
      </div>
      <div className="button-row">
        <button type="submit" className="button" aria-disabled={busy || undefined}>
          {confirming.isLoading ? 'Confirming…' : 'Confirm payment'}
        </button>
        <button type="button" className="button button--danger" aria-disabled={busy || undefined} onClick={() => void onReject()}>
          {rejecting.isLoading ? 'Rejecting…' : 'Reject payment'}
        </button>
      </div>
    </form>
  );
}

export function PaymentDetailsPage() {
  const { transactionId = '' } = useParams();
  const deposit = useViewPaymentStatusQuery({ transactionId }, { skip: !transactionId });
  return (
    <section className="page container page--narrow" aria-labelledby="payment-title">
      <p className="eyebrow">
        <Link to="/admin-pending-deposit">Pending Deposits</Link>
      </p>
      <h1 id="payment-title">Payment Details</h1>
      {!transactionId ? (
        <p role="alert">Transaction ID is missing!</p>
      ) : (
        <QueryState query={deposit} loading="Loading the payment…" failed="Error fetching payment status.">
          {(data) => (
            <>
              <DepositDetails deposit={data} />
              {data.status === 'Pending' ? <Decision deposit={data} /> : null}
            </>
          )}
        </QueryState>
      )}
    </section>
  );
}

import { useState, type FormEvent } from 'react';
import {
  useApproveTestimonialMutation,
  useGetPendingTestimonialsQuery,
  useRejectTestimonialMutation,
  type TestimonialQueueItem,
} from '../../api/community';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';
import './community.css';

// Staff publish or reject one testimonial. Another reviewer deciding first is the server's 409:
// its message stays on the item, not only in a toast.
function Decision({ item }: { item: TestimonialQueueItem }) {
  const run = useRunMutation();
  const [approve, approving] = useApproveTestimonialMutation();
  const [reject, rejecting] = useRejectTestimonialMutation();
  const [rejectOpen, setRejectOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState('');
  const [conflict, setConflict] = useState('');
  const busy = approving.isLoading || rejecting.isLoading;
  const reasonId = `testimonial-reason-${item._id}`;

  const onApprove = async () => {
    if (busy) return;
    const outcome = await run(approve({ testimonialId: item._id }), { fallback: 'Failed to publish the testimonial.', success: 'Testimonial published.' });
    if (!outcome.ok && outcome.error.status === 409) setConflict(outcome.message);
  };
  const onReject = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (!reason.trim()) {
      setReasonError('A reason of 1 to 500 characters is required.');
      return;
    }
    const outcome = await run(reject({ testimonialId: item._id, rejectTestimonialRequest: { reason: reason.trim() } }), {
      fallback: 'Failed to reject the testimonial.',
      success: 'Testimonial rejected.',
    });
    if (!outcome.ok && outcome.error.status === 409) setConflict(outcome.message);
    else if (!outcome.ok && outcome.error.field === 'reason') setReasonError(outcome.message);
  };

  if (conflict) {
    return (
      <p className="panel panel--warning" role="alert">
        {conflict} Someone else decided it first; the list is up to date now.
      </p>
    );
  }
  return (
    <div className="stack">
      <div className="button-row">
        <button type="button" className="button" aria-disabled={busy || undefined} onClick={() => void onApprove()}>
          {approving.isLoading ? 'Publishing…' : 'Publish'}
        </button>
        <button type="button" className="button button--danger" aria-expanded={rejectOpen} aria-controls={`${reasonId}-form`} onClick={() => setRejectOpen((o) => !o)}>
          Reject…
        </button>
      </div>
      {rejectOpen ? (
        <form id={`${reasonId}-form`} className="form" onSubmit={(e) => void onReject(e)} noValidate>
          <div className="field" data-invalid={reasonError ? true : undefined}>
            <label className="field__label" htmlFor={reasonId}>
              Reason (shown to the author)
            </label>
            <textarea
              id={reasonId}
              className="field__input"
              rows={3}
              maxLength={500}
              value={reason}
              onChange={(e) => {
                setReason(e.target.value);
                setReasonError('');
              }}
              aria-invalid={reasonError ? true : undefined}
              aria-describedby={reasonError ? `${reasonId}-error` : undefined}
            />
            {reasonError ? (
              <p id={`${reasonId}-error`} className="field__error">
                {reasonError}
              </p>
            ) : null}
          </div>
          <button type="submit" className="button button--danger" aria-disabled={busy || undefined}>
            {rejecting.isLoading ? 'Rejecting…' : 'Reject testimonial'}
          </button>
        </form>
      ) : null}
    </div>
  );
}

function QueueItem({ item }: { item: TestimonialQueueItem }) {
  return (
    <li className="queue-item queue-item--decide" data-testid="testimonial-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">{item.name || 'Unnamed user'}</h2>
        <p className="break-anywhere muted">
          {item.email}
          {item.country ? ` · ${item.country}` : ''}
        </p>
      </div>
      <blockquote className="testimonial__text">
        <p>{item.text}</p>
      </blockquote>
      <p className="queue-item__meta">
        <span>
          Written <time dateTime={item.submittedAt}>{formatDateTime(item.submittedAt)}</time>
        </span>
      </p>
      <div className="queue-item__decision">
        <Decision item={item} />
      </div>
    </li>
  );
}

export function PendingTestimonialsPage() {
  const queue = useGetPendingTestimonialsQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="testimonial-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="testimonial-queue-title">Testimonial Review</h1>
      <p className="muted">
        Oldest first. Publishing shows the text on the site with the author’s first name, last initial and country; a rejection’s
        reason is shown to the author, who may then write a new one.
      </p>
      <QueryState
        query={queue}
        loading="Loading the queue…"
        failed="Failed to fetch pending testimonials."
        empty={{ when: (data) => data.testimonials.length === 0, message: 'No testimonials are waiting.' }}
      >
        {(data) => (
          <ol className="queue" aria-busy={queue.isFetching || undefined}>
            {data.testimonials.map((item) => (
              <QueueItem key={item._id} item={item} />
            ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}

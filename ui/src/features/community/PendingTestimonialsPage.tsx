import {
  useApproveTestimonialMutation,
  useGetPendingTestimonialsQuery,
  useRejectTestimonialMutation,
  type TestimonialQueueItem,
} from '../../api/community';
import { DecisionPanel } from '../../components/DecisionPanel';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';
import './community.css';

const DECISION_WORDS = {
  approve: 'Publish',
  approving: 'Publishing…',
  reject: 'Reject testimonial',
  reasonLabel: 'Reason (shown to the author)',
  reasonRequired: 'A reason of 1 to 500 characters is required.',
};

// Staff publish or reject one testimonial.
function Decision({ item }: { item: TestimonialQueueItem }) {
  const run = useRunMutation();
  const [approve, approving] = useApproveTestimonialMutation();
  const [reject, rejecting] = useRejectTestimonialMutation();
  return (
    <DecisionPanel
      id={`testimonial-${item._id}`}
      words={DECISION_WORDS}
      approving={approving.isLoading}
      rejecting={rejecting.isLoading}
      onApprove={() => run(approve({ testimonialId: item._id }), { fallback: 'Failed to publish the testimonial.', success: 'Testimonial published.' })}
      onReject={(reason) =>
        run(reject({ testimonialId: item._id, rejectTestimonialRequest: { reason } }), {
          fallback: 'Failed to reject the testimonial.',
          success: 'Testimonial rejected.',
        })
      }
    />
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

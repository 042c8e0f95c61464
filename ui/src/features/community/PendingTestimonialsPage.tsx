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
import { Trans, useTranslation } from '../../i18n';
import './community.css';

// Staff publish or reject one testimonial.
function Decision({ item }: { item: TestimonialQueueItem }) {
  const { t } = useTranslation('staff');
  const run = useRunMutation();
  const [approve, approving] = useApproveTestimonialMutation();
  const [reject, rejecting] = useRejectTestimonialMutation();
  return (
    <DecisionPanel
      id={`testimonial-${item._id}`}
      words={{
        approve: t('testimonials.publish'),
        approving: t('testimonials.publishing'),
        reject: t('testimonials.reject'),
        reasonLabel: t('testimonials.reasonLabel'),
        reasonRequired: t('testimonials.reasonRequired'),
      }}
      approving={approving.isLoading}
      rejecting={rejecting.isLoading}
      onApprove={(formError) =>
        run(approve({ testimonialId: item._id }), { fallback: t('testimonials.publishFailed'), success: t('testimonials.published'), formError })
      }
      onReject={(reason, formError) =>
        run(reject({ testimonialId: item._id, rejectTestimonialRequest: { reason } }), {
          fallback: t('testimonials.rejectFailed'),
          success: t('testimonials.rejected'),
          formError,
        })
      }
    />
  );
}

function QueueItem({ item }: { item: TestimonialQueueItem }) {
  const { t } = useTranslation('staff');
  return (
    <li className="queue-item queue-item--decide" data-testid="testimonial-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">{item.name || t('common.unnamed')}</h2>
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
          <Trans
            t={t}
            i18nKey="testimonials.written"
            values={{ at: formatDateTime(item.submittedAt) }}
            components={{ time: <time dateTime={item.submittedAt} /> }}
          />
        </span>
      </p>
      <div className="queue-item__decision">
        <Decision item={item} />
      </div>
    </li>
  );
}

export function PendingTestimonialsPage() {
  const { t } = useTranslation('staff');
  const queue = useGetPendingTestimonialsQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="testimonial-queue-title">
      <p className="eyebrow">{t('common.eyebrow')}</p>
      <h1 id="testimonial-queue-title">{t('testimonials.title')}</h1>
      <p className="muted">{t('testimonials.lead')}</p>
      <QueryState
        query={queue}
        loading={t('testimonials.loading')}
        failed={t('testimonials.failed')}
        empty={{ when: (data) => data.testimonials.length === 0, message: t('testimonials.empty') }}
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

import { useId, useState } from 'react';
import { useListTestimonialsQuery, type Testimonial } from '../../api/community';
import { useLocale, useTranslation } from '../../i18n';
import './community.css';
import { formatDate } from '../../components/format';

// How many testimonials show before "Show More".
export const INITIAL_TESTIMONIALS = 4;

function TestimonialCard({ t }: { t: Testimonial }) {
  const locale = useLocale();
  const date = new Date(t.date);
  return (
    <li className="testimonial" data-testid="testimonial">
      <blockquote className="testimonial__text">
        <p>{t.text}</p>
      </blockquote>
      <p className="testimonial__who">
        <strong>{t.name}</strong>
        {t.country ? <span className="muted"> · {t.country}</span> : null}
        {Number.isNaN(date.getTime()) ? null : (
          <>
            {' · '}
            <time className="muted" dateTime={t.date}>
              {formatDate(t.date, locale)}
            </time>
          </>
        )}
      </p>
    </li>
  );
}

interface TestimonialsSectionProps {
  // The section's heading; "What our investors say" (in the reader's language) unless told
  // otherwise.
  title?: string;
  // With no testimonials yet: false (the default) renders nothing, true shows the heading and
  // "No testimonials yet".
  showEmpty?: boolean;
}

// Testimonials written by verified investors and approved by staff, newest first: four at first,
// the rest behind "Show More". Nothing renders while loading or when the server cannot be
// reached, so the home page never shows a broken or placeholder block.
export function TestimonialsSection({ title, showEmpty = false }: TestimonialsSectionProps) {
  const { t } = useTranslation('community');
  const { data } = useListTestimonialsQuery();
  const [expanded, setExpanded] = useState(false);
  const headingId = useId();
  const listId = useId();
  if (!data) return null;
  const all = data.testimonials;
  if (all.length === 0 && !showEmpty) return null;
  const shown = expanded ? all : all.slice(0, INITIAL_TESTIMONIALS);
  return (
    <section className="testimonials" aria-labelledby={headingId} data-testid="testimonials-section">
      <h2 id={headingId}>{title ?? t('testimonials.title')}</h2>
      {all.length === 0 ? (
        <p className="empty">{t('testimonials.empty')}</p>
      ) : (
        <>
          <p className="muted">{t('testimonials.intro')}</p>
          <ul className="testimonials__list" id={listId}>
            {shown.map((item) => (
              <TestimonialCard key={item._id} t={item} />
            ))}
          </ul>
          {all.length > INITIAL_TESTIMONIALS ? (
            <button type="button" className="button button--secondary" aria-expanded={expanded} aria-controls={listId} onClick={() => setExpanded((e) => !e)}>
              {expanded ? t('testimonials.less') : t('testimonials.more')}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

import { useId, useState } from 'react';
import { useListTestimonialsQuery, type Testimonial } from '../../api/community';
import './community.css';

// How many testimonials show before "Show More".
export const INITIAL_TESTIMONIALS = 4;

const published = new Intl.DateTimeFormat('en', { dateStyle: 'medium' });

function TestimonialCard({ t }: { t: Testimonial }) {
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
              {published.format(date)}
            </time>
          </>
        )}
      </p>
    </li>
  );
}

interface TestimonialsSectionProps {
  // The section's heading; "What our investors say" unless told otherwise.
  title?: string;
  // With no testimonials yet: false (the default) renders nothing, true shows the heading and
  // "No testimonials yet".
  showEmpty?: boolean;
}

// Testimonials written by verified investors and approved by staff, newest first: four at first,
// the rest behind "Show More". Nothing renders while loading or when the server cannot be
// reached, so the home page never shows a broken or placeholder block.
export function TestimonialsSection({ title = 'What our investors say', showEmpty = false }: TestimonialsSectionProps) {
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
      <h2 id={headingId}>{title}</h2>
      {all.length === 0 ? (
        <p className="empty">No testimonials yet</p>
      ) : (
        <>
          <p className="muted">Written by investors with a verified account and a confirmed deposit, and reviewed by our team.</p>
          <ul className="testimonials__list" id={listId}>
            {shown.map((t) => (
              <TestimonialCard key={t._id} t={t} />
            ))}
          </ul>
          {all.length > INITIAL_TESTIMONIALS ? (
            <button type="button" className="button button--secondary" aria-expanded={expanded} aria-controls={listId} onClick={() => setExpanded((e) => !e)}>
              {expanded ? 'Show Less' : 'Show More'}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useGetMyTestimonialQuery, useSubmitTestimonialMutation, type OwnTestimonial } from '../../api/community';
import { Spinner } from '../../components/Spinner';
import { useRunMutation } from '../../components/useRunMutation';
import './community.css';

// The server's limits (domain/testimonial), checked here first so the common mistake is caught
// before a round trip; the server stays the authority.
export const MIN_TEXT = 20;
export const MAX_TEXT = 600;
const LENGTH_MESSAGE = 'Your testimonial must be 20 to 600 characters.';

function normalisedLength(text: string) {
  return [...text.trim().replace(/[ \t]+/g, ' ')].length;
}

function ShareForm({ again }: { again: boolean }) {
  const run = useRunMutation();
  const [submit, submitting] = useSubmitTestimonialMutation();
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const id = useId();
  const length = normalisedLength(text);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting.isLoading) return;
    if (length < MIN_TEXT || length > MAX_TEXT) {
      setError(LENGTH_MESSAGE);
      return;
    }
    const outcome = await run(submit({ submitTestimonialRequest: { text } }), {
      fallback: 'Your testimonial could not be sent.',
      success: (data) => data.message,
    });
    if (!outcome.ok && outcome.error.field === 'text') setError(outcome.message);
  };
  return (
    <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate>
      <div className="field" data-invalid={error ? true : undefined}>
        <label className="field__label" htmlFor={id}>
          {again ? 'Write a new testimonial' : 'Your experience with Clearvest'}
        </label>
        <p id={`${id}-hint`} className="field__hint">
          {MIN_TEXT} to {MAX_TEXT} characters. Our team reviews it before it appears on the site, with your first name, the
          initial of your last name and your country.
        </p>
        <textarea
          id={id}
          className="field__input"
          rows={4}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setError('');
          }}
          aria-invalid={error ? true : undefined}
          aria-describedby={[`${id}-hint`, `${id}-count`, error ? `${id}-error` : ''].filter(Boolean).join(' ')}
        />
        <p id={`${id}-count`} className="share-card__count">
          {length} / {MAX_TEXT}
        </p>
        {error ? (
          <p id={`${id}-error`} className="field__error">
            {error}
          </p>
        ) : null}
      </div>
      <button type="submit" className="button" aria-disabled={submitting.isLoading || undefined}>
        {submitting.isLoading ? 'Sending…' : 'Share my experience'}
      </button>
    </form>
  );
}

function Status({ t }: { t: OwnTestimonial }) {
  if (t.status === 'Pending') {
    return (
      <p data-testid="testimonial-status">
        <span className="badge">Under review</span> Thank you! Our team will review your testimonial soon.
      </p>
    );
  }
  if (t.status === 'Approved') {
    return (
      <p data-testid="testimonial-status">
        <span className="badge badge--success">Published</span> Thank you for sharing your experience.
      </p>
    );
  }
  return (
    <div className="panel panel--warning" data-testid="testimonial-status">
      <p>
        <strong>Your testimonial was not published.</strong> {t.reason ? `Reason: ${t.reason}` : null}
      </p>
    </div>
  );
}

// The card of the page "Share your experience" (/share-your-experience, linked from the
// dashboard): a verified investor (verified e-mail and a
// confirmed deposit) writes one testimonial; while it waits or once it is published the card
// says so; after a rejection it shows the reason and lets them write a new one. Others are told
// what makes them eligible.
export function ShareExperienceCard({ title = 'Share your experience' }: { title?: string }) {
  const query = useGetMyTestimonialQuery({}, { refetchOnMountOrArgChange: true });
  const headingId = useId();
  const { data } = query;
  let body;
  if (data) {
    const latest = data.testimonial;
    if (latest && latest.status !== 'Rejected') body = <Status t={latest} />;
    else if (!data.eligible) {
      body = (
        <p className="muted" data-testid="testimonial-not-eligible">
          Once your e-mail address is verified and your first deposit is confirmed, you can tell others about your
          experience here. <Link to="/deposit-payment">Fund your wallet</Link>
        </p>
      );
    } else {
      body = (
        <>
          {latest ? <Status t={latest} /> : null}
          <ShareForm again={Boolean(latest)} />
        </>
      );
    }
  } else if (query.isError) {
    body = (
      <p>
        Your testimonial could not be loaded.{' '}
        <button type="button" className="button button--secondary" onClick={() => void query.refetch()}>
          Try again
        </button>
      </p>
    );
  } else {
    body = <Spinner label="Loading…" />;
  }
  return (
    <section className="card stack" aria-labelledby={headingId} data-testid="share-experience">
      <h2 id={headingId} className="panel__title">
        {title}
      </h2>
      {body}
    </section>
  );
}

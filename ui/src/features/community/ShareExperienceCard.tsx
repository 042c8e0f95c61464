import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useGetMyTestimonialQuery, useSubmitTestimonialMutation, type OwnTestimonial } from '../../api/community';
import { Spinner } from '../../components/Spinner';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { useTranslation } from '../../i18n';
import './community.css';

// The server's limits (domain/testimonial), checked here first so the common mistake is caught
// before a round trip; the server stays the authority.
export const MIN_TEXT = 20;
export const MAX_TEXT = 600;

function normalisedLength(text: string) {
  return [...text.trim().replace(/[ \t]+/g, ' ')].length;
}

function ShareForm({ again }: { again: boolean }) {
  const { t } = useTranslation('dashboard');
  const run = useRunMutation();
  const [submit, submitting] = useSubmitTestimonialMutation();
  const [text, setText] = useState('');
  const [error, setError] = useState('');
  const [formError, setFormError] = useFormError();
  const textRef = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  const length = normalisedLength(text);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting.isLoading) return;
    // A problem with the text is said on the text, which takes the focus.
    const onText = (message: string) => {
      setError(message);
      textRef.current?.focus();
    };
    if (length < MIN_TEXT || length > MAX_TEXT) {
      onText(t('share.length', { min: MIN_TEXT, max: MAX_TEXT }));
      return;
    }
    await run(submit({ submitTestimonialRequest: { text } }), {
      fallback: t('share.sendFailed'),
      success: (data) => data.message,
      formError: setFormError,
      handled: (info) => {
        if (info.field !== 'text') return false;
        onText(info.message ?? t('share.sendFailed'));
        return true;
      },
    });
  };
  return (
    <>
    <FormError message={formError} />
    <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate>
      <div className="field" data-invalid={error ? true : undefined}>
        <label className="field__label" htmlFor={id}>
          {again ? t('share.again') : t('share.label')}
        </label>
        <p id={`${id}-hint`} className="field__hint">
          {t('share.hint', { min: MIN_TEXT, max: MAX_TEXT })}
        </p>
        <textarea
          ref={textRef}
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
        {submitting.isLoading ? t('share.sending') : t('share.submit')}
      </button>
    </form>
    </>
  );
}

function Status({ testimonial }: { testimonial: OwnTestimonial }) {
  const { t } = useTranslation('dashboard');
  if (testimonial.status === 'Pending') {
    return (
      <p data-testid="testimonial-status">
        <span className="badge">{t('share.underReview')}</span> {t('share.underReviewText')}
      </p>
    );
  }
  if (testimonial.status === 'Approved') {
    return (
      <p data-testid="testimonial-status">
        <span className="badge badge--success">{t('share.published')}</span> {t('share.publishedText')}
      </p>
    );
  }
  return (
    <div className="panel panel--warning" data-testid="testimonial-status">
      <p>
        <strong>{t('share.notPublished')}</strong> {testimonial.reason ? t('share.reason', { reason: testimonial.reason }) : null}
      </p>
    </div>
  );
}

// The card of the page "Share your experience" (/share-your-experience, linked from the
// dashboard): a verified investor (verified e-mail and a
// confirmed deposit) writes one testimonial; while it waits or once it is published the card
// says so; after a rejection it shows the reason and lets them write a new one. Others are told
// what makes them eligible.
export function ShareExperienceCard({ title }: { title?: string }) {
  const { t } = useTranslation('dashboard');
  const query = useGetMyTestimonialQuery({}, { refetchOnMountOrArgChange: true });
  const headingId = useId();
  const { data } = query;
  let body;
  if (data) {
    const latest = data.testimonial;
    if (latest && latest.status !== 'Rejected') body = <Status testimonial={latest} />;
    else if (!data.eligible) {
      body = (
        <p className="muted" data-testid="testimonial-not-eligible">
          {t('share.notEligible')} <Link to="/deposit-payment">{t('share.fund')}</Link>
        </p>
      );
    } else {
      body = (
        <>
          {latest ? <Status testimonial={latest} /> : null}
          <ShareForm again={Boolean(latest)} />
        </>
      );
    }
  } else if (query.isError) {
    body = (
      <p>
        {t('share.loadFailed')}{' '}
        <button type="button" className="button button--secondary" onClick={() => void query.refetch()}>
          {t('share.tryAgain')}
        </button>
      </p>
    );
  } else {
    body = <Spinner label={t('share.loading')} />;
  }
  return (
    <section className="card stack" aria-labelledby={headingId} data-testid="share-experience">
      <h2 id={headingId} className="panel__title">
        {title ?? t('share.title')}
      </h2>
      {body}
    </section>
  );
}

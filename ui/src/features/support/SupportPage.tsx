import { useGetContentSupportQuery } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { FaqSection } from '../content/FaqSection';
import { ContactForm } from './ContactForm';

function ContactDetails() {
  const details = useGetContentSupportQuery();
  return (
    <aside className="card contact-details" aria-labelledby="contact-details-title">
      <h2 id="contact-details-title">Other ways to reach us</h2>
      <QueryState query={details} loading="Loading the contact details…" failed="The contact details could not be loaded">
        {(data) => (
          <dl className="details-list">
            <dt>E-mail</dt>
            <dd>
              <a href={`mailto:${data.email}`} className="break-anywhere">
                {data.email}
              </a>
            </dd>
            <dt>Response time</dt>
            <dd>{data.responseTime}</dd>
            {data.hours ? (
              <>
                <dt>Hours</dt>
                <dd>{data.hours}</dd>
              </>
            ) : null}
          </dl>
        )}
      </QueryState>
    </aside>
  );
}

// The Help Center: the contact form, how else to reach support, and the FAQ below.
export function SupportPage() {
  return (
    <div className="page container">
      <h1>Help Center</h1>
      <p>Questions about your account, a deposit or a withdrawal? Write to us, or look for your answer in the FAQ below.</p>
      <div className="support-grid">
        <ContactForm />
        <ContactDetails />
      </div>
      <FaqSection />
    </div>
  );
}

import { useGetContentSupportQuery } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';
import { FaqSection } from '../content/FaqSection';
import { ContactForm } from './ContactForm';

function ContactDetails() {
  const { t } = useTranslation('support');
  const details = useGetContentSupportQuery();
  return (
    <aside className="card contact-details" aria-labelledby="contact-details-title">
      <h2 id="contact-details-title">{t('details.title')}</h2>
      <QueryState query={details} loading={t('details.loading')} failed={t('details.failed')}>
        {(data) => (
          <dl className="details-list">
            <dt>{t('details.email')}</dt>
            <dd>
              <a href={`mailto:${data.email}`} className="break-anywhere">
                {data.email}
              </a>
            </dd>
            <dt>{t('details.responseTime')}</dt>
            <dd>{data.responseTime}</dd>
            {data.hours ? (
              <>
                <dt>{t('details.hours')}</dt>
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
  const { t } = useTranslation('support');
  return (
    <div className="page container">
      <h1>{t('title')}</h1>
      <p>{t('lead')}</p>
      <div className="support-grid">
        <ContactForm />
        <ContactDetails />
      </div>
      <FaqSection />
    </div>
  );
}

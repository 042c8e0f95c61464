import { useId, useState } from 'react';
import { useGetContentFaqQuery, type ContentFaqItem } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';
import { SampleLabel } from './SampleLabel';

interface FaqItemProps {
  item: ContentFaqItem;
  open: boolean;
  onToggle: () => void;
  idPrefix: string;
}

function FaqItem({ item, open, onToggle, idPrefix }: FaqItemProps) {
  const buttonId = `${idPrefix}-${item.id}-question`;
  const panelId = `${idPrefix}-${item.id}-answer`;
  return (
    <li className="faq__item" data-open={open || undefined}>
      <h3 className="faq__question">
        <button type="button" id={buttonId} className="faq__toggle" aria-expanded={open} aria-controls={panelId} onClick={onToggle}>
          <span>{item.question}</span>
          <span className="faq__mark" aria-hidden="true" />
        </button>
      </h3>
      {/* The answer is HTML the server rendered from the operator's Markdown with raw HTML
          dropped (platform/sitecontent), so it carries no markup of anyone else's. */}
      <div
        id={panelId}
        role="region"
        aria-labelledby={buttonId}
        className="faq__answer prose"
        hidden={!open}
        dangerouslySetInnerHTML={{ __html: item.answerHtml }}
      />
    </li>
  );
}

// The FAQ: questions that open one at a time; opening one closes the other, and pressing the
// open one closes it. Anchored at #faq so menus and links can point at it.
export function FaqSection({ headingLevel = 2 }: { headingLevel?: 2 | 3 }) {
  const faq = useGetContentFaqQuery();
  const [openId, setOpenId] = useState<string | null>(null);
  const idPrefix = useId();
  const { t, i18n } = useTranslation();
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const heading = (
    <Heading id="faq-title" className="faq__title" lang={i18n.language}>
      {t('content.faqTitle')}
    </Heading>
  );
  // lang: the operator's content is English in every language of the UI (docs/i18n.md, "What stays
  // English"), so a screen reader on a German page reads it with English pronunciation.
  return (
    <section id="faq" className="section faq" aria-labelledby="faq-title" lang="en">
      <QueryState
        query={faq}
        loading={t('content.faqLoading')}
        failed={t('content.faqFailed')}
        heading={heading}
      >
        {(data) => (
          <>
            {heading}
            {data.sample ? (
              <p className="muted" lang={i18n.language}>
                <SampleLabel>{t('content.sampleText')}</SampleLabel> {t('content.faqSample')}
              </p>
            ) : null}
            {data.items.length === 0 ? (
              <p className="empty" lang={i18n.language}>
                {t('content.faqEmpty')}
              </p>
            ) : null}
            <ul className="faq__list">
              {data.items.map((item) => (
                <FaqItem
                  key={item.id}
                  item={item}
                  idPrefix={idPrefix}
                  open={openId === item.id}
                  onToggle={() => setOpenId((current) => (current === item.id ? null : item.id))}
                />
              ))}
            </ul>
          </>
        )}
      </QueryState>
    </section>
  );
}

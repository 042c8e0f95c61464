import { Link } from 'react-router';
import { useGetContentHowItWorksQuery } from '../../api/enhanced';
import { usePageNames } from '../../app/pageNames';
import { pages } from '../../app/routes';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';
import { ContentIcon } from './ContentIcon';

export function HowItWorksPage() {
  const how = useGetContentHowItWorksQuery();
  const { t, i18n } = useTranslation();
  const names = usePageNames();
  const route = pages.find((p) => p.path === '/how-it-works');
  // lang: the operator's content is English in every language of the UI (docs/i18n.md, "What stays
  // English"), so a screen reader on a German page reads it with English pronunciation.
  return (
    <section className="page container" aria-labelledby="how-title" lang="en">
      <h1 id="how-title" lang={i18n.language}>
        {route && names.title(route)}
      </h1>
      <QueryState
        query={how}
        loading={t('content.stepsLoading')}
        failed={t('content.stepsFailed')}
        empty={{ when: (data) => data.steps.length === 0, message: t('content.stepsEmpty') }}
      >
        {(data) => (
          <>
            {data.intro ? <p>{data.intro}</p> : null}
            <ol className="how-steps">
              {data.steps.map((step) => (
                <li key={step.id} className="how-steps__item" data-testid="how-step">
                  <div className="how-steps__icon">
                    <ContentIcon name={step.icon} />
                  </div>
                  <div className="how-steps__body">
                    <h2 className="how-steps__title">{step.title}</h2>
                    {/* Rendered by the server from Markdown, raw HTML dropped. */}
                    <div className="prose" dangerouslySetInnerHTML={{ __html: step.descriptionHtml }} />
                    {step.link ? (
                      <Link className="how-steps__link" to={step.link}>
                        {t('content.goTo', { step: step.title.toLowerCase() })}
                      </Link>
                    ) : null}
                  </div>
                </li>
              ))}
            </ol>
          </>
        )}
      </QueryState>
    </section>
  );
}

import { Link } from 'react-router';
import { useGetContentHowItWorksQuery } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { ContentIcon } from './ContentIcon';

export function HowItWorksPage() {
  const how = useGetContentHowItWorksQuery();
  // lang: the operator's content is English in every language of the UI (docs/i18n.md, "What stays
  // English"), so a screen reader on a German page reads it with English pronunciation.
  return (
    <section className="page container" aria-labelledby="how-title" lang="en">
      <h1 id="how-title">How It Works</h1>
      <QueryState
        query={how}
        loading="Loading the steps…"
        failed="The steps could not be loaded"
        empty={{ when: (data) => data.steps.length === 0, message: 'No steps have been published yet.' }}
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
                        Go to {step.title.toLowerCase()}
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

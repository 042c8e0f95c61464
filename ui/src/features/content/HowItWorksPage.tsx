import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useGetContentHowItWorksQuery, type ContentHowItWorks, type ContentStep } from '../../api/enhanced';
import { usePageNames } from '../../app/pageNames';
import { pages } from '../../app/routes';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';
import { ContentIcon } from './ContentIcon';

// What a step shows, each part ready to render. The server fills the same markup for visitors
// without JavaScript (api/livepages.go, from templates entry-server.tsx renders with these views),
// so a real step and its template render the same markup.
export interface StepParts {
  icon: ReactNode;
  title: string;
  // Rendered by the server from Markdown, raw HTML dropped.
  descriptionHtml: string;
  link?: { to: string; text: string };
}

export function StepView({ parts }: { parts: StepParts }) {
  return (
    <li className="how-steps__item" data-testid="how-step">
      <div className="how-steps__icon">{parts.icon}</div>
      <div className="how-steps__body">
        <h2 className="how-steps__title">{parts.title}</h2>
        <div className="prose" dangerouslySetInnerHTML={{ __html: parts.descriptionHtml }} />
        {parts.link ? (
          <Link className="how-steps__link" to={parts.link.to}>
            {parts.link.text}
          </Link>
        ) : null}
      </div>
    </li>
  );
}

export function Step({ step }: { step: ContentStep }) {
  const { t } = useTranslation();
  return (
    <StepView
      parts={{
        icon: <ContentIcon name={step.icon} />,
        title: step.title,
        descriptionHtml: step.descriptionHtml,
        link: step.link ? { to: step.link, text: t('content.goTo', { step: step.title.toLowerCase() }) } : undefined,
      }}
    />
  );
}

// The intro and the steps, as the page shows them once they are known.
export function HowItWorksView({ intro, steps }: { intro?: ReactNode; steps: ReactNode }) {
  return (
    <>
      {intro ? <p>{intro}</p> : null}
      <ol className="how-steps">{steps}</ol>
    </>
  );
}

export function HowItWorksContent({ data }: { data: ContentHowItWorks }) {
  return <HowItWorksView intro={data.intro} steps={data.steps.map((step) => <Step key={step.id} step={step} />)} />;
}

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
        {(data) => <HowItWorksContent data={data} />}
      </QueryState>
    </section>
  );
}

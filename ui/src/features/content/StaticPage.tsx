import { useGetContentPageQuery } from '../../api/enhanced';
import { usePageNames } from '../../app/pageNames';
import { pages } from '../../app/routes';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';
import { SampleLabel } from './SampleLabel';

// One of the operator's static pages, rendered by the server from Markdown with raw HTML dropped
// (platform/sitecontent). The route's own title names the page until its content arrives; the
// heading stays the same element throughout, so the prerendered page's heading survives hydration
// and only its text changes.
function StaticPage({ slug }: { slug: string }) {
  const page = useGetContentPageQuery({ slug });
  const { t, i18n } = useTranslation();
  const names = usePageNames();
  // The route table names each static page at the path of its slug, in the reader's language.
  const route = pages.find((p) => p.path === `/${slug}`);
  const title = (route && names.title(route)) ?? '';
  // lang: the operator's content is English in every language of the UI (docs/i18n.md, "What stays
  // English"), so a screen reader on a German page reads it with English pronunciation.
  return (
    <article className="page container page--prose" aria-labelledby="static-page-title" lang="en">
      <h1 id="static-page-title" lang={page.data ? undefined : i18n.language}>
        {page.data?.title ?? title}
      </h1>
      <QueryState query={page} loading={t('content.pageLoading')} failed={t('content.pageFailed')}>
        {(data) => (
          <>
            {data.sample ? (
              <p lang={i18n.language}>
                <SampleLabel>{t('content.sampleText')}</SampleLabel>
              </p>
            ) : null}
            <div className="prose" data-testid="static-page-body" dangerouslySetInnerHTML={{ __html: data.html }} />
          </>
        )}
      </QueryState>
    </article>
  );
}

export function PrivacyPolicyPage() {
  return <StaticPage slug="privacy-policy" />;
}

export function LicensePage() {
  return <StaticPage slug="license" />;
}

export function OurStoryPage() {
  return <StaticPage slug="our-story" />;
}

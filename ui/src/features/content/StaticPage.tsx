import { useGetContentPageQuery } from '../../api/enhanced';
import { QueryState } from '../../components/QueryState';
import { SampleLabel } from './SampleLabel';

// One of the operator's static pages, rendered by the server from Markdown with raw HTML dropped
// (platform/sitecontent). The route's own title names the page until its content arrives; the
// heading stays the same element throughout, so the prerendered page's heading survives hydration
// and only its text changes.
function StaticPage({ slug, title }: { slug: string; title: string }) {
  const page = useGetContentPageQuery({ slug });
  // lang: the operator's content is English in every language of the UI (docs/i18n.md, "What stays
  // English"), so a screen reader on a German page reads it with English pronunciation.
  return (
    <article className="page container page--prose" aria-labelledby="static-page-title" lang="en">
      <h1 id="static-page-title">{page.data?.title ?? title}</h1>
      <QueryState query={page} loading="Loading the page…" failed="This page could not be loaded">
        {(data) => (
          <>
            {data.sample ? (
              <p>
                <SampleLabel>Sample text</SampleLabel>
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
  return <StaticPage slug="privacy-policy" title="Privacy Policy" />;
}

export function LicensePage() {
  return <StaticPage slug="license" title="License" />;
}

export function OurStoryPage() {
  return <StaticPage slug="our-story" title="About Us" />;
}

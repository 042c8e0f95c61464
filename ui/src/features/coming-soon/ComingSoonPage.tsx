import { Link } from 'react-router';

// A page of the route table that is not built yet; the route table also gives the document title.
export function ComingSoonPage({ title }: { title: string }) {
  return (
    <section className="page page--narrow" aria-labelledby="coming-soon-title">
      <p className="eyebrow">Coming soon</p>
      <h1 id="coming-soon-title">{title}</h1>
      <p>We are still building this page, so it is not available yet.</p>
      <p>
        <Link className="button" to="/">
          Back to home
        </Link>
      </p>
    </section>
  );
}

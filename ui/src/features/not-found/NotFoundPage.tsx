import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <section className="page page--narrow" aria-labelledby="not-found-title">
      <p className="eyebrow">Error 404</p>
      <h1 id="not-found-title">Page not found</h1>
      <p>We could not find the page you asked for. It may have moved, or the address may be mistyped.</p>
      <p>
        <Link className="button" to="/">
          Back to home
        </Link>
      </p>
    </section>
  );
}

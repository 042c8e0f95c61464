import { Link } from 'react-router';
import { usePageTitle } from '../../components/usePageTitle';

export function ComingSoonPage({ title }: { title: string }) {
  usePageTitle(title);
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

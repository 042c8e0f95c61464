import { Link } from 'react-router';
import { useGetMetaQuery } from '../api/enhanced';
import { Logo } from './Logo';
import { menuLinks } from './routes';
import { useViewer } from './useViewer';

export function Footer() {
  // The version is a courtesy for support requests; if the server cannot say, show nothing.
  const { data: meta } = useGetMetaQuery();
  const viewer = useViewer();
  const legal = menuLinks('footer', viewer);
  // The main menu's pages, less Sign In (the navbar's button) and those the company column has.
  const explore = menuLinks('main', viewer).filter(
    (link) => link.to !== '/login' && !legal.some((other) => other.to === link.to),
  );
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <div className="site-footer__brand">
          <Link to="/" className="site-footer__logo">
            <Logo />
          </Link>
          <p className="site-footer__tagline">Fixed-term crypto savings plans, explained plainly.</p>
          {/* The language switcher goes here: a component rendered inside this container, which
              the footer's layout already places under the tagline. Left empty until it exists. */}
          <div className="footer__locale" />
        </div>
        <nav aria-label="Explore" className="site-footer__nav">
          <h2 className="site-footer__heading">Explore</h2>
          <ul className="site-footer__links">
            {explore.map(({ to, label }) => (
              <li key={to}>
                <Link to={to}>{label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-label="Footer" className="site-footer__nav">
          <h2 className="site-footer__heading">Company</h2>
          <ul className="site-footer__links">
            {legal.map(({ to, label }) => (
              <li key={to}>
                <Link to={to}>{label}</Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <div className="site-footer__base">
        <p className="site-footer__risk">
          Crypto assets are volatile and you can lose money. A plan&apos;s return is fixed when it starts, but it
          depends on Clearvest being able to pay it. Only put in money you can afford to lose.
        </p>
        <p className="site-footer__meta">
          Clearvest
          {meta?.version ? <span data-testid="app-version"> · version {meta.version}</span> : null}
        </p>
      </div>
    </footer>
  );
}

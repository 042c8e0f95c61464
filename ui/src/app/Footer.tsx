import { Link } from 'react-router';
import { useGetMetaQuery } from '../api/enhanced';
import { useViewer } from './useViewer';
import { menuLinks } from './routes';

export function Footer() {
  // The version is a courtesy for support requests; if the server cannot say, show nothing.
  const { data: meta } = useGetMetaQuery();
  const links = menuLinks('footer', useViewer());
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <nav aria-label="Footer">
          <ul className="site-footer__links">
            {links.map(({ to, label }) => (
              <li key={to}>
                <Link to={to}>{label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <p className="site-footer__meta">
          Clearvest
          {meta?.version ? <span data-testid="app-version"> · version {meta.version}</span> : null}
        </p>
      </div>
    </footer>
  );
}

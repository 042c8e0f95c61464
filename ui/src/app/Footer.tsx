import { Link } from 'react-router';
import { useGetMetaQuery } from '../api/enhanced';

const links = [
  { to: '/our-story', label: 'About Us' },
  { to: '/support', label: 'Help Center' },
  { to: '/privacy-policy', label: 'Privacy Policy' },
  { to: '/license', label: 'License' },
];

export function Footer() {
  // The version is a courtesy for support requests; if the server cannot say, show nothing.
  const { data: meta } = useGetMetaQuery();
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
            {meta?.environment === 'development' ? (
              <li>
                <Link to="/dev/mail">Development mailbox</Link>
              </li>
            ) : null}
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

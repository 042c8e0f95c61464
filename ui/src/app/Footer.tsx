import { Link } from 'react-router';
import { useGetMetaQuery } from '../api/enhanced';
import { useTranslation } from '../i18n';
import { LanguageSwitcher } from '../i18n/LanguageSwitcher';
import { Logo } from './Logo';
import { useMenuLinks } from './pageNames';
import { useViewer } from './useViewer';

export function Footer() {
  // The version is a courtesy for support requests; if the server cannot say, show nothing.
  const { data: meta } = useGetMetaQuery();
  const viewer = useViewer();
  const { t } = useTranslation();
  const legal = useMenuLinks('footer', viewer);
  // The main menu's pages, less Sign In (the navbar's button) and those the company column has.
  const explore = useMenuLinks('main', viewer).filter(
    (link) => link.to !== '/login' && !legal.some((other) => other.to === link.to),
  );
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <div className="site-footer__brand">
          <Link to="/" className="site-footer__logo">
            <Logo />
          </Link>
          <p className="site-footer__tagline">{t('footer.tagline')}</p>
          <div className="footer__locale">
            <LanguageSwitcher />
          </div>
        </div>
        <nav aria-label={t('footer.explore')} className="site-footer__nav">
          <h2 className="site-footer__heading">{t('footer.explore')}</h2>
          <ul className="site-footer__links">
            {explore.map(({ to, label }) => (
              <li key={to}>
                <Link to={to}>{label}</Link>
              </li>
            ))}
          </ul>
        </nav>
        <nav aria-label={t('footer.label')} className="site-footer__nav">
          <h2 className="site-footer__heading">{t('footer.company')}</h2>
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
        <p className="site-footer__risk">{t('footer.risk')}</p>
        <p className="site-footer__meta">
          Clearvest
          {meta?.version ? <span data-testid="app-version"> · {t('footer.version', { version: meta.version })}</span> : null}
        </p>
      </div>
    </footer>
  );
}

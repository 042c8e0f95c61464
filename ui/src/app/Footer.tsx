import { Link } from 'react-router';
import { useGetMetaQuery } from '../api/enhanced';
import { useTranslation } from '../i18n';
import { LanguageSwitcher } from '../i18n/LanguageSwitcher';
import { useMenuLinks } from './pageNames';
import { useViewer } from './useViewer';

export function Footer() {
  // The version is a courtesy for support requests; if the server cannot say, show nothing.
  const { data: meta } = useGetMetaQuery();
  const links = useMenuLinks('footer', useViewer());
  const { t } = useTranslation();
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <nav aria-label={t('footer.label')}>
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
          {meta?.version ? <span data-testid="app-version"> · {t('footer.version', { version: meta.version })}</span> : null}
        </p>
        <LanguageSwitcher />
      </div>
    </footer>
  );
}

import { Link } from 'react-router';
import { usePageNames } from '../../app/pageNames';
import type { PageRoute } from '../../app/routes';
import { useTranslation } from '../../i18n';

// A page of the route table that is not built yet; the route table also gives the document title.
export function ComingSoonPage({ page }: { page: PageRoute }) {
  const { t } = useTranslation();
  const title = usePageNames().title(page);
  return (
    <section className="page page--narrow" aria-labelledby="coming-soon-title">
      <p className="eyebrow">{t('comingSoon.eyebrow')}</p>
      <h1 id="coming-soon-title">{title}</h1>
      <p>{t('comingSoon.body')}</p>
      <p>
        <Link className="button" to="/">
          {t('backToHome')}
        </Link>
      </p>
    </section>
  );
}

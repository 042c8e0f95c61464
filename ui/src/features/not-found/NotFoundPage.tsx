import { Link } from 'react-router';
import { useTranslation } from '../../i18n';

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <section className="page page--narrow" aria-labelledby="not-found-title">
      <p className="eyebrow">{t('notFound.eyebrow')}</p>
      <h1 id="not-found-title">{t('notFound.title')}</h1>
      <p>{t('notFound.body')}</p>
      <p>
        <Link className="button" to="/">
          {t('backToHome')}
        </Link>
      </p>
    </section>
  );
}

import { useEffect, useState } from 'react';
import { Link, useRouteError } from 'react-router';
import { Spinner } from '../components/Spinner';
import { usePageTitle } from '../components/usePageTitle';
import { useTranslation } from '../i18n';
import { browserPage, PageLoadError, reloadedAlready, reloadOnce } from './pageLoader';

// The error page of the routes: a page whose code could not be loaded, or that failed while
// rendering, shows this instead of a blank screen. A page that could not be loaded first gets one
// automatic reload (see pageLoader.ts). Trying again reloads the page, which also fetches the
// current release if a deploy is why the page's code was missing.
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  const notLoaded = error instanceof PageLoadError;
  // Decided once: the reload marks the tab, and the page must not flash the error meanwhile.
  const [reloading] = useState(() => notLoaded && !reloadedAlready());
  useEffect(() => {
    if (reloading) reloadOnce();
    else console.error('route error', error);
  }, [reloading, error]);
  usePageTitle(reloading ? undefined : t('routeError.title'));

  if (reloading) return <Spinner label={t('routeError.loading')} />;
  return (
    <section className="page page--narrow" aria-labelledby="route-error-title">
      <p className="eyebrow">{t('routeError.eyebrow')}</p>
      <h1 id="route-error-title">{t('routeError.title')}</h1>
      <p role="alert">
        {notLoaded ? t('routeError.notLoaded') : t('routeError.failed')} {t('routeError.moneySafe')}
      </p>
      <p className="button-row">
        <button type="button" className="button" onClick={() => browserPage.reload()}>
          {t('routeError.tryAgain')}
        </button>
        <Link className="button button--secondary" to="/">
          {t('backToHome')}
        </Link>
      </p>
    </section>
  );
}

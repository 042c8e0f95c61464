import { useEffect } from 'react';
import { Link, useRouteError } from 'react-router';
import { usePageTitle } from '../components/usePageTitle';
import { browserPage, PageLoadError } from './pageLoader';

// The error page of the routes: a page whose code could not be loaded, or that failed while
// rendering, shows this instead of a blank screen. Trying again reloads the page, which also
// fetches the current release if a deploy is why the page's code was missing.
export function RouteError() {
  const error = useRouteError();
  usePageTitle('Something went wrong');
  useEffect(() => {
    console.error('route error', error);
  }, [error]);
  const notLoaded = error instanceof PageLoadError;
  return (
    <section className="page page--narrow" aria-labelledby="route-error-title">
      <p className="eyebrow">Error</p>
      <h1 id="route-error-title">Something went wrong</h1>
      <p role="alert">
        {notLoaded
          ? 'This page could not be loaded. Clearvest may have just been updated, or the connection dropped.'
          : 'This page ran into a problem and could not be shown.'}{' '}
        Your account and your money are not affected.
      </p>
      <p className="button-row">
        <button type="button" className="button" onClick={() => browserPage.reload()}>
          Try again
        </button>
        <Link className="button button--secondary" to="/">
          Back to home
        </Link>
      </p>
    </section>
  );
}

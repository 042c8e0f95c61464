import type { ReactNode } from 'react';
import { errorMessage } from '../api/errors';
import { useTranslation } from '../i18n';
import { Spinner } from './Spinner';

// What every page that reads data needs from an RTK Query hook's result.
export interface QueryResult<T> {
  data?: T;
  isError: boolean;
  error?: unknown;
  refetch: () => unknown;
}

interface QueryStateProps<T> {
  query: QueryResult<T>;
  // The spinner's words while the first answer is awaited, e.g. "Loading your sessions…".
  loading: string;
  // The heading of the error panel, e.g. "Sessions could not be loaded".
  failed: string;
  // When the answer holds nothing to show, this is shown instead of the children.
  empty?: { when: (data: T) => boolean; message: ReactNode };
  // Shown above the spinner or the error, for pages whose content brings its own heading.
  heading?: ReactNode;
  children: (data: T) => ReactNode;
}

// The three states of data being read, shown the same way everywhere: a spinner until the first
// answer, the server's message (or a plain fallback) with "Try again" if there is none, an empty
// message when the answer is empty, else the content. Data already shown stays shown while it is
// refreshed, even if a refresh fails.
export function QueryState<T>({ query, loading, failed, empty, heading, children }: QueryStateProps<T>) {
  const { t } = useTranslation();
  const { data, isError, error, refetch } = query;
  if (data !== undefined) {
    if (empty?.when(data)) return <p className="empty">{empty.message}</p>;
    return <>{children(data)}</>;
  }
  return (
    <>
      {heading}
      {isError ? (
        <LoadError title={failed} message={errorMessage(error, t('loadError.fallback'))} onRetry={() => void refetch()} />
      ) : (
        <Spinner label={loading} />
      )}
    </>
  );
}

// The error panel: what failed, in words, and a way to try again.
export function LoadError({ title, message, onRetry }: { title: string; message: string; onRetry?: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="panel panel--error" role="alert">
      <h2 className="panel__title">{title}</h2>
      <p>{message}</p>
      {onRetry ? (
        <button type="button" className="button button--secondary" onClick={onRetry}>
          {t('loadError.tryAgain')}
        </button>
      ) : null}
    </div>
  );
}

import { useEffect, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/errors';
import { LoadError, type QueryResult } from './QueryState';
import { Spinner } from './Spinner';

// What every keyset-paged answer carries besides its items: the cursor of the next page, absent
// on the last (docs/security.md, "Paging the staff queues"; docs/history.md).
export interface Paged {
  nextCursor?: string;
}

// The RTK Query hook of a paged endpoint, as the pages call it.
export type PageQuery<P> = (
  arg: { cursor?: string; limit: number },
  options: { refetchOnMountOrArgChange: true },
) => QueryResult<P> & { isFetching: boolean };

// A callback ref: the element given to it takes the focus when its page arrives after "Load more".
export type FocusTarget = (element: HTMLElement | null) => void;

export interface PagedChunksProps<P extends Paged> {
  usePage: PageQuery<P>;
  limit: number;
  // The first page with its states: loading, error, empty; content draws the pages once it is
  // there.
  first: (query: QueryResult<P> & { isFetching: boolean }, content: (data: P) => ReactNode) => ReactNode;
  // One page. focus goes on the element that takes the keyboard focus when this page arrives
  // after "Load more" (its first row); previous is the page before it, if any.
  renderPage: (page: { data: P; index: number; focus: FocusTarget; isFetching: boolean; previous?: P }) => ReactNode;
  words: { loadMore: string; loadingMore: string; moreFailed: string; tryAgain: string };
  moreClassName: string;
}

// A list read a page at a time with "Load more". Each page's cursor comes from the page before it
// as currently fetched, so when the list is read again (a decision, a new movement) the pages
// after it follow, and no item is shown twice or falls between two pages. Staff queues and the
// money history both page this way.
export function PagedChunks<P extends Paged>(props: PagedChunksProps<P>) {
  const [pages, setPages] = useState(1);
  return <Chunk {...props} index={0} pages={pages} onMore={() => setPages((n) => n + 1)} />;
}

function Chunk<P extends Paged>(
  props: PagedChunksProps<P> & { cursor?: string; index: number; pages: number; onMore: () => void; previous?: P },
) {
  const { usePage, limit, first, renderPage, words, moreClassName, cursor, index, pages, onMore, previous } = props;
  const query = usePage({ cursor, limit }, { refetchOnMountOrArgChange: true });
  const [target, focus] = useState<HTMLElement | null>(null);
  const loaded = query.data !== undefined;
  useEffect(() => {
    // "Load more" goes away as its page arrives; focus, left on nothing, moves to the new page so
    // the keyboard carries on from there. Focus the user put elsewhere stays.
    if (loaded && index > 0 && (document.activeElement === null || document.activeElement === document.body)) {
      target?.focus();
    }
  }, [loaded, index, target]);
  const body = (data: P) => (
    <>
      {renderPage({ data, index, focus, isFetching: query.isFetching, previous })}
      {data.nextCursor ? (
        index + 1 < pages ? (
          <Chunk {...props} cursor={data.nextCursor} index={index + 1} previous={data} />
        ) : (
          <button type="button" className={`button button--secondary ${moreClassName}`} onClick={onMore}>
            {words.loadMore}
          </button>
        )
      ) : null}
    </>
  );
  if (index === 0) return <>{first(query, body)}</>;
  if (query.data) return body(query.data);
  if (query.isError) {
    return <LoadError title={words.moreFailed} message={errorMessage(query.error, words.tryAgain)} onRetry={() => void query.refetch()} />;
  }
  return <Spinner label={words.loadingMore} />;
}

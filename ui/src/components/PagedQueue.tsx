import { Fragment, useEffect, useRef, useState, type ReactNode } from 'react';
import { errorMessage } from '../api/errors';
import { LoadError, QueryState, type QueryResult } from './QueryState';
import { Spinner } from './Spinner';

// How many items a page of a staff queue asks for.
export const QUEUE_PAGE_SIZE = 50;

// What every staff queue's page says besides its items: the server pages its queues by key
// (docs/security.md, "Paging the staff queues").
export interface QueuePage {
  total: number;
  nextCursor?: string;
}

// The RTK Query hook of one queue's endpoint, as the pages call it.
export type QueuePageQuery<P> = (
  arg: { cursor?: string; limit: number },
  options: { refetchOnMountOrArgChange: true },
) => QueryResult<P> & { isFetching: boolean };

export interface PagedQueueConfig<P extends QueuePage, I> {
  usePage: QueuePageQuery<P>;
  items: (page: P) => I[];
  itemKey: (item: I) => string;
  // One item, a <li>; the page it came on gives, e.g., the server's clock (asOf).
  renderItem: (item: I, page: P) => ReactNode;
  // What waits, for the words around the list: { one: 'deposit', many: 'deposits' }.
  noun: { one: string; many: string };
  // The heading of the error panel when the first page cannot be read.
  failed: string;
  // Prefix of the test ids: `${testId}-queue-total`.
  testId: string;
}

function capitalised(s: string) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// A staff queue read a page at a time, oldest first: the total waiting, the first page, and
// "Load more" for each page after. Every queue is shown this way, so the component is made once
// per queue, at module level, around that queue's query hook.
export function pagedQueue<P extends QueuePage, I>(config: PagedQueueConfig<P, I>) {
  const { usePage, items, itemKey, renderItem, noun, failed, testId } = config;

  // One page, then the next once asked for. The next page's cursor comes from this page's
  // current answer, so when the queue is read again (after a decision) the pages after it
  // follow, and no item is shown twice or falls between two pages.
  function Chunk(props: { cursor?: string; index: number; pages: number; onMore: () => void }) {
    const { cursor, index, pages, onMore } = props;
    const query = usePage({ cursor, limit: QUEUE_PAGE_SIZE }, { refetchOnMountOrArgChange: true });
    const list = useRef<HTMLOListElement>(null);
    const loaded = query.data !== undefined;
    useEffect(() => {
      // "Load more" goes away as its page arrives; focus, left on nothing, moves to the new
      // page so the keyboard carries on from there. Focus the user put elsewhere stays.
      if (loaded && index > 0 && (document.activeElement === null || document.activeElement === document.body)) {
        list.current?.focus();
      }
    }, [loaded, index]);
    const body = (data: P) => (
      <>
        {index === 0 ? (
          <p className="muted" role="status" data-testid={`${testId}-queue-total`}>
            {data.total === 1 ? `1 ${noun.one} is waiting.` : `${data.total} ${noun.many} are waiting.`}
          </p>
        ) : null}
        <ol
          ref={list}
          tabIndex={index > 0 ? -1 : undefined}
          className="queue"
          aria-label={index === 0 ? `${capitalised(noun.many)} waiting, oldest first` : `More ${noun.many} waiting, page ${index + 1}`}
          aria-busy={query.isFetching || undefined}
        >
          {items(data).map((item) => (
            <Fragment key={itemKey(item)}>{renderItem(item, data)}</Fragment>
          ))}
        </ol>
        {data.nextCursor ? (
          index + 1 < pages ? (
            <Chunk {...props} cursor={data.nextCursor} index={index + 1} />
          ) : (
            <button type="button" className="button button--secondary queue-more" onClick={onMore}>
              Load more
            </button>
          )
        ) : null}
      </>
    );
    if (index === 0) {
      return (
        <QueryState
          query={query}
          loading="Loading the queue…"
          failed={failed}
          empty={{ when: (data) => items(data).length === 0, message: `No ${noun.many} are waiting.` }}
        >
          {body}
        </QueryState>
      );
    }
    if (query.data) return body(query.data);
    if (query.isError) {
      return (
        <LoadError
          title={`More ${noun.many} could not be loaded`}
          message={errorMessage(query.error, 'Please try again.')}
          onRetry={() => void query.refetch()}
        />
      );
    }
    return <Spinner label={`Loading more ${noun.many}…`} />;
  }

  return function PagedQueue() {
    const [pages, setPages] = useState(1);
    return <Chunk index={0} pages={pages} onMore={() => setPages((n) => n + 1)} />;
  };
}

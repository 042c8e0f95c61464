import { Fragment, type ReactNode } from 'react';
import { PagedChunks, type PageQuery } from './PagedChunks';
import { QueryState } from './QueryState';

// How many items a page of a staff queue asks for.
export const QUEUE_PAGE_SIZE = 50;

// What every staff queue's page says besides its items: the server pages its queues by key
// (docs/security.md, "Paging the staff queues").
export interface QueuePage {
  total: number;
  nextCursor?: string;
}

// The RTK Query hook of one queue's endpoint, as the pages call it.
export type QueuePageQuery<P> = PageQuery<P>;

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
// "Load more" for each page after (PagedChunks). Every queue is shown this way, so the component
// is made once per queue, at module level, around that queue's query hook.
export function pagedQueue<P extends QueuePage, I>(config: PagedQueueConfig<P, I>) {
  const { usePage, items, itemKey, renderItem, noun, failed, testId } = config;
  return function PagedQueue() {
    return (
      <PagedChunks
        usePage={usePage}
        limit={QUEUE_PAGE_SIZE}
        moreClassName="queue-more"
        words={{
          loadMore: 'Load more',
          loadingMore: `Loading more ${noun.many}…`,
          moreFailed: `More ${noun.many} could not be loaded`,
          tryAgain: 'Please try again.',
        }}
        first={(query, content) => (
          <QueryState
            query={query}
            loading="Loading the queue…"
            failed={failed}
            empty={{ when: (data) => items(data).length === 0, message: `No ${noun.many} are waiting.` }}
          >
            {content}
          </QueryState>
        )}
        renderPage={({ data, index, focus, isFetching }) => (
          <>
            {index === 0 ? (
              <p className="muted" role="status" data-testid={`${testId}-queue-total`}>
                {data.total === 1 ? `1 ${noun.one} is waiting.` : `${data.total} ${noun.many} are waiting.`}
              </p>
            ) : null}
            <ol
              ref={focus}
              tabIndex={index > 0 ? -1 : undefined}
              className="queue"
              aria-label={index === 0 ? `${capitalised(noun.many)} waiting, oldest first` : `More ${noun.many} waiting, page ${index + 1}`}
              aria-busy={isFetching || undefined}
            >
              {items(data).map((item) => (
                <Fragment key={itemKey(item)}>{renderItem(item, data)}</Fragment>
              ))}
            </ol>
          </>
        )}
      />
    );
  };
}

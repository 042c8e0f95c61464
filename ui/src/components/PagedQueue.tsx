import { Fragment, type ReactNode } from 'react';
import { PagedChunks, type PageQuery } from './PagedChunks';
import { useTranslation } from '../i18n';
import { QueryState } from './QueryState';
import { KeyboardQueue } from './QueueShortcuts';

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

// The sentences about what waits, in the reader's language: each queue gives them as a hook
// (its namespace's t()), so each language words its own counts.
export interface QueueWords {
  total: (count: number) => string;
  loadingMore: string;
  moreFailed: string;
  empty: string;
  // The list's accessible name: the first page, and page `page` (2, 3, …) after it.
  list: (page: number) => string;
  // The heading of the error panel when the first page cannot be read.
  failed: string;
}

export interface PagedQueueConfig<P extends QueuePage, I> {
  useWords: () => QueueWords;
  usePage: QueuePageQuery<P>;
  items: (page: P) => I[];
  itemKey: (item: I) => string;
  // One item, a <li>; the page it came on gives, e.g., the server's clock (asOf).
  renderItem: (item: I, page: P) => ReactNode;
  // Prefix of the test ids: `${testId}-queue-total`.
  testId: string;
}

// A staff queue read a page at a time, oldest first: the total waiting, the first page, and
// "Load more" for each page after (PagedChunks). Every queue is shown this way, so the component
// is made once per queue, at module level, around that queue's query hook.
export function pagedQueue<P extends QueuePage, I>(config: PagedQueueConfig<P, I>) {
  const { usePage, items, itemKey, renderItem, testId, useWords } = config;
  return function PagedQueue() {
    const { t } = useTranslation('staff');
    const words = useWords();
    return (
      <KeyboardQueue>
        <PagedChunks
          usePage={usePage}
          limit={QUEUE_PAGE_SIZE}
          moreClassName="queue-more"
          words={{
            loadMore: t('queue.loadMore'),
            loadingMore: words.loadingMore,
            moreFailed: words.moreFailed,
            tryAgain: t('queue.tryAgain'),
          }}
          first={(query, content) => (
            <QueryState
              query={query}
              loading={t('queue.loading')}
              failed={words.failed}
              empty={{ when: (data) => items(data).length === 0, message: words.empty }}
            >
              {content}
            </QueryState>
          )}
          renderPage={({ data, index, focus, isFetching }) => (
            <>
              {index === 0 ? (
                <p className="muted" role="status" data-testid={`${testId}-queue-total`}>
                  {words.total(data.total)}
                </p>
              ) : null}
              <ol
                ref={focus}
                tabIndex={index > 0 ? -1 : undefined}
                className="queue"
                aria-label={words.list(index + 1)}
                aria-busy={isFetching || undefined}
              >
                {items(data).map((item) => (
                  <Fragment key={itemKey(item)}>{renderItem(item, data)}</Fragment>
                ))}
              </ol>
            </>
          )}
        />
      </KeyboardQueue>
    );
  };
}

// How long an item has waited, from the server's count of seconds, in the reader's language
// ("waiting 2 h 5 min"): every staff queue says it this way.
export function useWaitedFor() {
  const { t } = useTranslation('staff');
  return (seconds: number) => {
    const minutes = Math.max(0, Math.floor(seconds / 60));
    if (minutes < 1) return t('waited.lessThanMinute');
    const days = Math.floor(minutes / 1440);
    const hours = Math.floor((minutes % 1440) / 60);
    if (days > 0) return t('waited.days', { days, hours });
    if (hours > 0) return t('waited.hours', { hours, minutes: minutes % 60 });
    return t('waited.minutes', { minutes });
  };
}

// The money queues' words, from the same `queue.*` keys in each one's namespace.
type MoneyQueueNamespace = 'deposits' | 'invest' | 'withdrawals';
export function moneyQueueWords(namespace: MoneyQueueNamespace) {
  return function useMoneyQueueWords(): QueueWords {
    const { t } = useTranslation(namespace);
    return {
      total: (count: number) => t('queue.total', { count }),
      loadingMore: t('queue.loadingMore'),
      moreFailed: t('queue.moreFailed'),
      empty: t('queue.empty'),
      list: (page: number) => (page === 1 ? t('queue.list') : t('queue.listMore', { page })),
      failed: t('queue.failed'),
    };
  };
}

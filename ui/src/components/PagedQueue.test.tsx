import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/renderWithProviders';
import { pagedQueue, QUEUE_PAGE_SIZE, type QueuePage } from './PagedQueue';

interface Widget {
  id: string;
}
interface WidgetPage extends QueuePage {
  asOf: string;
  widgets: Widget[];
}

// What the queue's endpoint answers, by cursor ('' for the first page); nothing yet while absent.
let answers: Record<string, { data?: WidgetPage; error?: unknown; isFetching?: boolean }> = {};
const refetch = vi.fn();
const useWidgetPage = vi.fn((arg: { cursor?: string; limit: number }) => {
  const answer = answers[arg.cursor ?? ''] ?? {};
  return { data: answer.data, isError: answer.error !== undefined, error: answer.error, isFetching: answer.isFetching ?? false, refetch };
});

const WidgetQueue = pagedQueue<WidgetPage, Widget>({
  usePage: useWidgetPage,
  items: (page) => page.widgets,
  itemKey: (widget) => widget.id,
  renderItem: (widget, page) => (
    <li data-testid="widget">
      <a href={`/widget/${widget.id}`}>
        {widget.id} as of {page.asOf}
      </a>
    </li>
  ),
  // A queue's words come from its namespace; the test's own are plain strings.
  useWords: () => ({
    total: (count) => (count === 1 ? '1 widget is waiting.' : `${count} widgets are waiting.`),
    loadingMore: 'Loading more widgets…',
    moreFailed: 'More widgets could not be loaded',
    empty: 'No widgets are waiting.',
    list: (n) => (n === 1 ? 'Widgets waiting, oldest first' : `More widgets waiting, page ${n}`),
    failed: 'Failed to fetch pending widgets.',
  }),
  testId: 'widget',
});

const page = (ids: string[], total: number, nextCursor?: string): WidgetPage => ({
  asOf: '10:00',
  total,
  nextCursor,
  widgets: ids.map((id) => ({ id })),
});

beforeEach(() => {
  answers = {};
  refetch.mockClear();
  useWidgetPage.mockClear();
});

describe('pagedQueue', () => {
  it('shows the total and the first page, oldest first, without "Load more" on the last page', () => {
    answers = { '': { data: page(['w1'], 1) } };
    renderWithProviders(<WidgetQueue />);
    expect(screen.getByTestId('widget-queue-total').textContent).toBe('1 widget is waiting.');
    const list = screen.getByRole('list', { name: 'Widgets waiting, oldest first' });
    expect(within(list).getByRole('link', { name: 'w1 as of 10:00' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    expect(useWidgetPage).toHaveBeenCalledWith({ cursor: undefined, limit: QUEUE_PAGE_SIZE }, { refetchOnMountOrArgChange: true });
  });

  it('loads the next page from the keyboard and moves focus to it', async () => {
    answers = { '': { data: page(['w1', 'w2'], 3, 'p2') } };
    const u = userEvent.setup();
    const { rerender } = renderWithProviders(<WidgetQueue />);
    expect(screen.getByTestId('widget-queue-total').textContent).toBe('3 widgets are waiting.');

    // Tab past the keyboard shortcuts' help and the two items to the button, then Enter.
    await u.tab();
    await u.tab();
    await u.tab();
    await u.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Load more' }));
    await u.keyboard('{Enter}');
    expect(useWidgetPage).toHaveBeenLastCalledWith({ cursor: 'p2', limit: QUEUE_PAGE_SIZE }, { refetchOnMountOrArgChange: true });
    expect(screen.getByText('Loading more widgets…')).toBeTruthy();
    expect(screen.getAllByTestId('widget')).toHaveLength(2);

    answers.p2 = { data: page(['w3'], 3) };
    rerender(<WidgetQueue />);
    const second = screen.getByRole('list', { name: 'More widgets waiting, page 2' });
    expect(within(second).getAllByTestId('widget')).toHaveLength(1);
    expect(document.activeElement).toBe(second);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    // The keyboard carries on in the new page.
    await u.tab();
    expect(document.activeElement).toBe(within(second).getByRole('link', { name: 'w3 as of 10:00' }));
  });

  it('keeps focus where the user put it when a page arrives', async () => {
    answers = { '': { data: page(['w1'], 2, 'p2') } };
    const u = userEvent.setup();
    const { rerender } = renderWithProviders(<WidgetQueue />);
    await u.click(screen.getByRole('button', { name: 'Load more' }));
    const first = screen.getByRole('link', { name: 'w1 as of 10:00' });
    first.focus();
    answers.p2 = { data: page(['w2'], 2) };
    rerender(<WidgetQueue />);
    expect(screen.getAllByTestId('widget')).toHaveLength(2);
    expect(document.activeElement).toBe(first);
  });

  it('shows a spinner, then an empty queue in words', () => {
    const { rerender } = renderWithProviders(<WidgetQueue />);
    expect(screen.getByRole('status').textContent).toContain('Loading the queue…');
    answers = { '': { data: page([], 0) } };
    rerender(<WidgetQueue />);
    expect(screen.getByText('No widgets are waiting.')).toBeTruthy();
    expect(screen.queryByRole('list')).toBeNull();
  });

  it('shows the server’s message with a retry when the first page fails', async () => {
    answers = { '': { error: { status: 503, data: { message: 'Down for maintenance' } } } };
    const u = userEvent.setup();
    renderWithProviders(<WidgetQueue />);
    const alert = screen.getByRole('alert');
    expect(within(alert).getByRole('heading', { name: 'Failed to fetch pending widgets.' })).toBeTruthy();
    expect(alert.textContent).toContain('Down for maintenance');
    await u.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('says when a further page fails, keeps the pages before and retries', async () => {
    answers = {
      '': { data: page(['w1'], 2, 'p2') },
      p2: { error: { status: 400, data: { message: 'This page of the queue cannot be found. Please reload the queue from the start.' } } },
    };
    const u = userEvent.setup();
    renderWithProviders(<WidgetQueue />);
    await u.click(screen.getByRole('button', { name: 'Load more' }));
    const alert = screen.getByRole('alert');
    expect(within(alert).getByRole('heading', { name: 'More widgets could not be loaded' })).toBeTruthy();
    expect(alert.textContent).toContain('Please reload the queue from the start.');
    expect(screen.getAllByTestId('widget')).toHaveLength(1);
    await u.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('marks a list busy while it is read again', () => {
    answers = { '': { data: page(['w1'], 1), isFetching: true } };
    renderWithProviders(<WidgetQueue />);
    expect(screen.getByRole('list', { name: 'Widgets waiting, oldest first' }).getAttribute('aria-busy')).toBe('true');
  });
});

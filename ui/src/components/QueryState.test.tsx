import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test/renderWithProviders';
import { QueryState, type QueryResult } from './QueryState';

function show(query: QueryResult<string[]>) {
  return renderWithProviders(
    <QueryState
      query={query}
      loading="Loading the list…"
      failed="The list could not be loaded"
      empty={{ when: (items) => items.length === 0, message: 'Nothing here yet.' }}
      heading={<h1>List</h1>}
    >
      {(items) => <p>{items.join(', ')}</p>}
    </QueryState>,
  );
}

const idle = { isError: false, refetch: () => undefined };

describe('QueryState', () => {
  it('shows a spinner and the heading until the first answer', () => {
    show(idle);
    expect(screen.getByRole('status').textContent).toContain('Loading the list…');
    expect(screen.getByRole('heading', { level: 1, name: 'List' })).toBeTruthy();
  });

  it("shows the server's message with a retry when there is nothing to show", async () => {
    const refetch = vi.fn();
    show({ isError: true, error: { status: 503, data: { message: 'Down for maintenance' } }, refetch });
    const user = userEvent.setup();

    expect(screen.getByRole('heading', { name: 'The list could not be loaded' })).toBeTruthy();
    expect(screen.getByText('Down for maintenance')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('says so when the answer is empty, and shows the content otherwise', () => {
    const { unmount } = show({ ...idle, data: [] });
    expect(screen.getByText('Nothing here yet.')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'List' })).toBeNull();
    unmount();

    show({ ...idle, data: ['a', 'b'] });
    expect(screen.getByText('a, b')).toBeTruthy();
  });

  it('keeps data it already shows when a refresh fails', () => {
    show({ ...idle, data: ['kept'], isError: true, error: { status: 500, data: {} } });
    expect(screen.getByText('kept')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { KeyboardQueue } from './QueueShortcuts';
import { queueAction } from './useQueueKeyboard';
import { renderWithProviders } from '../test/renderWithProviders';

// A queue of three items, each with a link and the approve and reject buttons that open a
// confirm dialog, and a search field beside it.
function Queue({ onOpen }: { onOpen: (id: string) => void }) {
  const [confirming, setConfirming] = useState<string | null>(null);
  return (
    <>
      <label>
        Search
        <input />
      </label>
      <KeyboardQueue decides>
        <ol className="queue">
          {['one', 'two', 'three'].map((id) => (
            <li key={id} data-testid={`item-${id}`}>
              <a
                href={`#${id}`}
                onClick={(e) => {
                  e.preventDefault();
                  onOpen(id);
                }}
              >
                {id}
              </a>
              <button type="button" onClick={() => setConfirming(`approve ${id}`)} {...queueAction('approve')}>
                Approve
              </button>
              <button type="button" onClick={() => setConfirming(`reject ${id}`)} {...queueAction('reject')}>
                Reject
              </button>
            </li>
          ))}
        </ol>
      </KeyboardQueue>
      {confirming ? (
        <div role="dialog" aria-label="Confirm">
          {confirming}
          <button type="button" onClick={() => setConfirming(null)}>
            Cancel
          </button>
        </div>
      ) : null}
    </>
  );
}

describe('queue keyboard', () => {
  it('moves with j/k and the arrows, opens with Enter, and asks to confirm on a and r', async () => {
    const onOpen = vi.fn();
    const u = userEvent.setup();
    renderWithProviders(<Queue onOpen={onOpen} />);

    await u.keyboard('j');
    expect(document.activeElement).toBe(screen.getByTestId('item-one'));
    await u.keyboard('j');
    expect(document.activeElement).toBe(screen.getByTestId('item-two'));
    await u.keyboard('{ArrowDown}');
    expect(document.activeElement).toBe(screen.getByTestId('item-three'));
    await u.keyboard('j'); // stays on the last
    expect(document.activeElement).toBe(screen.getByTestId('item-three'));
    await u.keyboard('k');
    await u.keyboard('{ArrowUp}');
    expect(document.activeElement).toBe(screen.getByTestId('item-one'));

    await u.keyboard('{Enter}');
    expect(onOpen).toHaveBeenCalledWith('one');

    await u.keyboard('j');
    await u.keyboard('r');
    expect(screen.getByRole('dialog', { name: 'Confirm' }).textContent).toContain('reject two');
    // With the dialog open the queue's keys rest.
    await u.keyboard('a');
    expect(screen.getByRole('dialog', { name: 'Confirm' }).textContent).toContain('reject two');
    await u.click(screen.getByRole('button', { name: 'Cancel' }));

    screen.getByTestId('item-three').focus();
    await u.keyboard('a');
    expect(screen.getByRole('dialog', { name: 'Confirm' }).textContent).toContain('approve three');
  });

  it('never acts while typing in a field', async () => {
    const u = userEvent.setup();
    renderWithProviders(<Queue onOpen={vi.fn()} />);
    await u.click(screen.getByLabelText('Search'));
    await u.keyboard('jkar');
    expect((screen.getByLabelText('Search') as HTMLInputElement).value).toBe('jkar');
    expect(document.activeElement).toBe(screen.getByLabelText('Search'));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows its keyboard shortcuts', async () => {
    const u = userEvent.setup();
    render(<KeyboardQueueHelp />);
    await u.click(screen.getByText('Keyboard shortcuts'));
    const help = screen.getByTestId('queue-shortcuts');
    expect(help.textContent).toContain('Next item');
    expect(help.textContent).toContain('Approve (asks to confirm)');
  });
});

function KeyboardQueueHelp() {
  return (
    <KeyboardQueue decides>
      <ol className="queue" />
    </KeyboardQueue>
  );
}

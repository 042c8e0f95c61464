import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test/renderWithProviders';
import { Toaster } from './Toaster';
import { useToast } from './useToast';

function Trigger() {
  const toast = useToast();
  return (
    <>
      <button type="button" onClick={() => toast.success('Profile Updated')}>
        success
      </button>
      <button type="button" onClick={() => toast.info('Heads up')}>
        info
      </button>
    </>
  );
}

// The toast API as a component sees it: the names of what it offers.
function ToastApiNames() {
  return <p data-testid="toast-api">{Object.keys(useToast()).sort().join(' ')}</p>;
}

function setup() {
  return renderWithProviders(
    <>
      <Trigger />
      <Toaster />
    </>,
  );
}

describe('toasts', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('closes by itself after 5 seconds', () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'success' }));
    expect(screen.getByRole('status').textContent).toContain('Profile Updated');

    act(() => vi.advanceTimersByTime(4999));
    expect(screen.queryByText('Profile Updated')).not.toBeNull();

    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText('Profile Updated')).toBeNull();
  });

  it('announces info as status, and has no error toast at all', () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'info' }));
    expect(screen.getByRole('status').textContent).toContain('Heads up');
    expect(screen.queryByRole('alert')).toBeNull();
    // Errors belong on the field or in the form's FormError, never in a toast.
    renderWithProviders(<ToastApiNames />);
    expect(screen.getByTestId('toast-api').textContent).toBe('dismiss info success');
  });

  it('never stacks: a new toast replaces the one on screen', () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'success' }));
    fireEvent.click(screen.getByRole('button', { name: 'info' }));
    const region = screen.getByRole('region', { name: 'Notifications' });
    expect(region.children).toHaveLength(1);
    expect(region.textContent).toContain('Heads up');
    expect(region.textContent).not.toContain('Profile Updated');

    fireEvent.click(screen.getByRole('button', { name: 'Dismiss notification' }));
    expect(region.children).toHaveLength(0);
  });

  it('holds the timer while the toast has keyboard focus', () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'success' }));
    const close = screen.getByRole('button', { name: 'Dismiss notification' });

    act(() => close.focus());
    act(() => vi.advanceTimersByTime(10_000));
    expect(screen.queryByText('Profile Updated')).not.toBeNull();

    act(() => close.blur());
    act(() => vi.advanceTimersByTime(5000));
    expect(screen.queryByText('Profile Updated')).toBeNull();
  });
});

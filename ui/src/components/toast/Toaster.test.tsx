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
      <button type="button" onClick={() => toast.error('Failed to update fees')}>
        error
      </button>
      <button type="button" onClick={() => toast.info('Heads up')}>
        info
      </button>
    </>
  );
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

  it('announces errors as alerts and info as status', () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'error' }));
    fireEvent.click(screen.getByRole('button', { name: 'info' }));

    expect(screen.getByRole('alert').textContent).toContain('Failed to update fees');
    expect(screen.getByRole('status').textContent).toContain('Heads up');
  });

  it('stacks toasts and closes only the one whose button is pressed', () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'success' }));
    fireEvent.click(screen.getByRole('button', { name: 'error' }));
    const region = screen.getByRole('region', { name: 'Notifications' });
    expect(region.children).toHaveLength(2);

    const alert = screen.getByRole('alert');
    fireEvent.click(alert.querySelector('button')!);

    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByRole('status').textContent).toContain('Profile Updated');
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

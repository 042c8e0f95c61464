import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PAUSE_MS, TYPE_MS, TypingHeadline } from './TypingHeadline';

const props = { lead: 'Plans,', phrases: ['abc.', 'de.'], label: 'Plans, abc' };
const typed = () => screen.getByTestId('typed').textContent;
const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));
// Each character's timer is set once the previous one has rendered, so time moves on one
// character at a time.
const typeChars = (count: number) => {
  for (let i = 0; i < count; i++) advance(TYPE_MS);
};

function preferReducedMotion(reduce: boolean) {
  vi.stubGlobal(
    'matchMedia',
    vi.fn((query: string) => ({
      matches: reduce && query === '(prefers-reduced-motion: reduce)',
      media: query,
      addEventListener: () => {},
      removeEventListener: () => {},
    })),
  );
}

describe('TypingHeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('types one character every 100 ms, pauses 2 s on a finished phrase, then types the next', () => {
    preferReducedMotion(false);
    render(<TypingHeadline {...props} />);

    expect(typed()).toBe('');
    advance(TYPE_MS - 1);
    expect(typed()).toBe('');
    advance(1);
    expect(typed()).toBe('a');
    typeChars(3);
    expect(typed()).toBe('abc.');

    // The finished phrase stays for the whole pause.
    advance(PAUSE_MS - 1);
    expect(typed()).toBe('abc.');
    advance(1);
    expect(typed()).toBe('');
    typeChars(3);
    expect(typed()).toBe('de.');

    // After the last phrase it starts again from the first.
    advance(PAUSE_MS);
    typeChars(1);
    expect(typed()).toBe('a');
  });

  it('gives screen readers the full headline once, and hides the animation from them', () => {
    preferReducedMotion(false);
    render(<TypingHeadline {...props} />);
    typeChars(2);

    expect(screen.getByRole('heading', { level: 1 }).textContent).toContain('Plans, abc');
    expect(screen.getByRole('heading', { level: 1, name: 'Plans, abc' })).toBeTruthy();
    expect(screen.getByTestId('typing-visual').getAttribute('aria-hidden')).toBe('true');
  });

  it('shows the full text at once and never moves when the visitor prefers reduced motion', () => {
    preferReducedMotion(true);
    render(<TypingHeadline {...props} />);

    expect(typed()).toBe('abc.');
    advance(PAUSE_MS * 5);
    expect(typed()).toBe('abc.');
    expect(vi.getTimerCount()).toBe(0);
  });
});

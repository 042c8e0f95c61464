import { useEffect, useState } from 'react';
import { usePrefersReducedMotion } from '../../components/usePrefersReducedMotion';

// The home page's timings (the original product's): one character every 100 ms, and a finished
// phrase stays 2 s before the next one starts.
export const TYPE_MS = 100;
export const PAUSE_MS = 2000;

interface Props {
  // The part that stays put.
  lead: string;
  // The endings typed after it, one after another, forever.
  phrases: readonly string[];
  // The whole headline as screen readers read it (once, without the animation).
  label: string;
}

// A headline whose ending types itself out. Screen readers get `label` only: the animated text is
// hidden from them, so they never read it out letter by letter. With reduced motion the first
// phrase is shown whole and nothing moves.
export function TypingHeadline({ lead, phrases, label }: Props) {
  const reduced = usePrefersReducedMotion();
  const [at, setAt] = useState({ phrase: 0, typed: 0 });
  const phrase = phrases[at.phrase % phrases.length] ?? '';
  const done = at.typed >= phrase.length;

  useEffect(() => {
    if (reduced) return;
    const timer = setTimeout(
      () => setAt(({ phrase: p, typed }) => (done ? { phrase: (p + 1) % phrases.length, typed: 0 } : { phrase: p, typed: typed + 1 })),
      done ? PAUSE_MS : TYPE_MS,
    );
    return () => clearTimeout(timer);
  }, [at, done, reduced, phrases.length]);

  // The longest phrase, invisible, holds the headline's size so the page does not jump.
  const longest = phrases.reduce((a, b) => (b.length > a.length ? b : a), '');
  return (
    <h1 className="typing-headline" id="hero-title">
      <span className="visually-hidden">{label}</span>
      <span aria-hidden="true" data-testid="typing-visual">
        {lead}{' '}
        <span className="typing-headline__slot">
          <span className="typing-headline__ghost">{longest}</span>
          <span className="typing-headline__typed" data-testid="typed">
            {reduced ? phrases[0] : phrase.slice(0, at.typed)}
            {reduced ? null : <span className="typing-headline__caret" />}
          </span>
        </span>
      </span>
    </h1>
  );
}

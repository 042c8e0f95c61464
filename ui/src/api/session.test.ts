import { describe, expect, it } from 'vitest';
import { mayHaveSession } from './session';

describe('mayHaveSession', () => {
  it.each([
    ['', false],
    ['theme=dark', false],
    ['cv_signed_in=1', true],
    ['theme=dark; cv_signed_in=1', true],
    ['not_cv_signed_in=1', false],
  ])('reads %j as %s', (cookies, expected) => {
    expect(mayHaveSession(cookies)).toBe(expected);
  });
});

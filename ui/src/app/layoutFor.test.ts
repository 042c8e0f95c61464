import { describe, expect, it } from 'vitest';
import { layoutFor } from './layoutFor';
import { pages, type Access } from './routes';

const signedOut = { known: true, isLoggedIn: false };
const checking = { known: false, isLoggedIn: false };
const signedIn = { known: true, isLoggedIn: true };
const page = (path: string, access: Access) => ({ path, access });

describe('layoutFor', () => {
  it('frames every signed-in, staff and admin page in the app shell for a signed-in user', () => {
    for (const access of ['signedIn', 'staff', 'admin'] as const) {
      expect(layoutFor(page('/x', access), signedIn)).toBe('app');
    }
  });

  it('shows a signed-in page bare while the session is checked or the visitor is sent to sign in', () => {
    for (const access of ['signedIn', 'staff', 'admin'] as const) {
      expect(layoutFor(page('/x', access), checking)).toBe('bare');
      expect(layoutFor(page('/x', access), signedOut)).toBe('bare');
    }
  });

  it('keeps the marketing site for visitors, on sign-in pages and on the home page', () => {
    expect(layoutFor(page('/investment-plans', 'public'), signedOut)).toBe('site');
    expect(layoutFor(page('/investment-plans', 'public'), checking)).toBe('site');
    expect(layoutFor(page('/login', 'guest'), signedOut)).toBe('site');
    expect(layoutFor(page('/login', 'guest'), signedIn)).toBe('site');
    expect(layoutFor(page('/', 'public'), signedIn)).toBe('site');
    expect(layoutFor(undefined, signedOut)).toBe('site');
  });

  it('keeps a signed-in user in the app shell on the other public pages', () => {
    expect(layoutFor(page('/investment-plans', 'public'), signedIn)).toBe('app');
    expect(layoutFor(page('*', 'public'), signedIn)).toBe('app');
  });

  it('gives every page of the route table the frame its access rule asks for', () => {
    for (const p of pages) {
      const visitor = layoutFor(p, signedOut);
      const member = layoutFor(p, signedIn);
      if (p.access === 'public') expect(visitor, p.path).toBe('site');
      if (p.access === 'guest') expect([visitor, member], p.path).toEqual(['site', 'site']);
      if (['signedIn', 'staff', 'admin'].includes(p.access)) expect([visitor, member], p.path).toEqual(['bare', 'app']);
    }
  });
});

import { vi } from 'vitest';
import type { User } from '../api/enhanced';
import type { RootState } from '../app/store';

type Reply = Response | (() => Response | Promise<Response>) | ((request: Request) => Response | Promise<Response>);

export interface SentRequest {
  method: string;
  path: string;
  body: unknown;
}

// Stubs fetch with a tiny router: keys are "METHOD /api/path" (the query string is ignored).
// Unmatched requests answer 503, like the default stub, so a forgotten route fails loudly.
export function stubApi(routes: Record<string, Reply>) {
  const sent: SentRequest[] = [];
  const fetchMock = vi.fn(async (request: Request) => {
    const url = new URL(request.url);
    const key = `${request.method} ${url.pathname}`;
    const text = request.method === 'GET' ? '' : await request.clone().text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (e.g. multipart); keep the text
    }
    sent.push({ method: request.method, path: url.pathname + url.search, body });
    const reply = routes[key];
    if (!reply) return Response.json({ message: `No stub for ${key}` }, { status: 503 });
    return typeof reply === 'function' ? reply(request) : reply.clone();
  });
  vi.stubGlobal('fetch', fetchMock);
  return { fetchMock, sent, to: (key: string) => sent.filter((r) => `${r.method} ${r.path.split('?')[0]}` === key) };
}

export const json = (body: unknown, status = 200) => Response.json(body, { status });

export function makeUser(overrides: Partial<User> = {}): User {
  return {
    _id: 'user-1',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    phone: '+447700900123',
    country: 'GB',
    bio: '',
    photo: '',
    role: 'subscriber',
    status: 'active',
    isVerified: true,
    kycStatus: 'Not Submitted',
    balance: '0.00',
    investmentBalance: '0.00',
    totalMaturityAmount: '0.00',
    fees: '0.00',
    hasFees: false,
    referralCode: 'ADA7K2QX',
    isImpersonated: false,
    twoFactorEnabled: false,
    ...overrides,
  };
}

// Render options for a browser whose session the server has confirmed, with `user` signed in.
export function signedIn(user: User = makeUser()): { preloadedState: Partial<RootState>; user: User } {
  return {
    preloadedState: {
      auth: { known: true, checking: false, isLoggedIn: true, twoFactor: false, signedInVia: null, endedBy: null },
    },
    user,
  };
}

// Render options for a browser whose session the server has said is gone.
export function signedOut(endedBy: 'logout' | 'expired' | null = null): { preloadedState: Partial<RootState> } {
  return {
    preloadedState: {
      auth: { known: true, checking: false, isLoggedIn: false, twoFactor: false, signedInVia: null, endedBy },
    },
  };
}

export const countries = [
  { name: 'Germany', code: 'DE', dialCode: '+49' },
  { name: 'United Kingdom', code: 'GB', dialCode: '+44' },
];

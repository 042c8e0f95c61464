import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { communityApi, type ActivityItem, type Testimonial } from '../../api/community';
import { makeStore } from '../../app/store';
import { chooseLanguage } from '../../i18n';
import { renderApp, renderWithProviders } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';
import { ActivityTicker, FADE_MS, ROTATE_MS } from './ActivityTicker';
import { InvestorCounts } from './InvestorCounts';
import { relativeTime } from './relativeTime';
import { ShareExperienceCard } from './ShareExperienceCard';
import { TestimonialsSection } from './TestimonialsSection';

const NOW = new Date('2026-11-26T12:00:00Z');

function testimonials(n: number): Testimonial[] {
  return Array.from({ length: n }, (_, i) => ({
    _id: `t${i + 1}`,
    name: `Investor ${i + 1}.`,
    country: i % 2 ? 'Germany' : '',
    text: `Testimonial number ${i + 1}, written by a real investor.`,
    date: '2026-11-20T10:00:00Z',
  }));
}

const activities: ActivityItem[] = [
  { id: '3', kind: 'investment_started', message: 'An investor from Germany started a Standard plan', at: '2026-11-26T11:55:00Z' },
  { id: '2', kind: 'deposit_confirmed', message: 'An investor funded their wallet', at: '2026-11-26T09:00:00Z' },
  { id: '1', kind: 'investment_matured', message: 'An investor from Japan completed a Basic plan', at: '2026-11-20T09:00:00Z' },
];

// A store whose activity query already holds `list`, so the ticker renders at once and only the
// fake clock moves it.
function tickerWith(list: ActivityItem[]) {
  const store = makeStore();
  store.dispatch(communityApi.util.upsertQueryEntries([{ endpointName: 'getPublicActivity', arg: undefined, value: { activities: list } }]));
  return renderWithProviders(<ActivityTicker />, { store });
}

function reducedMotion(on: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: on && query.includes('reduce'), media: query, addEventListener() {}, removeEventListener() {} }));
}

const shown = () => screen.getByTestId('ticker-item');

afterEach(() => {
  vi.useRealTimers();
});

describe('relative time', () => {
  it('reads short and honest', () => {
    const now = NOW.getTime();
    expect(relativeTime('2026-11-26T11:59:40Z', now)).toBe('just now');
    expect(relativeTime('2026-11-26T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-11-26T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-11-25T11:00:00Z', now)).toBe('1 day ago');
    expect(relativeTime('2026-11-20T09:00:00Z', now)).toBe('6 days ago');
    expect(relativeTime('2026-10-01T09:00:00Z', now)).toBe('Oct 1, 2026');
  });
});

describe('activity ticker', () => {
  it('rotates every 4 seconds with a half-second fade, and wraps around', () => {
    vi.useFakeTimers({ now: NOW });
    reducedMotion(false);
    tickerWith(activities);
    expect(shown().textContent).toBe('An investor from Germany started a Standard plan 5 min ago');
    act(() => vi.advanceTimersByTime(ROTATE_MS - 1));
    expect(shown().className).not.toContain('ticker__item--out');
    act(() => vi.advanceTimersByTime(1));
    expect(shown().className).toContain('ticker__item--out');
    expect(shown().textContent).toContain('started a Standard plan');
    act(() => vi.advanceTimersByTime(FADE_MS));
    expect(shown().className).not.toContain('ticker__item--out');
    expect(shown().textContent).toBe('An investor funded their wallet 3 h ago');
    act(() => vi.advanceTimersByTime(ROTATE_MS + FADE_MS));
    expect(shown().textContent).toContain('completed a Basic plan');
    act(() => vi.advanceTimersByTime(ROTATE_MS + FADE_MS));
    expect(shown().textContent).toContain('started a Standard plan');
  });

  it('pauses on hover, on focus and with its button', async () => {
    vi.useFakeTimers({ now: NOW });
    reducedMotion(false);
    tickerWith(activities);
    const ticker = screen.getByRole('region', { name: 'Recent investor activity' });
    fireEvent.mouseEnter(ticker);
    act(() => vi.advanceTimersByTime(3 * ROTATE_MS));
    expect(shown().textContent).toContain('started a Standard plan');
    fireEvent.mouseLeave(ticker);
    act(() => vi.advanceTimersByTime(ROTATE_MS + FADE_MS));
    expect(shown().textContent).toContain('funded their wallet');

    const pause = within(ticker).getByRole('button', { name: 'Pause activity updates' });
    act(() => pause.focus());
    act(() => vi.advanceTimersByTime(3 * ROTATE_MS));
    expect(shown().textContent).toContain('funded their wallet');
    fireEvent.click(pause);
    expect(pause.textContent).toBe('Resume');
    act(() => pause.blur());
    act(() => vi.advanceTimersByTime(3 * ROTATE_MS));
    expect(shown().textContent).toContain('funded their wallet');
    fireEvent.click(within(ticker).getByRole('button', { name: 'Resume activity updates' }));
    act(() => vi.advanceTimersByTime(ROTATE_MS + FADE_MS));
    expect(shown().textContent).toContain('completed a Basic plan');
  });

  it('changes without a fade when the visitor prefers reduced motion', () => {
    vi.useFakeTimers({ now: NOW });
    reducedMotion(true);
    tickerWith(activities);
    act(() => vi.advanceTimersByTime(ROTATE_MS));
    expect(shown().className).not.toContain('ticker__item--out');
    expect(shown().textContent).toContain('funded their wallet');
  });

  it('does not announce each rotation: the rotating line is not live', () => {
    vi.useFakeTimers({ now: NOW });
    reducedMotion(false);
    tickerWith(activities);
    expect(shown().getAttribute('aria-live')).toBe('off');
    expect(screen.getByRole('status').textContent).toBe('');
    act(() => vi.advanceTimersByTime(ROTATE_MS + FADE_MS));
    expect(screen.getByRole('status').textContent).toBe('');
  });

  it('renders nothing when there is no activity', () => {
    tickerWith([]);
    expect(screen.queryByTestId('activity-ticker')).toBeNull();
  });

  it('shows a single activity without rotating or a pause button', () => {
    vi.useFakeTimers({ now: NOW });
    tickerWith(activities.slice(0, 1));
    act(() => vi.advanceTimersByTime(3 * ROTATE_MS));
    expect(shown().textContent).toContain('started a Standard plan');
    expect(screen.queryByRole('button')).toBeNull();
  });
});

describe('testimonials section', () => {
  it('shows four, then all with Show More, then four again with Show Less', async () => {
    stubApi({ 'GET /api/testimonials': json({ testimonials: testimonials(6) }) });
    renderWithProviders(<TestimonialsSection />);
    const section = await screen.findByRole('region', { name: 'What our investors say' });
    expect(within(section).getAllByTestId('testimonial')).toHaveLength(4);
    expect(within(section).getAllByTestId('testimonial')[1]?.textContent).toContain('Investor 2. · Germany');
    const more = within(section).getByRole('button', { name: 'Show More' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    await userEvent.click(more);
    expect(within(section).getAllByTestId('testimonial')).toHaveLength(6);
    const less = within(section).getByRole('button', { name: 'Show Less' });
    expect(less.getAttribute('aria-expanded')).toBe('true');
    await userEvent.click(less);
    expect(within(section).getAllByTestId('testimonial')).toHaveLength(4);
  });

  it('needs no button for four or fewer', async () => {
    stubApi({ 'GET /api/testimonials': json({ testimonials: testimonials(4) }) });
    renderWithProviders(<TestimonialsSection />);
    expect(await screen.findAllByTestId('testimonial')).toHaveLength(4);
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('is hidden with none, or says so when asked to', async () => {
    const { fetchMock } = stubApi({ 'GET /api/testimonials': json({ testimonials: [] }) });
    const { unmount } = renderWithProviders(<TestimonialsSection />);
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await act(async () => {});
    expect(screen.queryByTestId('testimonials-section')).toBeNull();
    unmount();
    renderWithProviders(<TestimonialsSection showEmpty />);
    expect(await screen.findByText('No testimonials yet')).toBeTruthy();
  });
});

describe('investor counts', () => {
  it('shows the rounded counts with a plus, and only those the server shows', async () => {
    stubApi({ 'GET /api/public/stats': json({ investors: 5000, countries: null }) });
    renderWithProviders(<InvestorCounts />);
    expect((await screen.findByTestId('count-investors')).textContent).toBe('5,000+');
    expect(screen.queryByTestId('count-countries')).toBeNull();
  });

  it('shows both', async () => {
    stubApi({ 'GET /api/public/stats': json({ investors: 1200, countries: 30 }) });
    renderWithProviders(<InvestorCounts />);
    expect((await screen.findByTestId('count-countries')).textContent).toBe('30+');
    expect(screen.getByTestId('count-investors').textContent).toBe('1,200+');
  });

  it('renders nothing when both are hidden or the server cannot be reached', async () => {
    const { fetchMock } = stubApi({ 'GET /api/public/stats': json({ investors: null, countries: null }) });
    renderWithProviders(<InvestorCounts />);
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await act(async () => {});
    expect(screen.queryByTestId('investor-counts')).toBeNull();
  });
});

describe('share your experience', () => {
  it('lets a verified investor write one, checking the length first', async () => {
    const api = stubApi({
      'GET /api/testimonials/mine': json({ eligible: true }),
      'POST /api/testimonials': json({ _id: 't1', status: 'Pending', message: 'Thank you!' }, 201),
    });
    renderWithProviders(<ShareExperienceCard />);
    const field = await screen.findByLabelText('Your experience with Clearvest');
    await userEvent.type(field, 'Too short');
    await userEvent.click(screen.getByRole('button', { name: 'Share my experience' }));
    expect(screen.getByText('Your testimonial must be 20 to 600 characters.')).toBeTruthy();
    expect(api.to('POST /api/testimonials')).toHaveLength(0);
    await userEvent.type(field, ', but now long enough to say something.');
    await userEvent.click(screen.getByRole('button', { name: 'Share my experience' }));
    await vi.waitFor(() => expect(api.to('POST /api/testimonials')).toHaveLength(1));
    expect(api.to('POST /api/testimonials')[0]?.body).toEqual({ text: 'Too short, but now long enough to say something.' });
  });

  it('tells others what makes them eligible', async () => {
    stubApi({ 'GET /api/testimonials/mine': json({ eligible: false }) });
    renderWithProviders(<ShareExperienceCard />);
    expect((await screen.findByTestId('testimonial-not-eligible')).textContent).toContain('first deposit is confirmed');
    expect(screen.queryByRole('textbox')).toBeNull();
  });

  it('shows a pending one, and a rejection with its reason and a new form', async () => {
    stubApi({
      'GET /api/testimonials/mine': json({
        eligible: true,
        testimonial: { _id: 't1', text: 'x', status: 'Rejected', reason: 'Please leave out names.', submittedAt: '2026-11-20T10:00:00Z' },
      }),
    });
    renderWithProviders(<ShareExperienceCard />);
    expect((await screen.findByTestId('testimonial-status')).textContent).toContain('Reason: Please leave out names.');
    expect(screen.getByLabelText('Write a new testimonial')).toBeTruthy();
  });
});

describe('share your experience in German', () => {
  it('checks the length and shows a rejection in German', async () => {
    stubApi({
      'GET /api/testimonials/mine': json({
        eligible: true,
        testimonial: { _id: 't1', text: 'x', status: 'Rejected', reason: 'Please leave out names.', submittedAt: '2026-11-20T10:00:00Z' },
      }),
    });
    await chooseLanguage('de');
    try {
      renderWithProviders(<ShareExperienceCard />);
      expect(await screen.findByRole('heading', { name: 'Erfahrungen teilen' })).toBeTruthy();
      expect((await screen.findByTestId('testimonial-status')).textContent).toContain('Ihr Erfahrungsbericht wurde nicht veröffentlicht. Grund: Please leave out names.');
      await userEvent.type(screen.getByLabelText('Neuen Erfahrungsbericht schreiben'), 'Zu kurz');
      await userEvent.click(screen.getByRole('button', { name: 'Erfahrung teilen' }));
      expect(screen.getByText('Ihr Erfahrungsbericht muss 20 bis 600 Zeichen lang sein.')).toBeTruthy();
    } finally {
      await chooseLanguage('en');
    }
  });
});

describe('member levels page', () => {
  const levels = {
    levels: [
      { name: 'member', minInvested: '0.00', minReferrals: 0 },
      { name: 'leader', minInvested: '1000.00', minReferrals: 1 },
      { name: 'expert', minInvested: '5000.00', minReferrals: 3 },
      { name: 'master', minInvested: '20000.00', minReferrals: 10 },
    ],
  };

  it('shows the levels with their criteria to a visitor', async () => {
    stubApi({ 'GET /api/badges': json(levels), 'GET /api/public/stats': json({ investors: null, countries: null }), 'GET /api/public/activity': json({ activities: [] }) });
    renderApp({ route: '/Hierarchy' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Member Levels' })).toBeTruthy();
    const cards = await screen.findAllByTestId('badge-level');
    expect(cards.map((c) => c.querySelector('h3')?.textContent)).toEqual(['Member', 'Leader', 'Expert', 'Master']);
    expect(cards[1]?.textContent).toContain('$1,000 invested in total');
    expect(cards[1]?.textContent).toContain('1 qualified referral');
    expect(screen.queryByTestId('my-badge')).toBeNull();
  });

  // A signed-in investor a quarter of the way from member to leader.
  function stubMemberOnTheWay(user: ReturnType<typeof makeUser>) {
    stubApi({
      'GET /api/users/getUser': json(user),
      'GET /api/badges': json(levels),
      'GET /api/users/badge': json({ current: 'member', next: levels.levels[1], invested: '500.00', referrals: 0, percent: 25 }),
      'GET /api/public/stats': json({ investors: null, countries: null }),
      'GET /api/public/activity': json({ activities: [] }),
    });
  }

  it('shows a signed-in investor their level and progress', async () => {
    const user = makeUser();
    stubMemberOnTheWay(user);
    renderApp({ route: '/Hierarchy', ...signedIn(user) });
    const mine = await screen.findByTestId('my-badge');
    expect(within(mine).getByRole('heading', { name: 'Your level: Member' })).toBeTruthy();
    const bar = within(mine).getByRole('progressbar', { name: /25% of the way to Leader/ });
    expect(bar.getAttribute('value')).toBe('25');
    await vi.waitFor(() => expect(screen.getAllByTestId('badge-level')[0]?.getAttribute('aria-current')).toBe('true'));
  });
  it('is shown in German, with German amounts, once the reader chooses German', async () => {
    const user = makeUser();
    stubMemberOnTheWay(user);
    await chooseLanguage('de');
    renderApp({ route: '/Hierarchy', ...signedIn(user) });
    expect(await screen.findByRole('heading', { level: 1, name: 'Mitgliedsstufen' })).toBeTruthy();
    const cards = await screen.findAllByTestId('badge-level');
    expect(cards.map((c) => c.querySelector('h3')?.textContent?.replace(' (Ihre Stufe)', ''))).toEqual(['Mitglied', 'Vorreiter', 'Experte', 'Meister']);
    expect(cards[0]?.textContent).toContain('Jedes Clearvest-Konto');
    expect(cards[1]?.textContent).toContain('1.000\u00a0$ insgesamt angelegt');
    expect(cards[1]?.textContent).toContain('1 gültige Empfehlung');
    expect(cards[2]?.textContent).toContain('3 gültige Empfehlungen');
    const mine = await screen.findByTestId('my-badge');
    expect(within(mine).getByRole('heading', { name: 'Ihre Stufe: Mitglied' })).toBeTruthy();
    expect(mine.textContent).toContain('Sie haben insgesamt 500\u00a0$ angelegt und haben 0 gültige Empfehlungen.');
    expect(within(mine).getByRole('progressbar', { name: /^25\u00a0% des Wegs zur Stufe Vorreiter/ })).toBeTruthy();
    expect(within(mine).getByRole('link', { name: 'Neue Anlage' })).toBeTruthy();
  });
});

describe('testimonial review queue', () => {
  const staff = makeUser({ _id: 's1', name: 'Sam Staff', role: 'author' });
  const item = {
    _id: 't1',
    userId: 'u1',
    name: 'Grace Hopper',
    email: 'grace@example.com',
    country: 'Germany',
    text: 'Clear terms, and my first plan paid out on the day it said.',
    submittedAt: '2026-11-20T10:00:00Z',
  };

  it('lets staff publish, and keeps another reviewer’s earlier decision on the item', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/testimonials/pending': json({ testimonials: [item] }),
      'PUT /api/testimonials/t1/approve': json({ message: 'This testimonial was already decided.' }, 409),
    });
    renderApp({ route: '/pending-testimonials', ...signedIn(staff) });
    const entry = await screen.findByTestId('testimonial-queue-item');
    expect(entry.textContent).toContain('grace@example.com · Germany');
    expect(entry.textContent).toContain(item.text);
    await userEvent.click(within(entry).getByRole('button', { name: 'Publish' }));
    // The message stays on the item (the toast that also says it goes away on its own).
    expect((await within(entry).findByRole('alert')).textContent).toContain('This testimonial was already decided.');
    expect(api.to('PUT /api/testimonials/t1/approve')).toHaveLength(1);
  });

  it('asks for a reason before rejecting', async () => {
    const api = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/testimonials/pending': json({ testimonials: [item] }),
      'PUT /api/testimonials/t1/reject': json({ message: 'Testimonial rejected' }),
    });
    renderApp({ route: '/pending-testimonials', ...signedIn(staff) });
    const entry = await screen.findByTestId('testimonial-queue-item');
    await userEvent.click(within(entry).getByRole('button', { name: 'Reject…' }));
    await userEvent.click(within(entry).getByRole('button', { name: 'Reject testimonial' }));
    expect(within(entry).getByText('A reason of 1 to 500 characters is required.')).toBeTruthy();
    await userEvent.type(within(entry).getByLabelText('Reason (shown to the author)'), 'Please leave out names.');
    await userEvent.click(within(entry).getByRole('button', { name: 'Reject testimonial' }));
    await vi.waitFor(() => expect(api.to('PUT /api/testimonials/t1/reject')).toHaveLength(1));
    expect(api.to('PUT /api/testimonials/t1/reject')[0]?.body).toEqual({ reason: 'Please leave out names.' });
  });

  it('reads in German, down to the rejection form', async () => {
    stubApi({ 'GET /api/users/getUser': json(staff), 'GET /api/testimonials/pending': json({ testimonials: [item] }) });
    await chooseLanguage('de');
    try {
      renderApp({ route: '/pending-testimonials', ...signedIn(staff) });
      const entry = await screen.findByTestId('testimonial-queue-item');
      expect(screen.getByRole('heading', { level: 1, name: 'Erfahrungsberichte prüfen' })).toBeTruthy();
      expect(entry.textContent).toContain('Geschrieben');
      await userEvent.click(within(entry).getByRole('button', { name: 'Ablehnen …' }));
      await userEvent.click(within(entry).getByRole('button', { name: 'Erfahrungsbericht ablehnen' }));
      expect(within(entry).getByText('Eine Begründung mit 1 bis 500 Zeichen ist nötig.')).toBeTruthy();
      expect(within(entry).getByLabelText('Begründung (für die Person sichtbar)')).toBeTruthy();
    } finally {
      await chooseLanguage('en');
    }
  });

  it('says when nothing is waiting', async () => {
    stubApi({ 'GET /api/users/getUser': json(staff), 'GET /api/testimonials/pending': json({ testimonials: [] }) });
    renderApp({ route: '/pending-testimonials', ...signedIn(staff) });
    expect(await screen.findByText('No testimonials are waiting.')).toBeTruthy();
  });
});

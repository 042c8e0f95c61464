import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Referrals } from '../../api/enhanced';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';
import { bonusWords } from './ReferralsPage';

const investor = makeUser({ _id: 'u1', name: 'Rita Referrer' });

const empty: Referrals = {
  referralCode: 'RITA42',
  referralLink: 'https://clearvest.example.com/register?ref=RITA42',
  bonus: '5.00',
  totalEarned: '0.00',
  referrals: [],
  message: 'No referrals',
};

const some: Referrals = {
  ...empty,
  totalEarned: '5.00',
  message: undefined,
  referrals: [
    { _id: 'u3', name: 'Cal Newcomer', photo: '', joinedAt: '2026-11-20T10:00:00Z', qualified: false, closed: false },
    { _id: 'u2', name: 'Bea Friend', photo: '/api/users/photo/u2', joinedAt: '2026-11-02T10:00:00Z', qualified: true, closed: false, bonus: '5.00' },
    { _id: 'u4', name: '', photo: '', joinedAt: '2026-10-01T10:00:00Z', qualified: true, closed: true, bonus: '5.00' },
  ],
};

function stubClipboard(writeText: (text: string) => Promise<void>) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText: vi.fn(writeText) }, configurable: true });
  return navigator.clipboard.writeText as ReturnType<typeof vi.fn>;
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'clipboard');
});

describe('bonus words', () => {
  it('reads whole dollars without cents', () => {
    expect(bonusWords('5.00')).toBe('$5');
    expect(bonusWords('2.50')).toBe('$2.50');
    expect(bonusWords('1000.00')).toBe('$1,000');
  });
});

describe('referrals page', () => {
  it('shows the code, the link, the prompt with the server’s bonus, how it works and the empty list', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/users/referrals': json({ ...empty, bonus: '10.00' }) });
    renderApp({ route: '/referrals', ...signedIn(investor) });
    expect(await screen.findByRole('heading', { level: 2, name: 'Refer a friend and earn up to $10' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Referrals' })).toBeTruthy();
    expect(screen.getByTestId('referral-code').textContent).toBe('RITA42');
    expect(screen.getByTestId('referral-link').textContent).toBe('https://clearvest.example.com/register?ref=RITA42');
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toContain('When their first deposit is confirmed, $10.00 is added to your wallet.');
    expect(screen.getByTestId('referral-total').textContent).toBe('$0.00');
    expect(screen.getByText(/^No referrals yet\./)).toBeTruthy();
    expect(screen.queryAllByTestId('referral-item')).toHaveLength(0);
  });

  it('lists referred users with their joined date, a qualified badge and the bonus; a closed account has no name', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/users/referrals': json(some) });
    renderApp({ route: '/referrals', ...signedIn(investor) });
    const items = await screen.findAllByTestId('referral-item');
    expect(items).toHaveLength(3);
    expect(within(items[0]!).getByRole('heading', { name: 'Cal Newcomer' })).toBeTruthy();
    expect(within(items[0]!).getByText('Not qualified yet')).toBeTruthy();
    expect(items[0]!.textContent).not.toContain('earned');
    expect(within(items[1]!).getByText('Qualified')).toBeTruthy();
    expect(items[1]!.textContent).toContain('+$5.00 earned');
    expect(items[1]!.querySelector('img')?.getAttribute('src')).toBe('/api/users/photo/u2');
    expect(within(items[1]!).getByText(/Nov \d+, 2026|\d+ Nov 2026/)).toBeTruthy();
    expect(within(items[2]!).getByRole('heading', { name: 'Closed account' })).toBeTruthy();
    expect(screen.getByTestId('referral-total').textContent).toBe('$5.00');
    expect(screen.queryByText(/No referrals/)).toBeNull();
  });

  it('copies the code and the link, and says so when copying fails', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/users/referrals': json(empty) });
    const u = userEvent.setup();
    renderApp({ route: '/referrals', ...signedIn(investor) });
    await screen.findByTestId('referral-code');
    const writeText = stubClipboard(async () => {});
    await u.click(screen.getByRole('button', { name: 'Copy referral code' }));
    expect(await screen.findByText('Referral code copied to clipboard!')).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith('RITA42');
    await u.click(screen.getByRole('button', { name: 'Copy referral link' }));
    expect(await screen.findByText('Referral link copied to clipboard!')).toBeTruthy();
    expect(writeText).toHaveBeenLastCalledWith('https://clearvest.example.com/register?ref=RITA42');

    stubClipboard(async () => {
      throw new Error('denied');
    });
    await u.click(screen.getByRole('button', { name: 'Copy referral code' }));
    expect(await screen.findByText('Failed to copy referral code.')).toBeTruthy();
  });

  it('says so when the referrals cannot be fetched, with the server’s message', async () => {
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/users/referrals': json({ message: 'Referrals are not available yet.' }, 422) });
    renderApp({ route: '/referrals', ...signedIn(investor) });
    expect(await screen.findByText('Failed to fetch referrals.')).toBeTruthy();
    expect(screen.getByText('Referrals are not available yet.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

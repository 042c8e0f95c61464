import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test/renderWithProviders';
import { signedIn } from '../../test/stubApi';
import { HomePage } from './HomePage';

const referral = () => screen.getByRole('region', { name: 'Refer a friend and earn up to $5' });

describe('HomePage', () => {
  it('has the sections in order, ending with the risk notice', () => {
    renderWithProviders(<HomePage />);

    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual([
      'Savings plans without the small print',
      'How it works in three steps',
      'Why you can trust the numbers',
      'Why choose us',
      'Meet Our Expert Team',
      'Refer a friend and earn up to $5',
      'Frequently Asked Questions',
      'Know the risks',
    ]);
  });

  it('invites a visitor to register for the referral programme', () => {
    renderWithProviders(<HomePage />);

    expect(within(referral()).getByRole('link').getAttribute('href')).toBe('/register');
  });

  it('sends a signed-in user to their referral link', () => {
    renderWithProviders(<HomePage />, signedIn());

    expect(within(referral()).getByRole('link').getAttribute('href')).toBe('/referrals');
  });
});

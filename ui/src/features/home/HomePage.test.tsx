import { screen, within } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { chooseLanguage } from '../../i18n';
import { renderApp, renderWithProviders } from '../../test/renderWithProviders';
import { json, signedIn, signedOut, stubApi } from '../../test/stubApi';
import { HomePage } from './HomePage';

const referral = (name = 'Refer a friend and earn up to $5') => screen.getByRole('region', { name });

describe('HomePage', () => {
  // The team section comes once there is a team to show (content.test.tsx), so not on first render.
  it('has the sections in order, ending with the risk notice', () => {
    renderWithProviders(<HomePage />);

    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual([
      'Savings plans without the small print',
      'How it works in three steps',
      'Why you can trust the numbers',
      'Why choose us',
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

describe('HomePage in German', () => {
  it('shows its own texts, the testimonials, the counts and the ticker’s controls in German', async () => {
    stubApi({
      'GET /api/testimonials': json({
        testimonials: Array.from({ length: 5 }, (_, i) => ({
          _id: `t${i}`,
          name: `Investor ${i}.`,
          country: 'Germany',
          text: 'Clear terms, and my plan paid out on the day it said.',
          date: '2026-11-20T10:00:00Z',
        })),
      }),
      'GET /api/public/stats': json({ investors: 5000, countries: 30 }),
      'GET /api/public/activity': json({
        activities: [
          { id: '2', kind: 'deposit_confirmed', message: 'An investor funded their wallet', at: '2026-11-26T09:00:00Z' },
          { id: '1', kind: 'investment_matured', message: 'An investor from Japan completed a Basic plan', at: '2026-11-20T09:00:00Z' },
        ],
      }),
    });
    await chooseLanguage('de');
    renderApp({ route: '/', ...signedOut() });

    expect(await screen.findByRole('heading', { level: 1, name: 'Krypto-Sparpläne mit fester Laufzeit, verständlich erklärt' })).toBeTruthy();
    expect(within(screen.getByRole('main')).getByRole('link', { name: 'Zu den Plänen' }).getAttribute('href')).toBe('/investment-plans');
    expect(within(referral('Freunde empfehlen und bis zu 5 $ erhalten')).getByRole('link', { name: 'Konto eröffnen' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 2, name: 'Sparpläne ohne Kleingedrucktes' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 2, name: 'Kennen Sie die Risiken' })).toBeTruthy();

    const testimonials = await screen.findByRole('region', { name: 'Das sagen unsere Anleger' });
    expect(within(testimonials).getByRole('button', { name: 'Mehr anzeigen' })).toBeTruthy();
    expect(testimonials.textContent).toContain('20.11.2026');
    expect((await screen.findByTestId('count-investors')).textContent).toBe('5.000+');
    expect(screen.getByText('Anleger')).toBeTruthy();
    const ticker = await screen.findByRole('region', { name: 'Neueste Aktivitäten von Anlegern' });
    expect(within(ticker).getByRole('button', { name: 'Aktivitäten anhalten' }).textContent).toBe('Anhalten');
    // The server's sentence stays English and is marked as such.
    expect(within(ticker).getByTestId('ticker-item').getAttribute('lang')).toBe('en');

    // A translated accessible name must still contain the visible text, for speech input.
    const results = await axe.run(document.body, {
      rules: { 'color-contrast': { enabled: false }, 'label-content-name-mismatch': { enabled: true } },
    });
    expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  });
});

import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { basicPlan as basic, elitePlan as elite } from '../../test/fixtures';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, signedOut, stubApi } from '../../test/stubApi';
import { aprPercent, termRatePercent } from '../../components/planWords';
import { chooseLanguage } from '../../i18n';

const plansRoute = 'GET /api/invest/plans';

function visitor() {
  return { route: '/investment-plans', ...signedOut() };
}

describe('rates as words', () => {
  it('moves the point of a term rate without floating point', () => {
    expect(termRatePercent('0.0040')).toBe('0.40%');
    expect(termRatePercent('0.004')).toBe('0.40%');
    expect(termRatePercent('0.00125')).toBe('0.125%');
    expect(termRatePercent('0.0390')).toBe('3.90%');
    expect(termRatePercent('0.5')).toBe('50.00%');
    expect(termRatePercent('0.99999999')).toBe('99.999999%');
    expect(termRatePercent('0.1')).toBe('10.00%');
    expect(termRatePercent('0.00000001')).toBe('0.000001%');
  });

  it('writes rates the way the reader’s language does, keeping every digit', () => {
    expect(termRatePercent('0.0040', 'de')).toBe('0,40\u00a0%');
    expect(termRatePercent('0.00125', 'de')).toBe('0,125\u00a0%');
    expect(aprPercent('4.87', 'de')).toBe('4,87\u00a0%');
    expect(aprPercent('12', 'de')).toBe('12\u00a0%');
    expect(aprPercent('5.0')).toBe('5.0%');
    expect(termRatePercent('x', 'de')).toBe('—');
  });

  it('shows a dash for what it cannot read', () => {
    for (const bad of ['', '4e-3', '-0.1', '.5', 'abc', null, undefined]) expect(termRatePercent(bad)).toBe('—');
    expect(aprPercent('4.87')).toBe('4.87%');
    expect(aprPercent('NaN')).toBe('—');
  });
});

describe('plans page', () => {
  it('shows each plan’s range, term, rate for the term, annual rate and worked example to a visitor', async () => {
    stubApi({ [plansRoute]: json({ plans: [basic, elite] }) });
    renderApp(visitor());
    expect(await screen.findByRole('heading', { level: 1, name: 'Portfolio Plans' })).toBeTruthy();
    const cards = await screen.findAllByTestId('plan-card');
    expect(cards).toHaveLength(2);

    const first = within(cards[0]!);
    expect(first.getByRole('heading', { level: 2, name: 'Basic' })).toBeTruthy();
    expect(cards[0]!.textContent).toContain('$100.00 to $250.00');
    expect(cards[0]!.textContent).toContain('30 days');
    expect(first.getByTestId('plan-term-rate').textContent).toBe('0.40%');
    expect(first.getByTestId('plan-apr').textContent).toBe('4.87% a year');
    expect(first.getByTestId('plan-example').textContent).toBe('Invest $100.00 for 30 days → and receive $100.40 ($0.40 return)');
    const cta = first.getByRole('link', { name: 'Start investing in Basic' });
    expect(cta.getAttribute('href')).toBe(`/start-invest?plan=${basic._id}`);

    const second = within(cards[1]!);
    expect(cards[1]!.textContent).toContain('$1,500.00 to $5,000.00');
    expect(second.getByTestId('plan-term-rate').textContent).toBe('3.90%');
    expect(second.getByTestId('plan-apr').textContent).toBe('7.91% a year');
    expect(second.getByTestId('plan-example').textContent).toContain('receive $1,558.50');
  });

  it('is shown in German, with German numbers, once the reader chooses German', async () => {
    stubApi({ [plansRoute]: json({ plans: [basic, elite] }) });
    await chooseLanguage('de');
    renderApp(visitor());
    expect(await screen.findByRole('heading', { level: 1, name: 'Anlagepläne' })).toBeTruthy();
    const cards = await screen.findAllByTestId('plan-card');
    const first = within(cards[0]!);
    const nbsp = '\u00a0';
    expect(first.getByText('Betrag')).toBeTruthy();
    expect(cards[0]!.textContent).toContain(`100,00${nbsp}$ bis 250,00${nbsp}$`);
    expect(cards[0]!.textContent).toContain('30 Tage');
    expect(first.getByTestId('plan-term-rate').textContent).toBe(`0,40${nbsp}%`);
    expect(first.getByTestId('plan-apr').textContent).toBe(`4,87${nbsp}% pro Jahr`);
    expect(first.getByTestId('plan-example').textContent).toBe(
      `100,00${nbsp}$ für 30 Tage anlegen → und 100,40${nbsp}$ erhalten (0,40${nbsp}$ Ertrag)`,
    );
    expect(first.getByRole('link', { name: 'Basic – jetzt anlegen' }).textContent).toBe('Jetzt anlegen');
    expect(cards[1]!.textContent).toContain(`1.500,00${nbsp}$ bis 5.000,00${nbsp}$`);
    expect(screen.getByRole('heading', { level: 2, name: 'Kennen Sie die Risiken, bevor Sie anlegen' })).toBeTruthy();
    expect(screen.getByText('Legen Sie nur Geld an, dessen Verlust Sie verkraften können.')).toBeTruthy();
    // A translated accessible name must still contain the visible text, for speech input.
    const results = await axe.run(document.body, {
      rules: { 'color-contrast': { enabled: false }, 'label-content-name-mismatch': { enabled: true } },
    });
    expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  });

  it('says plainly that crypto savings can lose value and the terms are not a price guarantee', async () => {
    stubApi({ [plansRoute]: json({ plans: [basic] }) });
    renderApp(visitor());
    const notice = (await screen.findByRole('heading', { level: 2, name: 'Know the risks before you invest' })).closest('section')!;
    expect(notice.textContent).toContain('Crypto savings can lose value.');
    expect(notice.textContent).toContain('not a promise about the price of any crypto asset');
    expect(notice.textContent).toContain('Only put in money you can afford to lose.');
  });

  it('shows a spinner until the plans arrive', async () => {
    let answer: (r: Response) => void = () => {};
    stubApi({ [plansRoute]: () => new Promise<Response>((resolve) => (answer = resolve)) });
    renderApp(visitor());
    expect(await screen.findByText('Loading the plans…')).toBeTruthy();
    expect(screen.queryByTestId('plan-card')).toBeNull();
    answer(json({ plans: [basic] }));
    expect(await screen.findByTestId('plan-card')).toBeTruthy();
    expect(screen.queryByText('Loading the plans…')).toBeNull();
  });

  it('says when no plan is open', async () => {
    stubApi({ [plansRoute]: json({ plans: [] }) });
    renderApp(visitor());
    expect(await screen.findByText('No plans are open for new investments right now.')).toBeTruthy();
    expect(screen.queryByRole('link', { name: /Start investing/ })).toBeNull();
  });

  it('shows the server’s message with a retry when the plans cannot be loaded', async () => {
    let calls = 0;
    stubApi({
      [plansRoute]: () => (++calls === 1 ? json({ message: 'Plans are not available yet.' }, 422) : json({ plans: [basic] })),
    });
    const u = userEvent.setup();
    renderApp(visitor());
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The plans could not be loaded')).toBeTruthy();
    expect(within(alert).getByText('Plans are not available yet.')).toBeTruthy();
    await u.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('plan-card')).toBeTruthy();
  });

  it('never shows an amount it cannot read as money', async () => {
    stubApi({ [plansRoute]: json({ plans: [{ ...basic, max: 'oops', apr: '', example: { ...basic.example, payout: '1e3' } }] }) });
    renderApp(visitor());
    const card = await screen.findByTestId('plan-card');
    expect(card.textContent).toContain('$100.00 to —Not available');
    expect(within(card).getByTestId('plan-apr').textContent).toBe('— a year');
    expect(within(card).getByTestId('plan-example').textContent).toContain('receive —Not available');
    expect(card.textContent).not.toContain('$0.00');
  });

  it('is the same page for a signed-in user, and its buttons are reached with the keyboard', async () => {
    const user = makeUser();
    stubApi({ 'GET /api/users/getUser': json(user), [plansRoute]: json({ plans: [basic, elite] }) });
    const u = userEvent.setup();
    renderApp({ route: '/investment-plans', ...signedIn(user) });
    const cta = await screen.findByRole('link', { name: 'Start investing in Elite' });
    // Tab through the page until the last card's button has the focus.
    for (let i = 0; i < 40 && document.activeElement !== cta; i++) await u.tab();
    expect(document.activeElement).toBe(cta);
  });

  it('has no accessibility violations axe can find without a layout engine', async () => {
    stubApi({ [plansRoute]: json({ plans: [basic, elite] }) });
    const { container } = renderApp(visitor());
    await screen.findAllByTestId('plan-card');
    // Colour contrast needs real rendering; the end-to-end test checks it in Chromium.
    const results = await axe.run(container, { rules: { 'color-contrast': { enabled: false } } });
    expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  });
});

import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { KycStatus } from '../../api/enhanced';
import { myKyc, rejectedBack } from '../../test/kyc';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

function dashboard(kycStatus: KycStatus, eligibility: Response, kyc = myKyc({ kycStatus })) {
  const user = makeUser({ kycStatus });
  stubApi({
    'GET /api/users/getUser': json(user),
    'GET /api/users/kyc': json(kyc),
    'GET /api/invest/eligibility': eligibility,
  });
  renderApp({ route: '/my-account', ...signedIn(user) });
}

// Not being eligible yet is an answer, not an error status.
const closed = (reason: string) => json({ eligible: false, reason });
// The dashboard's money actions (the shell's top bar has an Invest link of its own).
const actions = () => screen.findByRole('region', { name: 'Move money' });

describe('dashboard identity-check notices and the investing gate', () => {
  it('prompts for documents before the first upload and locks investing with the server’s message', async () => {
    dashboard('Not Submitted', closed('Please upload your identity documents before investing.'));
    const notice = await screen.findByTestId('kyc-notice');
    expect(within(notice).getByRole('link', { name: 'Upload your documents' }).getAttribute('href')).toBe('/upload-kyc');

    const gate = await screen.findByTestId('invest-gate');
    expect(within(gate).getByText('Please upload your identity documents before investing.')).toBeTruthy();
    expect(within(gate).getByRole('link', { name: 'Upload your documents' }).getAttribute('href')).toBe('/upload-kyc');
    expect(within(await actions()).queryByRole('link', { name: /^Invest/ })).toBeNull();
  });

  it('says the review is pending, without a link to upload again', async () => {
    dashboard('Pending', closed('Your identity documents are being reviewed. You can invest once they are approved.'));
    const notice = await screen.findByTestId('kyc-notice');
    expect(notice.textContent).toContain('pending review');
    expect(within(notice).queryByRole('link')).toBeNull();
    const gate = await screen.findByTestId('invest-gate');
    expect(within(gate).getByText(/being reviewed/)).toBeTruthy();
    expect(within(gate).queryByRole('link')).toBeNull();
  });

  it('shows a rejection with the reviewer’s reasons in plain words and a re-upload link', async () => {
    dashboard('Rejected', closed('Your identity documents were rejected. Please upload them again before investing.'), rejectedBack);
    const notice = await screen.findByTestId('kyc-notice');
    expect(await within(notice).findByText(/Glare or reflections hide part of the document/)).toBeTruthy();
    expect(within(notice).getByText('The light hides the machine-readable zone.')).toBeTruthy();
    expect(within(notice).getByRole('link', { name: 'Upload new documents' }).getAttribute('href')).toBe('/upload-kyc');
  });

  it('shows nothing once approved, and investing opens', async () => {
    dashboard('Approved', json({ eligible: true }));
    await screen.findByRole('heading', { level: 1, name: 'Welcome, Ada' });
    expect(await within(await actions()).findByRole('link', { name: /^Invest/ })).toBeTruthy();
    expect(screen.queryByTestId('kyc-notice')).toBeNull();
    expect(screen.queryByTestId('invest-gate')).toBeNull();
  });

  it('when the check fails, shows a calm note with Retry instead of an open action, and opens once a retry succeeds', async () => {
    let answer: () => Response | Promise<Response> = () => json({ message: 'Service unavailable' }, 503);
    const user = makeUser({ kycStatus: 'Approved' });
    const api = stubApi({
      'GET /api/users/getUser': json(user),
      'GET /api/users/kyc': json(myKyc({ kycStatus: 'Approved' })),
      'GET /api/invest/eligibility': () => answer(),
    });
    renderApp({ route: '/my-account', ...signedIn(user) });
    const gate = await screen.findByTestId('invest-gate-unknown');
    expect(within(gate).getByText('We could not check whether you can invest right now.')).toBeTruthy();
    expect(within(await actions()).queryByRole('link', { name: /^Invest/ })).toBeNull();
    expect(screen.queryByTestId('invest-gate')).toBeNull();

    // The retry stays a calm note while it runs (never a link that flashes open), then opens.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    answer = () => held.then(() => json({ eligible: true }));
    await userEvent.setup().click(within(gate).getByRole('button', { name: 'Retry' }));
    expect(await within(gate).findByRole('button', { name: 'Retrying…' })).toBeTruthy();
    expect(within(await actions()).queryByRole('link', { name: /^Invest/ })).toBeNull();
    release();
    expect(await within(await actions()).findByRole('link', { name: /^Invest/ })).toBeTruthy();
    expect(screen.queryByTestId('invest-gate-unknown')).toBeNull();
    expect(api.to('GET /api/invest/eligibility')).toHaveLength(2);
  });

  it('shows the gate on /start-invest too', async () => {
    const user = makeUser({ kycStatus: 'Rejected' });
    stubApi({
      'GET /api/users/getUser': json(user),
      'GET /api/invest/eligibility': closed('Your identity documents were rejected. Please upload them again before investing.'),
    });
    renderApp({ route: '/start-invest', ...signedIn(user) });
    const gate = await screen.findByTestId('invest-gate');
    expect(within(gate).getByText(/were rejected/)).toBeTruthy();
    expect(within(gate).getByRole('link', { name: 'Upload new documents' }).getAttribute('href')).toBe('/upload-kyc');
  });

  it('on /start-invest, a check that cannot reach the server offers Retry, not the way in', async () => {
    const user = makeUser({ kycStatus: 'Approved' });
    let reachable = false;
    const api = stubApi({
      'GET /api/users/getUser': json(user),
      'GET /api/invest/eligibility': () => {
        if (!reachable) throw new TypeError('Failed to fetch');
        return json({ eligible: true });
      },
      'GET /api/invest/plans': json({ plans: [] }),
    });
    renderApp({ route: '/start-invest', ...signedIn(user) });
    const gate = await screen.findByTestId('invest-gate-unknown');
    expect(gate.textContent).toContain('We could not check whether you can invest right now.');
    expect(screen.queryByRole('link', { name: 'See the portfolio plans' })).toBeNull();
    expect(screen.queryByText('No plans are open for new investments right now.')).toBeNull();

    reachable = true;
    await userEvent.setup().click(within(gate).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('No plans are open for new investments right now.')).toBeTruthy();
    expect(screen.queryByTestId('invest-gate-unknown')).toBeNull();
    expect(api.to('GET /api/invest/eligibility')).toHaveLength(2);
  });

  it('lets an eligible user through on /start-invest', async () => {
    stubApi({
      'GET /api/users/getUser': json(makeUser({ kycStatus: 'Approved' })),
      'GET /api/invest/eligibility': json({ eligible: true }),
      'GET /api/invest/plans': json({ plans: [] }),
    });
    renderApp({ route: '/start-invest', ...signedIn(makeUser({ kycStatus: 'Approved' })) });
    expect(await screen.findByText('No plans are open for new investments right now.')).toBeTruthy();
  });
});

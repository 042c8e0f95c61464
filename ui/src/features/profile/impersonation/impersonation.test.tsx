import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/renderWithProviders';
import { countries, json, makeUser, signedIn, stubApi } from '../../../test/stubApi';

const admin = makeUser({ _id: 'admin-1', name: 'Demo Admin', role: 'admin' });
const ivy = makeUser({ _id: 'u2', name: 'Ivy Investor', email: 'ivy@example.com' });
const otherAdmin = makeUser({ _id: 'admin-2', name: 'Alan Admin', role: 'admin' });

function open(route: string, user: ReturnType<typeof makeUser>, routes: Parameters<typeof stubApi>[0] = {}) {
  const api = stubApi({
    'GET /api/users/loginStatus': json(true),
    'GET /api/users/getUser': json(user),
    'GET /api/countries': json(countries),
    'GET /api/users/sessions': json([]),
    'GET /api/users/security-log': json([]),
    'GET /api/users/listUsers': json({ users: [admin, ivy, otherAdmin], total: 3, counts: { users: 3, verified: 3, suspended: 0 } }),
    ...routes,
  });
  const view = renderApp({ route, ...signedIn(user) });
  return { api, user: userEvent.setup(), ...view };
}

describe('viewing as a user', () => {
  it('is offered to admins for users who are not admins, after a dialog and a step-up check', async () => {
    const { api, user } = open('/user-profile?tab=users', admin, {
      'GET /api/users/step-up': json({ confirmed: true }),
      'POST /api/users/impersonate/u2': json({ message: 'ok', token: 't', expiresAt: '2030-01-01T00:15:00Z', userId: 'u2', name: 'Ivy Investor' }),
    });
    // The first render loads the profile page's code; on a busy machine that takes a while.
    await user.click(await screen.findByRole('button', { name: 'Actions for Alan Admin' }, { timeout: 15_000 }));
    expect(screen.queryByRole('button', { name: 'View as user' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Actions for Ivy Investor' }));
    await user.click(screen.getByRole('button', { name: 'View as user' }));
    const dialog = await screen.findByRole('dialog', { name: 'View Clearvest as Ivy Investor?' });
    expect(dialog.textContent).toContain('security log');
    await user.click(within(dialog).getByRole('button', { name: 'View as Ivy Investor' }));
    await waitFor(() => expect(api.to('POST /api/users/impersonate/u2')).toHaveLength(1));
    expect(api.to('GET /api/users/step-up').length).toBeGreaterThan(0);
    expect(await screen.findByText('You are now viewing Clearvest as Ivy Investor.')).toBeTruthy();
  });

  it('shows the banner and the Exit Impersonation tab while viewing, and exits', async () => {
    const viewed = { ...ivy, isImpersonated: true, impersonationEndsAt: '2030-01-01T00:15:00Z' };
    const { api, user } = open('/user-profile?tab=exit-impersonation', viewed, {
      'POST /api/users/exit-impersonation': json({ message: 'You are back in your own account.', signedIn: true }),
    });
    const banner = await screen.findByTestId('impersonation-banner', {}, { timeout: 15_000 });
    expect(banner.textContent).toContain('You are viewing Clearvest as Ivy Investor. Changes are disabled.');
    expect(await screen.findByRole('tab', { name: 'Exit Impersonation', selected: true }, { timeout: 15_000 })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Exit impersonation' }));
    await waitFor(() => expect(api.to('POST /api/users/exit-impersonation')).toHaveLength(1));
    expect(await screen.findByText('You are back in your own account.')).toBeTruthy();
  });

  it('shows no banner and no exit tab in a session of ones own', async () => {
    open('/user-profile', ivy);
    await screen.findAllByRole('tab');
    expect(screen.queryByTestId('impersonation-banner')).toBeNull();
    expect(screen.queryByRole('tab', { name: 'Exit Impersonation' })).toBeNull();
  });

  it('shows a staff visit in the security log with the role, in the reader’s language', async () => {
    open('/user-profile?tab=security', ivy, {
      'GET /api/users/security-log': json([
        { id: 'e1', at: '2030-01-01T00:00:00Z', kind: 'staff_viewed', description: 'A staff member (admin) viewed your account', staffRole: 'admin' },
      ]),
    });
    expect(await screen.findByText('A staff member (Administrator) viewed your account')).toBeTruthy();
  });
});

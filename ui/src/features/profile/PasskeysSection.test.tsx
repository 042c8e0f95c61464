import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { countries, json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const me = makeUser();
const laptop = { id: 'cred-1', name: 'Work laptop', createdAt: '2026-03-01T09:30:00Z', lastUsedAt: '2026-03-02T10:00:00Z' };
const phone = { id: 'cred-2', name: 'Phone', createdAt: '2026-03-03T09:30:00Z' };

function openSecurity(routes: Parameters<typeof stubApi>[0]) {
  const api = stubApi({
    'GET /api/users/loginStatus': json(true),
    'GET /api/users/getUser': json(me),
    'GET /api/countries': json(countries),
    'GET /api/users/sessions': json([]),
    'GET /api/users/security-log': json([]),
    ...routes,
  });
  renderApp({ route: '/user-profile?tab=security', ...signedIn(me) });
  return { api, user: userEvent.setup() };
}

describe('passkeys on the Security tab', () => {
  it('says when there are none, and asks for a name before adding one', async () => {
    const { user, api } = openSecurity({ 'GET /api/users/passkeys': json({ passkeys: [] }) });
    const section = await screen.findByRole('region', { name: 'Your passkeys' }, { timeout: 5000 });
    await within(section).findByText('You have no passkeys yet.');
    await user.click(within(section).getByRole('button', { name: 'Add a passkey' }));
    expect(await within(section).findByText('Please give the passkey a name.')).toBeTruthy();
    expect(api.to('POST /api/users/passkeys/register/begin')).toHaveLength(0);
  });

  it('lists each passkey with when it was added and last used, and removes one after the person confirms', async () => {
    let list = [laptop, phone];
    const { user, api } = openSecurity({
      'GET /api/users/passkeys': () => json({ passkeys: list }),
      'GET /api/users/step-up': json({ confirmed: true, passkey: true }),
      'DELETE /api/users/passkeys/cred-2': () => {
        list = [laptop];
        return json({ message: 'Passkey removed' });
      },
    });
    const items = await screen.findAllByTestId('passkey', {}, { timeout: 5000 });
    expect(items.map((i) => i.querySelector('.list-item__title')?.textContent)).toEqual(['Work laptop', 'Phone']);
    expect(items[0]?.textContent).toMatch(/last used/);
    expect(items[1]?.textContent).toMatch(/not used yet/);

    await user.click(screen.getByRole('button', { name: 'Remove the passkey Phone' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.to('DELETE /api/users/passkeys/cred-2')).toHaveLength(1);
    await waitFor(() => expect(screen.getAllByTestId('passkey')).toHaveLength(1));
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

  it('confirms the removal with a passkey when the dialog offers one', async () => {
    const bytes = (...b: number[]) => new Uint8Array(b).buffer;
    const get = vi.fn(async () => ({
      id: 'AQI',
      rawId: bytes(1, 2),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      getClientExtensionResults: () => ({}),
      response: { clientDataJSON: bytes(3), authenticatorData: bytes(4), signature: bytes(5), userHandle: bytes(6) },
    }));
    vi.stubGlobal('PublicKeyCredential', function PublicKeyCredential() {});
    Object.defineProperty(navigator, 'credentials', { value: { get }, configurable: true });
    let confirmed = false;
    const { user, api } = openSecurity({
      'GET /api/users/passkeys': json({ passkeys: [laptop] }),
      'GET /api/users/step-up': () => json({ confirmed, passkey: true }),
      'POST /api/users/step-up/passkey': json({ challengeId: 'ch-1', publicKey: { challenge: 'AAEC', rpId: 'localhost', userVerification: 'required', allowCredentials: [{ id: 'AQI', type: 'public-key' }] } }),
      'POST /api/users/step-up': () => {
        confirmed = true;
        return json({ message: "Thanks, that's confirmed.", expiresAt: '2026-11-28T14:05:00Z' });
      },
      'DELETE /api/users/passkeys/cred-1': json({ message: 'Passkey removed' }),
    });
    await user.click(await screen.findByRole('button', { name: 'Remove the passkey Work laptop' }, { timeout: 5000 }));
    const remove = await screen.findByRole('dialog', { name: 'Remove this passkey?' });
    await user.click(within(remove).getByRole('button', { name: 'Remove' }));
    const stepUp = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await user.click(await within(stepUp).findByRole('button', { name: 'Use a passkey' }));
    await waitFor(() => expect(api.to('DELETE /api/users/passkeys/cred-1')).toHaveLength(1));
    expect(api.to('POST /api/users/step-up').map((r) => r.body)).toEqual([
      {
        passkey: {
          challengeId: 'ch-1',
          credential: {
            id: 'AQI',
            rawId: 'AQI',
            type: 'public-key',
            authenticatorAttachment: 'platform',
            clientExtensionResults: {},
            response: { clientDataJSON: 'Aw', authenticatorData: 'BA', signature: 'BQ', userHandle: 'Bg' },
          },
        },
      },
    ]);
    const options = (get.mock.calls[0] as unknown as [{ publicKey: { challenge: ArrayBuffer; allowCredentials: { id: ArrayBuffer }[] } }])[0].publicKey;
    expect(new Uint8Array(options.challenge)).toEqual(new Uint8Array([0, 1, 2]));
    expect(new Uint8Array(options.allowCredentials[0]!.id)).toEqual(new Uint8Array([1, 2]));
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'credentials');
});

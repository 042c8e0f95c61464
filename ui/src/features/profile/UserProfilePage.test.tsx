import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { countries, json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const me = makeUser({ country: 'DE', name: 'Charlotte Montgomery' });

function openProfile(tab: string, routes: Parameters<typeof stubApi>[0] = {}, user = me) {
  const api = stubApi({
    'GET /api/users/loginStatus': json(true),
    'GET /api/users/getUser': json(user),
    'GET /api/countries': json(countries),
    'GET /api/users/sessions': json([]),
    'GET /api/users/security-log': json([]),
    ...routes,
  });
  const u = userEvent.setup();
  const view = renderApp({ route: `/user-profile?tab=${tab}`, ...signedIn(user) });
  return { api, user: u, ...view };
}

describe('profile page', () => {
  it('has Profile and Security tabs for subscribers; logging out is in the account menu, not a tab', async () => {
    openProfile('profile');
    const tabs = await screen.findAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual(['Profile', 'Security']);
    await waitFor(() => expect(document.title).toBe('Profile · Clearvest'));
  });

  it('shows the whole name in the header, leaving any shortening to the width of the screen', async () => {
    openProfile('profile', {}, makeUser({ name: 'Demo Investor 1' }));
    const name = await screen.findByTitle('Demo Investor 1');
    expect(name.textContent).toBe('Demo Investor 1');
    expect(name.className).toContain('truncate');
    expect(name.getAttribute('aria-hidden')).toBeNull();
    expect(screen.queryByText(/Inves…/)).toBeNull();
  });

  it('moves between tabs with the arrow keys', async () => {
    const { user } = openProfile('profile');
    const profile = await screen.findByRole('tab', { name: 'Profile', selected: true });
    profile.focus();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Security', selected: true })).toBe(document.activeElement);
    await user.keyboard('{End}');
    expect(screen.getByRole('tab', { name: 'Security', selected: true })).toBe(document.activeElement);
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Profile', selected: true })).toBe(document.activeElement);
  });

  it('edits the profile with the e-mail read-only and the saved country selected', async () => {
    const { user, api } = openProfile('profile', {
      'PATCH /api/users/updateUser': json({ ...me, bio: 'Hello' }),
    });
    await screen.findByRole('option', { name: 'Germany (+49)' });
    expect((screen.getByLabelText('Country') as HTMLSelectElement).value).toBe('DE');
    expect((screen.getByLabelText('Email') as HTMLInputElement).readOnly).toBe(true);

    await user.type(screen.getByLabelText('About you (optional)'), 'Hello');
    await user.clear(screen.getByLabelText('Phone number'));
    await user.type(screen.getByLabelText('Phone number'), '0123');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('Please enter a valid Phone Number')).toBeTruthy();

    await user.clear(screen.getByLabelText('Phone number'));
    await user.type(screen.getByLabelText('Phone number'), '+49 151 1234 5678');
    await user.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText('User Updated')).toBeTruthy();
    expect(api.to('PATCH /api/users/updateUser')[0]?.body).toEqual({
      name: 'Charlotte Montgomery',
      phone: '+4915112345678',
      country: 'DE',
      bio: 'Hello',
    });
  });

  it('accepts only JPEG and PNG photos, previews the choice and uploads it as multipart', async () => {
    const { api } = openProfile('profile', { 'POST /api/users/photo': json({ ...me, photo: '/api/users/photo/abcdefghijklmnop.png' }) });
    const input = (await screen.findByLabelText('Choose a photo (JPEG or PNG, up to 5 MB)')) as HTMLInputElement;

    fireEvent.change(input, { target: { files: [new File(['gif'], 'me.gif', { type: 'image/gif' })] } });
    // On the field, which keeps the focus; not in a toast.
    expect(await screen.findByText('Please choose a JPEG or PNG image.')).toBeTruthy();
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(input);
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);

    fireEvent.change(input, { target: { files: [new File(['png'], 'me.png', { type: 'image/png' })] } });
    const preview = (await screen.findByRole('img', { name: 'Preview of me.png' })) as HTMLImageElement;
    expect(preview.src.startsWith('data:image/png')).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Upload photo' }));

    expect(await screen.findByText('Profile photo updated')).toBeTruthy();
    const [upload] = api.to('POST /api/users/photo');
    expect(String(upload?.body)).toContain('Content-Disposition: form-data; name="photo"');
  });
});

describe('security tab', () => {
  it('needs all three password fields and matching new passwords', async () => {
    const { user, api } = openProfile('security');
    const form = await screen.findByRole('form', { name: 'Change password' });
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText('All fields are required')).toBeTruthy();
    expect(document.activeElement).toBe(within(form).getByLabelText('Current password'));

    await user.type(within(form).getByLabelText('Current password'), 'old-secret');
    await user.type(within(form).getByLabelText('New password'), 'New-secret-1');
    await user.type(within(form).getByLabelText('Confirm new password'), 'New-secret-2');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText('Passwords do not match')).toBeTruthy();
    expect(api.to('PATCH /api/users/changePassword')).toHaveLength(0);
  });

  it('logs out and goes to /login after a password change', async () => {
    const { user } = openProfile('security', {
      'PATCH /api/users/changePassword': json({ message: 'Password changed successfully' }),
      'GET /api/users/logout': json({ message: 'Successfully logged out' }),
    });
    const form = await screen.findByRole('form', { name: 'Change password' });
    await user.type(within(form).getByLabelText('Current password'), 'old-secret');
    await user.type(within(form).getByLabelText('New password'), 'New-secret-1');
    await user.type(within(form).getByLabelText('Confirm new password'), 'New-secret-1');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeTruthy();
    expect(screen.getByText('Password changed successfully')).toBeTruthy();
  });

  it('lists sessions and ends one, or all others', async () => {
    const sessions = [
      { id: 's1', createdAt: '2026-01-01T10:00:00Z', lastSeenAt: '2026-01-02T10:00:00Z', ip: '10.0.0.1', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0', current: true },
      { id: 's2', createdAt: '2026-01-01T10:00:00Z', lastSeenAt: '2026-01-02T09:00:00Z', ip: '10.0.0.2', userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Safari/604.1', current: false },
    ];
    const { user, api } = openProfile('security', {
      'GET /api/users/sessions': json(sessions),
      'DELETE /api/users/sessions/s2': json({ message: 'Session ended' }),
      'POST /api/users/sessions/revoke-others': json({ message: 'Other sessions ended' }),
    });
    expect(await screen.findByText('Chrome on Linux')).toBeTruthy();
    expect(screen.getByText('This device')).toBeTruthy();
    expect(screen.getByText('Safari on iOS')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: /^End session: Safari on iOS/ }));
    expect(await screen.findByText('Session ended')).toBeTruthy();
    expect(api.to('DELETE /api/users/sessions/s2')).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'End all other sessions' }));
    const dialog = await screen.findByRole('dialog', { name: 'End all other sessions?' });
    await user.click(within(dialog).getByRole('button', { name: 'End 1 other session' }));
    expect(await screen.findByText('Other sessions ended')).toBeTruthy();
  });

  it('enrols an authenticator app and shows the recovery codes once', async () => {
    const codes = ['aaaa-bbbb', 'cccc-dddd'];
    const { user, api } = openProfile('security', {
      'POST /api/users/2fa/setup': json({ secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Clearvest:ada?secret=JBSWY3DPEHPK3PXP&issuer=Clearvest' }),
      'POST /api/users/2fa/enable': json({ message: 'Two-factor authentication is on', recoveryCodes: codes }),
    });
    await user.click(await screen.findByRole('button', { name: 'Set up authenticator app' }));
    expect(await screen.findByRole('img', { name: 'QR code for your authenticator app' })).toBeTruthy();
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSW Y3DP EHPK 3PXP');

    await user.click(screen.getByRole('button', { name: 'Turn on two-step verification' }));
    expect(await screen.findByText('Please enter the code from your authenticator app')).toBeTruthy();
    await user.type(screen.getByLabelText('Code from the app'), '123 456');
    await user.click(screen.getByRole('button', { name: 'Turn on two-step verification' }));

    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(codes);
    expect(api.to('POST /api/users/2fa/enable')[0]?.body).toEqual({ code: '123456' });
    const download = screen.getByRole('link', { name: 'Download codes' });
    expect(download.getAttribute('download')).toBe('clearvest-recovery-codes.txt');
    expect(decodeURIComponent(download.getAttribute('href') ?? '')).toContain('aaaa-bbbb\ncccc-dddd');

    await user.click(screen.getByRole('button', { name: 'I have saved them' }));
    expect(screen.queryByRole('list', { name: 'Recovery codes' })).toBeNull();
  });
});

describe('users tab', () => {
  const admin = makeUser({ _id: 'admin-1', name: 'Demo Admin', role: 'admin' });
  const people = [
    admin,
    makeUser({ _id: 'u2', name: 'Bartholomew Fitzgerald', email: 'bart@example.com', isVerified: true }),
    makeUser({ _id: 'u3', name: 'Cleo', email: 'cleo@example.com', isVerified: false, role: 'suspended', status: 'suspended' }),
  ];
  const counts = { users: 3, verified: 2, suspended: 1 };
  const page = (users: (ReturnType<typeof makeUser> | undefined)[], more: { total?: number; nextCursor?: string } = {}) =>
    json({ users: users.filter(Boolean), total: more.total ?? users.length, counts, ...(more.nextCursor ? { nextCursor: more.nextCursor } : {}) });

  it('is hidden from subscribers', async () => {
    openProfile('users');
    await screen.findAllByRole('tab');
    expect(screen.queryByRole('tab', { name: 'Users' })).toBeNull();
    expect(screen.getByRole('tab', { name: 'Profile', selected: true })).toBeTruthy();
  });

  it('counts verified and suspended users and shows whole names on the cards', async () => {
    openProfile('users', { 'GET /api/users/listUsers': page(people) }, admin);
    await screen.findAllByTestId('user-card');
    expect(screen.getByTestId('verified-count').textContent).toBe('2');
    expect(screen.getByTestId('suspended-count').textContent).toBe('1');
    expect(screen.getByRole('heading', { level: 3, name: 'Bartholomew Fitzgerald' }).getAttribute('title')).toBe('Bartholomew Fitzgerald');
    // Admins cannot act on their own account from here.
    expect(screen.queryByRole('button', { name: 'Actions for Demo Admin' })).toBeNull();
  });

  it('shows each user\'s figures, and "unavailable" (never $0.00) when they could not be read', async () => {
    const listed = [
      admin,
      makeUser({ _id: 'u2', name: 'Ivy', figures: { balance: '120.00', investmentBalance: '600.00', totalMaturityAmount: '0.00', fees: '0.00', deposited: '700.00' } }),
      makeUser({ _id: 'u3', name: 'Olek', balance: '', investmentBalance: '', figures: undefined }),
    ];
    openProfile('users', { 'GET /api/users/listUsers': page(listed) }, admin);
    const cards = await screen.findAllByTestId('user-card');
    const ivy = cards.find((c) => c.textContent?.includes('Ivy'));
    const olek = cards.find((c) => c.textContent?.includes('Olek'));
    expect(ivy?.querySelector('[data-testid="user-figures"]')?.textContent).toBe('Available$120.00Invested$600.00Deposited$700.00');
    expect(olek?.querySelector('[data-testid="user-figures"]')?.textContent).toBe('Figures unavailable');
    expect(olek?.textContent).not.toContain('$0.00');
  });

  it('searches by name or e-mail on the server', async () => {
    const { user, api } = openProfile(
      'users',
      {
        'GET /api/users/listUsers': (request: Request) =>
          page(new URL(request.url).searchParams.get('search') === 'cleo' ? [people[2]] : people),
      },
      admin,
    );
    await screen.findAllByTestId('user-card');
    await user.type(screen.getByLabelText('Search users by name or e-mail'), 'cleo');
    await waitFor(() => expect(screen.getAllByTestId('user-card')).toHaveLength(1));
    expect(api.sent.some((r) => r.path.startsWith('/api/users/listUsers') && r.path.includes('search=cleo'))).toBe(true);
  });

  it('changes a role, asking "Please select a role" first', async () => {
    const { user, api } = openProfile(
      'users',
      { 'GET /api/users/listUsers': page(people), 'POST /api/users/upgradeUser': json({ message: 'Role updated' }) },
      admin,
    );
    await user.click(await screen.findByRole('button', { name: 'Actions for Bartholomew Fitzgerald' }));
    await user.click(screen.getByRole('button', { name: 'Change Role' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change role of Bartholomew Fitzgerald' });
    await user.click(within(dialog).getByRole('button', { name: 'Change role' }));
    expect(await within(dialog).findByText('Please select a role')).toBeTruthy();

    await user.selectOptions(within(dialog).getByLabelText('New role'), 'author');
    await user.click(within(dialog).getByRole('button', { name: 'Change role' }));
    expect(await screen.findByText('Role updated')).toBeTruthy();
    expect(api.to('POST /api/users/upgradeUser')[0]?.body).toEqual({ id: 'u2', role: 'author' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('asks for a reason to grant the admin role, and says when it waits for a second admin', async () => {
    const { user, api } = openProfile(
      'users',
      {
        'GET /api/users/listUsers': page(people),
        'POST /api/users/upgradeUser': json({ message: 'Sent to a second staff member for approval', proposalId: 'p-admin' }, 202),
      },
      admin,
    );
    await user.click(await screen.findByRole('button', { name: 'Actions for Bartholomew Fitzgerald' }));
    await user.click(screen.getByRole('button', { name: 'Change Role' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change role of Bartholomew Fitzgerald' });
    await user.selectOptions(within(dialog).getByLabelText('New role'), 'admin');
    await user.click(within(dialog).getByRole('button', { name: 'Send for a second approval' }));
    expect(await within(dialog).findByText('Please give a reason for the second admin')).toBeTruthy();
    expect(api.to('POST /api/users/upgradeUser')).toHaveLength(0);
    await user.type(within(dialog).getByLabelText(/Reason/), 'Runs the payouts desk');
    await user.click(within(dialog).getByRole('button', { name: 'Send for a second approval' }));
    expect(await screen.findByTestId('proposal-sent')).toBeTruthy();
    expect(api.to('POST /api/users/upgradeUser')[0]?.body).toEqual({ id: 'u2', role: 'admin', reason: 'Runs the payouts desk' });
    expect(screen.getAllByText(/Sent to a second staff member for approval/).length).toBeGreaterThan(0);
  });

  it('suspends, reinstates and deletes after confirmation', async () => {
    const { user, api } = openProfile(
      'users',
      {
        'GET /api/users/listUsers': page(people),
        'POST /api/users/suspend/u2': json({ message: 'User suspended' }),
        'POST /api/users/reinstate/u3': json({ message: 'User reinstated' }),
        'DELETE /api/users/u2': json({ message: 'Sent to a second staff member for approval', proposalId: 'p-close' }, 202),
      },
      admin,
    );
    await user.click(await screen.findByRole('button', { name: 'Actions for Bartholomew Fitzgerald' }));
    await user.click(screen.getByRole('button', { name: 'Suspend' }));
    const suspend = await screen.findByRole('dialog', { name: 'Suspend Bartholomew Fitzgerald?' });
    await user.type(within(suspend).getByLabelText(/Reason/), 'Chargeback');
    await user.click(within(suspend).getByRole('button', { name: 'Suspend user' }));
    expect(await screen.findByText('User suspended')).toBeTruthy();
    expect(api.to('POST /api/users/suspend/u2')[0]?.body).toEqual({ reason: 'Chargeback' });

    await user.click(screen.getByRole('button', { name: 'Actions for Cleo' }));
    await user.click(screen.getByRole('button', { name: 'Reinstate' }));
    expect(await screen.findByText('User reinstated')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Actions for Bartholomew Fitzgerald' }));
    await user.click(screen.getByRole('button', { name: 'Close account' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete Bartholomew Fitzgerald?' });
    expect(document.activeElement).toBe(within(confirm).getByRole('button', { name: 'Cancel' }));
    // Closing an account needs a second admin: a reason first, then the proposal waits.
    await user.click(within(confirm).getByRole('button', { name: 'Delete User' }));
    expect(within(confirm).getByText('Please give a reason for the second admin')).toBeTruthy();
    expect(api.to('DELETE /api/users/u2')).toHaveLength(0);
    await user.type(within(confirm).getByLabelText(/Reason/), 'Asked to leave');
    await user.click(within(confirm).getByRole('button', { name: 'Delete User' }));
    const sent = await screen.findByTestId('proposal-sent');
    expect(sent.textContent).toContain('Sent to a second staff member for approval');
    expect(within(sent).getByRole('link', { name: 'Open Second Approvals' }).getAttribute('href')).toBe('/approvals');
    expect(api.to('DELETE /api/users/u2')[0]?.body).toEqual({ reason: 'Asked to leave' });
  });

  it('filters by role, identity check and account on the server, and says when no user matches', async () => {
    const { user, api } = openProfile(
      'users',
      {
        'GET /api/users/listUsers': (request: Request) => {
          const q = new URL(request.url).searchParams;
          if (q.get('kycStatus') === 'Pending') return page([]);
          return page(q.get('status') === 'suspended' ? [people[2]] : people);
        },
      },
      admin,
    );
    await screen.findAllByTestId('user-card');
    // Options read in the reader's language, never the raw values.
    expect(within(screen.getByLabelText('Role')).getByRole('option', { name: 'Investor' })).toBeTruthy();
    await user.selectOptions(screen.getByLabelText('Account'), 'suspended');
    await waitFor(() => expect(screen.getAllByTestId('user-card')).toHaveLength(1));
    expect(api.sent.some((r) => r.path.includes('status=suspended'))).toBe(true);
    await user.selectOptions(screen.getByLabelText('Identity check'), 'Pending');
    expect(await screen.findByText('No users match. Try another search or clear the filters.')).toBeTruthy();
    expect(api.sent.some((r) => r.path.includes('kycStatus=Pending') && r.path.includes('status=suspended'))).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Clear search and filters' }));
    await waitFor(() => expect(screen.getAllByTestId('user-card')).toHaveLength(3));
  });

  it('reads the list a page at a time', async () => {
    const more = makeUser({ _id: 'u4', name: 'Dora Page Two' });
    const { user } = openProfile(
      'users',
      {
        'GET /api/users/listUsers': (request: Request) =>
          new URL(request.url).searchParams.get('cursor') === 'c2' ? page([more], { total: 4 }) : page(people, { total: 4, nextCursor: 'c2' }),
      },
      admin,
    );
    expect((await screen.findByTestId('users-total')).textContent).toBe('4 users match');
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('heading', { level: 3, name: 'Dora Page Two' })).toBeTruthy();
    expect(screen.getAllByTestId('user-card')).toHaveLength(4);
  });

  it('links to corrections, fees and returns from the menu, and shows when each user joined', async () => {
    const joined = [admin, { ...people[1]!, createdAt: '2026-03-04T10:00:00Z' }];
    const { user } = openProfile('users', { 'GET /api/users/listUsers': page(joined) }, admin);
    const cards = await screen.findAllByTestId('user-card');
    expect(cards[1]?.textContent).toMatch(/Joined .*2026/);
    expect(within(cards[1]!).getByTestId('user-kyc').textContent).toBe('Identity check: Not submitted yet');
    await user.click(screen.getByRole('button', { name: 'Actions for Bartholomew Fitzgerald' }));
    expect(screen.getByRole('button', { name: 'View as user' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Fees' }));
    await waitFor(() => expect(document.title).toBe('Fees · Clearvest'));
  });

  it('shows no actions to authors', async () => {
    const author = makeUser({ _id: 'author-1', role: 'author' });
    openProfile('users', { 'GET /api/users/listUsers': page(people) }, author);
    await screen.findAllByTestId('user-card');
    expect(screen.queryByRole('button', { name: /^Actions for/ })).toBeNull();
  });
});

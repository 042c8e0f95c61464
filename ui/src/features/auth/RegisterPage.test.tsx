import { createEvent, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { chooseLanguage } from '../../i18n';
import { renderApp } from '../../test/renderWithProviders';
import { countries, json, makeUser, stubApi } from '../../test/stubApi';

async function openRegister(routes: Parameters<typeof stubApi>[0] = {}, route = '/register') {
  const api = stubApi({
    'GET /api/users/loginStatus': json(false),
    'GET /api/countries': json(countries),
    ...routes,
  });
  const user = userEvent.setup();
  const view = renderApp({ route });
  await screen.findByRole('heading', { level: 1, name: 'Create an Account' });
  await screen.findByRole('option', { name: 'Germany (+49)' });
  return { api, user, ...view };
}

const field = (label: string) => screen.getByLabelText(label) as HTMLInputElement;

const consent = () => screen.getByRole('checkbox', { name: /I agree to the Terms/ }) as HTMLInputElement;

async function fill(user: ReturnType<typeof userEvent.setup>, values: Partial<Record<string, string>>, agree = true) {
  if (agree) await user.click(consent());
  const all = {
    'Full name': 'Ada Lovelace',
    Email: 'ada@example.com',
    Country: 'GB',
    'Phone number': '+447700900123',
    Password: 'Secret-12',
    'Confirm password': 'Secret-12',
    ...values,
  };
  for (const [label, value] of Object.entries(all)) {
    if (!value) continue;
    if (label === 'Country') await user.selectOptions(field(label), value);
    else await user.type(field(label), value);
  }
}

const submit = (user: ReturnType<typeof userEvent.setup>) => user.click(screen.getByRole('button', { name: 'Create account' }));

describe('register page', () => {
  it.each([
    ['a required field is empty', { 'Full name': '' }, 'All fields are required', 'Full name'],
    ['the country is not chosen', { Country: '' }, 'All fields are required', 'Country'],
    ['the e-mail is malformed', { Email: 'ada.example.com' }, 'Please enter a valid email', 'Email'],
    ['the phone number is malformed', { 'Phone number': '0123' }, 'Please enter a valid Phone Number', 'Phone number'],
    ['the password has 7 characters', { Password: 'Ab1!xyz', 'Confirm password': 'Ab1!xyz' }, 'Password must be at least 8 characters', 'Password'],
    ['the passwords differ', { 'Confirm password': 'Secret-13' }, 'Passwords do not match', 'Confirm password'],
  ])('says so when %s, focusing that field', async (_case, values, message, label) => {
    const { user, api } = await openRegister();
    await fill(user, values);
    await submit(user);

    expect(await screen.findByText(message)).toBeTruthy();
    expect(field(label).getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(field(label));
    expect(api.to('POST /api/users/register')).toHaveLength(0);
  });

  it('accepts phone numbers typed with spaces and sends them without', async () => {
    const { user, api } = await openRegister({
      'POST /api/users/register': json(makeUser(), 201),
      'GET /api/users/getUser': json(makeUser()),
    });
    await fill(user, { 'Phone number': '+44 7700 900-123' });
    await submit(user);

    await waitFor(() => expect(api.to('POST /api/users/register')).toHaveLength(1));
    expect(api.to('POST /api/users/register')[0]?.body).toMatchObject({ phone: '+447700900123', country: 'GB' });
  });

  it('lets people paste into the confirmation (a password manager does)', async () => {
    const { user } = await openRegister();
    const confirm = field('Confirm password');
    const paste = createEvent.paste(confirm, { clipboardData: { getData: () => 'Secret-12' } });
    fireEvent(confirm, paste);
    expect(paste.defaultPrevented).toBe(false);

    await user.click(confirm);
    await user.paste('Secret-12');
    expect(confirm.value).toBe('Secret-12');
    expect(screen.queryByText('Cannot paste into input field')).toBeNull();
  });

  it('asks for consent to the Terms and the Privacy Policy, linking both in a new tab', async () => {
    const { user, api } = await openRegister();
    for (const [name, href] of [
      [/^Terms/, '/license'],
      [/^Privacy Policy/, '/privacy-policy'],
    ] as const) {
      const link = within(consent().closest('label') as HTMLElement).getByRole('link', { name });
      expect(link.getAttribute('href')).toBe(href);
      expect(link.getAttribute('target')).toBe('_blank');
      expect(link.textContent).toContain('(opens in a new tab)');
    }
    await fill(user, {}, false);
    await submit(user);

    expect(await screen.findByText('Please agree to the Terms and the Privacy Policy to create an account')).toBeTruthy();
    expect(consent().getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(consent());
    expect(api.to('POST /api/users/register')).toHaveLength(0);
  });

  it('ticks the strength checklist as the password is typed', async () => {
    const { user } = await openRegister();
    const checklist = screen.getByText('A strong password has:').parentElement as HTMLElement;
    const met = () =>
      within(checklist)
        .getAllByRole('listitem')
        .filter((item) => item.dataset.met === 'true')
        .map((item) => item.textContent?.replace(/[✓✗]| \((done|not yet)\)/g, '').trim());

    expect(met()).toEqual([]);
    await user.type(field('Password'), 'abc');
    expect(met()).toEqual([]);
    await user.type(field('Password'), 'D');
    expect(met()).toEqual(['Lowercase and uppercase letters']);
    await user.type(field('Password'), '7');
    expect(met()).toEqual(['Lowercase and uppercase letters', 'A number (0-9)']);
    await user.type(field('Password'), '~');
    expect(met()).toHaveLength(3);
    await user.type(field('Password'), 'xy');
    expect(met()).toHaveLength(4);
    expect(within(checklist).getAllByText('(done)', { exact: false })).toHaveLength(4);
  });

  it("states the server's length rule in the checklist: 8 to 128 characters, counted as characters", async () => {
    const { user } = await openRegister();
    const length = screen.getByText('8 to 128 characters').closest('li') as HTMLElement;
    expect(screen.queryByText(/6 characters/)).toBeNull();

    await user.type(field('Password'), 'Ab1!xyz');
    expect(length.dataset.met).toBe('false');
    await user.type(field('Password'), 'w');
    expect(length.dataset.met).toBe('true');
    // Seven letters and an emoji are eight characters for the server, though nine UTF-16 units.
    await user.clear(field('Password'));
    await user.type(field('Password'), 'Ab1!xyz🙂');
    expect(length.dataset.met).toBe('true');
    await user.clear(field('Password'));
    await user.type(field('Password'), 'Ab1!xy🙂');
    expect(length.dataset.met).toBe('false');
  });

  it('links to sign-in for people who have an account', async () => {
    await openRegister();
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login');
  });

  it('lists countries with their dialling codes', async () => {
    await openRegister();
    expect(screen.getByRole('option', { name: 'United Kingdom (+44)' })).toBeTruthy();
  });

  it('says "Failed to fetch countries. Please try again later." and offers a retry', async () => {
    let calls = 0;
    stubApi({
      'GET /api/users/loginStatus': json(false),
      'GET /api/countries': () => (++calls === 1 ? json({ message: 'boom' }, 500) : json(countries)),
    });
    const user = userEvent.setup();
    renderApp({ route: '/register' });

    // Said under the field, beside the retry; not in a toast.
    expect(await screen.findByText('Failed to fetch countries. Please try again later.')).toBeTruthy();
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Try loading countries again' }));
    expect(await screen.findByRole('option', { name: 'Germany (+49)' })).toBeTruthy();
  });

  it('prefills the referral code from ?ref=', async () => {
    await openRegister({}, '/register?ref=FRIEND42');
    expect(field('Referral code (optional)').value).toBe('FRIEND42');
  });

  it('registers, says "Registration Successful" and continues to the identity check', async () => {
    const { user, api } = await openRegister({
      'POST /api/users/register': json({ ...makeUser(), token: 'jwt' }, 201),
      'GET /api/users/getUser': json(makeUser()),
    });
    await fill(user, {});
    await user.type(field('Referral code (optional)'), 'FRIEND42');
    await submit(user);

    expect(await screen.findByRole('heading', { level: 1, name: 'Identity Check' })).toBeTruthy();
    expect(screen.getByText('Registration Successful')).toBeTruthy();
    expect(api.to('POST /api/users/register')[0]?.body).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+447700900123',
      country: 'GB',
      password: 'Secret-12',
      confirmPassword: 'Secret-12',
      referralCode: 'FRIEND42',
      acceptTerms: true,
      language: 'en',
    });
  });

  it('shows the server message and marks the field it names', async () => {
    const { user } = await openRegister({
      'POST /api/users/register': json({ message: 'Email has already been registered', field: 'email' }, 409),
    });
    await fill(user, {});
    await submit(user);

    // On the field, described by it, and no toast.
    await waitFor(() => expect(document.activeElement).toBe(field('Email')));
    expect(field('Email').getAttribute('aria-invalid')).toBe('true');
    const described = document.getElementById((field('Email').getAttribute('aria-describedby') ?? '').split(' ')[0] ?? '');
    expect(described?.textContent).toBe('Email has already been registered');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('register page in German', () => {
  it('asks in German, says why in German and records German as the language', async () => {
    await chooseLanguage('de');
    const api = stubApi({
      'GET /api/users/loginStatus': json(false),
      'GET /api/countries': json(countries),
      'POST /api/users/register': json({ ...makeUser(), token: 'jwt' }, 201),
      'GET /api/users/getUser': json(makeUser()),
    });
    const user = userEvent.setup();
    renderApp({ route: '/register' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Konto eröffnen' })).toBeTruthy();
    await screen.findByRole('option', { name: 'Germany (+49)' });
    const agree = screen.getByRole('checkbox', { name: /Ich stimme den Nutzungsbedingungen/ });
    expect(within(agree.closest('label') as HTMLElement).getByRole('link', { name: /Datenschutzerklärung/ }).textContent).toContain(
      '(öffnet in einem neuen Tab)',
    );

    await user.click(screen.getByRole('button', { name: 'Konto eröffnen' }));
    expect(await screen.findByText('Bitte füllen Sie alle Felder aus')).toBeTruthy();

    await user.type(screen.getByLabelText('Vollständiger Name'), 'Grete Beispiel');
    await user.type(screen.getByLabelText('E-Mail'), 'grete@example.com');
    await user.selectOptions(screen.getByLabelText('Land'), 'GB');
    await user.type(screen.getByLabelText('Telefonnummer'), '+447700900123');
    await user.type(screen.getByLabelText('Passwort'), 'Secret-12');
    await user.type(screen.getByLabelText('Passwort bestätigen'), 'Secret-12');
    await user.click(screen.getByRole('button', { name: 'Konto eröffnen' }));
    expect(await screen.findByText('Bitte stimmen Sie den Nutzungsbedingungen und der Datenschutzerklärung zu, um ein Konto zu eröffnen')).toBeTruthy();

    await user.click(agree);
    await user.click(screen.getByRole('button', { name: 'Konto eröffnen' }));
    await waitFor(() => expect(api.to('POST /api/users/register')).toHaveLength(1));
    expect(api.to('POST /api/users/register')[0]?.body).toMatchObject({ acceptTerms: true, language: 'de' });
  });
});

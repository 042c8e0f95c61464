import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { SupportTicketQueue } from '../../api/enhanced';
import { chooseLanguage } from '../../i18n';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, signedOut, stubApi } from '../../test/stubApi';

const faq = { sample: false, items: [{ id: 'q1', question: 'How do I deposit?', answerHtml: '<p>Send crypto.</p>' }] };
const details = { email: 'support@clearvest.example', responseTime: 'Within one business day.' };

function stubHelpCenter(post: Parameters<typeof stubApi>[0][string]) {
  return stubApi({
    'GET /api/content/faq': json(faq),
    'GET /api/content/support': json(details),
    'POST /api/support/tickets': post,
  });
}

async function fill(user: ReturnType<typeof userEvent.setup>, name: string, email: string, message: string) {
  if (name) await user.type(screen.getByLabelText('Your name'), name);
  if (email) await user.type(screen.getByLabelText('Email'), email);
  if (message) await user.type(screen.getByLabelText('Message'), message);
}

describe('Help Center', () => {
  it('sends the form, says so in a toast and empties the form; the honeypot stays empty and out of reach', async () => {
    const stub = stubHelpCenter(json({ message: 'Message sent successfully!' }));
    const user = userEvent.setup();
    renderApp({ route: '/support', ...signedOut() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Help Center' })).toBeTruthy();
    expect(await screen.findByRole('link', { name: 'support@clearvest.example' })).toBeTruthy();
    expect(await screen.findByRole('button', { name: 'How do I deposit?' })).toBeTruthy();
    // The trap is not a field a person can reach.
    expect(screen.queryByRole('textbox', { name: 'Website' })).toBeNull();

    await fill(user, 'Ada', 'ada@example.com', 'Where is my deposit?');
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(await screen.findByText('Message sent successfully!')).toBeTruthy();
    expect(stub.to('POST /api/support/tickets')[0]?.body).toEqual({
      user_name: 'Ada',
      user_email: 'ada@example.com',
      message: 'Where is my deposit?',
      website: '',
    });
    expect((screen.getByLabelText('Message') as HTMLTextAreaElement).value).toBe('');
  });

  it('checks the fields with the specification’s messages before sending', async () => {
    const stub = stubHelpCenter(json({ message: 'Message sent successfully!' }));
    const user = userEvent.setup();
    renderApp({ route: '/support', ...signedOut() });
    await screen.findByRole('button', { name: 'Send message' });

    await fill(user, 'Ada', '', 'Hello');
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect((await screen.findAllByText('All fields are required')).length).toBeGreaterThan(0);
    expect(document.activeElement).toBe(screen.getByLabelText('Email'));

    await user.type(screen.getByLabelText('Email'), 'ada@');
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect((await screen.findAllByText('Please enter a valid email')).length).toBeGreaterThan(0);
    expect(stub.to('POST /api/support/tickets')).toHaveLength(0);
  });

  it('shows the fallback when the server gives no message, and the server’s own when it does', async () => {
    let answer = () => new Response('oops', { status: 500 });
    stubHelpCenter(() => answer());
    const user = userEvent.setup();
    renderApp({ route: '/support', ...signedOut() });
    await screen.findByRole('button', { name: 'Send message' });
    await fill(user, 'Ada', 'ada@example.com', 'Hello');
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(await screen.findByText('Failed to send. Please try again.')).toBeTruthy();

    answer = () => json({ message: 'Too many attempts. Please try again in 60 minutes.' }, 429);
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(await screen.findByText('Too many attempts. Please try again in 60 minutes.')).toBeTruthy();
  });
});

describe('Help Center in German', () => {
  it('shows the page, the form, its checks and its messages in German once the reader chooses German', async () => {
    let answer = () => json({ message: 'Message sent successfully!' });
    stubHelpCenter(() => answer());
    const user = userEvent.setup();
    await chooseLanguage('de');
    renderApp({ route: '/support', ...signedOut() });
    expect(await screen.findByRole('heading', { level: 1, name: 'Hilfe-Center' })).toBeTruthy();
    expect(screen.getByRole('heading', { level: 2, name: 'Schreiben Sie uns' })).toBeTruthy();
    expect(await screen.findByText('Antwortzeit')).toBeTruthy();
    const send = screen.getByRole('button', { name: 'Nachricht senden' });

    await user.type(screen.getByLabelText('Ihr Name'), 'Ada');
    await user.click(send);
    expect((await screen.findAllByText('Bitte füllen Sie alle Felder aus')).length).toBeGreaterThan(0);
    await user.type(screen.getByLabelText('E-Mail'), 'ada@');
    await user.type(screen.getByLabelText('Nachricht'), 'Wo ist meine Einzahlung?');
    await user.click(send);
    expect((await screen.findAllByText('Bitte geben Sie eine gültige E-Mail-Adresse ein')).length).toBeGreaterThan(0);

    await user.type(screen.getByLabelText('E-Mail'), 'example.com');
    await user.click(send);
    // The client's own words on success, whatever the server said.
    expect(await screen.findByText('Nachricht erfolgreich gesendet!')).toBeTruthy();
    expect(screen.getByText(/^Vielen Dank\. Ihre Nachricht ist bei unserem Support-Team angekommen/)).toBeTruthy();

    answer = () => new Response('oops', { status: 500 });
    await user.type(screen.getByLabelText('Ihr Name'), 'Ada');
    await user.type(screen.getByLabelText('E-Mail'), 'ada@example.com');
    await user.type(screen.getByLabelText('Nachricht'), 'Noch eine Frage');
    await user.click(send);
    expect(await screen.findByText('Senden fehlgeschlagen. Bitte versuchen Sie es erneut.')).toBeTruthy();
  });
});

describe('Support tickets (staff)', () => {
  const staff = makeUser({ _id: 's1', name: 'Sam Staff', role: 'author' });
  const queue: SupportTicketQueue = {
    asOf: '2026-11-26T10:00:00Z',
    tickets: [
      {
        _id: 't1',
        user_name: 'Ada Visitor',
        user_email: 'ada@example.com',
        message: 'Where is my deposit?',
        status: 'open',
        createdAt: '2026-11-26T08:00:00Z',
        ageSeconds: 7200,
        replies: 0,
      },
    ],
  };

  it('lists the tickets and replies in a dialog', async () => {
    const stub = stubApi({
      'GET /api/users/getUser': json(staff),
      'GET /api/support/tickets': json(queue),
      'POST /api/support/tickets/t1/reply': json({ message: 'Reply sent.' }),
    });
    const user = userEvent.setup();
    renderApp({ route: '/support-tickets', ...signedIn(staff) });
    const item = await screen.findByTestId('support-ticket');
    expect(within(item).getByText('Where is my deposit?')).toBeTruthy();
    expect(within(item).getByText('Open')).toBeTruthy();

    await user.click(within(item).getByRole('button', { name: 'Reply to Ada Visitor' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reply to Ada Visitor' });
    await user.click(within(dialog).getByRole('button', { name: 'Send reply' }));
    expect(within(dialog).getByText('Please write a reply.')).toBeTruthy();
    await user.type(within(dialog).getByLabelText('Reply'), 'It arrived; we credited it.');
    await user.click(within(dialog).getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText('Reply sent.')).toBeTruthy();
    expect(stub.to('POST /api/support/tickets/t1/reply')[0]?.body).toEqual({ message: 'It arrived; we credited it.' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('says when there are no messages', async () => {
    stubApi({ 'GET /api/users/getUser': json(staff), 'GET /api/support/tickets': json({ asOf: queue.asOf, tickets: [] }) });
    renderApp({ route: '/support-tickets', ...signedIn(staff) });
    expect(await screen.findByText('No messages yet.')).toBeTruthy();
  });
});

describe('Help Center for a signed-in user', () => {
  it('fills in their name and address', async () => {
    const investor = makeUser({ name: 'Ivy Investor', email: 'ivy@example.com' });
    stubApi({ 'GET /api/users/getUser': json(investor), 'GET /api/content/faq': json(faq), 'GET /api/content/support': json(details) });
    renderApp({ route: '/support', ...signedIn(investor) });
    await screen.findByRole('button', { name: 'Send message' });
    expect((screen.getByLabelText('Your name') as HTMLInputElement).value).toBe('Ivy Investor');
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('ivy@example.com');
  });
});

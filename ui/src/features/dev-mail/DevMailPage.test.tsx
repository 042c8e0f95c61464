import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/renderWithProviders';
import { json, stubApi } from '../../test/stubApi';

const meta = (environment: string) => json({ product: 'Clearvest', version: 'dev', environment });

describe('development mailbox', () => {
  it('lists the e-mails and opens one with its links', async () => {
    stubApi({
      'GET /api/meta': meta('development'),
      'GET /api/users/loginStatus': json(false),
      'GET /api/dev/mail': json([
        { id: 'm2', to: '<ada@example.com>', subject: 'Your Clearvest login code', date: '2026-01-02T10:00:00Z' },
        { id: 'm1', to: '<bob@example.com>', subject: 'Confirm your e-mail address for Clearvest', date: '2026-01-01T10:00:00Z' },
      ]),
      'GET /api/dev/mail/m1': json({
        id: 'm1',
        to: '<bob@example.com>',
        subject: 'Confirm your e-mail address for Clearvest',
        date: '2026-01-01T10:00:00Z',
        text: 'Open http://localhost:8080/verify/abc to confirm.',
        html: '<p>…</p>',
      }),
    });
    const user = userEvent.setup();
    renderApp({ route: '/dev/mail' });

    expect(await screen.findByRole('button', { name: /Your Clearvest login code/ })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Development mailbox' })).toBeTruthy();
    await user.type(screen.getByLabelText('Filter by recipient or subject'), 'bob');
    expect(screen.queryByRole('button', { name: /login code/ })).toBeNull();
    await user.click(screen.getByRole('button', { name: /Confirm your e-mail/ }));

    const mail = await screen.findByRole('article');
    expect(within(mail).getByRole('link', { name: 'http://localhost:8080/verify/abc' })).toBeTruthy();
  });

  it('says it exists only on development servers', async () => {
    const api = stubApi({ 'GET /api/meta': meta('production'), 'GET /api/users/loginStatus': json(false) });
    renderApp({ route: '/dev/mail' });

    expect(await screen.findByText(/only on development servers/)).toBeTruthy();
    expect(api.to('GET /api/dev/mail')).toHaveLength(0);
    expect(screen.queryByRole('link', { name: 'Development mailbox' })).toBeNull();
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { kycCase } from '../../test/kyc';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

const staff = makeUser({ _id: 'staff-1', role: 'admin', name: 'Rita Reviewer' });

function openCase(routes: Parameters<typeof stubApi>[0] = {}) {
  const api = stubApi({
    'GET /api/users/getUser': json(staff),
    'GET /api/users/kyc/user-1': json(kycCase()),
    'GET /api/users/kyc/pending': json({ asOf: '2026-11-23T10:00:00Z', total: 0, pendingUsers: [] }),
    'POST /api/users/kyc/user-1/documents/1/front': () => new Response('jpeg', { headers: { 'Content-Type': 'image/jpeg' } }),
    'POST /api/users/kyc/user-1/documents/2/back': () => new Response('heic', { headers: { 'Content-Type': 'image/heic' } }),
    ...routes,
  });
  const u = userEvent.setup();
  const view = renderApp({ route: '/pending-kyc/user-1', ...signedIn(staff) });
  return { api, u, ...view };
}

describe('identity check case', () => {
  it('shows the documents with view controls, a download for HEIC, the profile and the history', async () => {
    let objectUrls = 0;
    URL.createObjectURL = vi.fn(() => `blob:kyc-${++objectUrls}`);
    URL.revokeObjectURL = vi.fn();
    const { api } = openCase();
    expect(await screen.findByRole('heading', { level: 1, name: 'Identity check: Ada Lovelace' })).toBeTruthy();
    const front = screen.getByTestId('document-front');
    // Fetched with a POST (it records the view) and shown from memory.
    const image = await within(front).findByRole('img', { name: 'Front of the document' });
    expect(image.getAttribute('src')).toBe('blob:kyc-1');

    const u = userEvent.setup();
    await u.click(within(front).getByRole('button', { name: 'Zoom in' }));
    expect(within(front).getByText('125%')).toBeTruthy();
    await u.click(within(front).getByRole('button', { name: 'Rotate 90°' }));
    expect((image.parentElement as HTMLElement).style.transform).toBe('rotate(90deg)');
    await u.click(within(front).getByRole('button', { name: 'Reset' }));
    expect(within(front).getByText('100%')).toBeTruthy();
    expect((image.parentElement as HTMLElement).style.transform).toBe('rotate(0deg)');

    const back = screen.getByTestId('document-back');
    // A type the browser cannot show is fetched only when the reviewer asks for it.
    expect(api.to('POST /api/users/kyc/user-1/documents/2/back')).toHaveLength(0);
    await u.click(within(back).getByRole('button', { name: 'Download back of the document' }));
    await waitFor(() => expect(api.to('POST /api/users/kyc/user-1/documents/2/back')).toHaveLength(1));
    expect(within(back).queryByRole('button', { name: 'Zoom in' })).toBeNull();

    expect(screen.getByText('ada@example.com')).toBeTruthy();
    expect(screen.getByText('+447700900123')).toBeTruthy();
    const history = screen.getAllByTestId('kyc-submission');
    expect(history).toHaveLength(2);
    expect(history[0]!.textContent).toContain('Waiting for review');
    expect(history[1]!.textContent).toContain('Back: Blurry or unreadable');
    expect(history[1]!.textContent).toContain('Rita Reviewer');
  });

  it('rejects: the submit waits for a document with a reason, and the body names sides, reasons, comment and submission', async () => {
    const { api, u, router } = openCase({ 'PATCH /api/users/kyc/user-1/reject': json({ message: 'Documents rejected.' }) });
    await u.click(await screen.findByRole('button', { name: 'Reject' }));
    const dialog = screen.getByRole('dialog', { name: "Reject Ada Lovelace's documents" });
    const submit = within(dialog).getByRole('button', { name: 'Reject documents' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);

    await u.click(within(dialog).getByRole('checkbox', { name: 'Reject the back' }));
    expect(submit.disabled).toBe(true);
    await u.selectOptions(within(dialog).getByLabelText('Reason for the back'), 'Glare or reflections');
    expect(submit.disabled).toBe(false);
    // A reason alone, without the tick, does not reject the front.
    expect((within(dialog).getByLabelText('Reason for the front') as HTMLSelectElement).disabled).toBe(true);
    await u.type(within(dialog).getByLabelText(/Comment for the user/), '  Please avoid the lamp.  ');
    await u.click(submit);

    expect(await screen.findByText('Documents rejected.')).toBeTruthy();
    expect(api.to('PATCH /api/users/kyc/user-1/reject')[0]?.body).toEqual({
      documents: [{ side: 'back', reason: 'glare' }],
      reason: 'Please avoid the lamp.',
      submission: 2,
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/pending-kyc'));
  });

  it('approves after a confirmation and returns to the queue', async () => {
    const { api, u, router } = openCase({ 'PATCH /api/users/kyc/user-1/approve': json({ message: 'KYC approved.' }) });
    await u.click(await screen.findByRole('button', { name: 'Approve' }));
    const dialog = screen.getByRole('dialog', { name: "Approve Ada Lovelace's identity?" });
    await u.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('KYC approved.')).toBeTruthy();
    expect(api.to('PATCH /api/users/kyc/user-1/approve')[0]?.body).toEqual({ submission: 2 });
    await waitFor(() => expect(router.state.location.pathname).toBe('/pending-kyc'));
  });

  it('on 409 shows the server’s message and reloads the case', async () => {
    let reads = 0;
    const { api, u, router } = openCase({
      'GET /api/users/kyc/user-1': () => json(++reads === 1 ? kycCase() : kycCase({ kycStatus: 'Approved' })),
      'PATCH /api/users/kyc/user-1/approve': json({ message: 'This identity check was already decided.' }, 409),
    });
    await u.click(await screen.findByRole('button', { name: 'Approve' }));
    await u.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('This identity check was already decided.')).toBeTruthy();
    expect(await screen.findByText('This identity check is not waiting for a decision.')).toBeTruthy();
    expect(api.to('GET /api/users/kyc/user-1').length).toBeGreaterThanOrEqual(2);
    expect(router.state.location.pathname).toBe('/pending-kyc/user-1');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

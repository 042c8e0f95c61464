import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { myKyc, rejectedBack } from '../../test/kyc';
import { renderApp } from '../../test/renderWithProviders';
import { json, makeUser, signedIn, stubApi } from '../../test/stubApi';

vi.mock('./pdf', () => ({
  openPdf: vi.fn(async () => ({ numPages: 2, destroy: vi.fn(async () => {}) })),
  renderPage: vi.fn(() => ({ promise: Promise.resolve(), cancel: vi.fn() })),
}));

// XMLHttpRequest as the upload uses it: the test sends progress and answers by hand.
class FakeXhr {
  static sent: FakeXhr[] = [];
  upload: { onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
  headers: Record<string, string> = {};
  method = '';
  url = '';
  body: FormData | null = null;
  status = 0;
  responseText = '';
  withCredentials = false;
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  ontimeout: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  getResponseHeader() {
    return null;
  }
  send(body: FormData) {
    this.body = body;
    FakeXhr.sent.push(this);
  }
  progress(loaded: number, total: number) {
    act(() => this.upload.onprogress?.({ lengthComputable: true, loaded, total }));
  }
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    act(() => this.onload?.());
  }
  fail() {
    act(() => this.onerror?.());
  }
}

function setup(kyc = myKyc()) {
  FakeXhr.sent = [];
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  let current = kyc;
  const api = stubApi({
    'GET /api/users/getUser': json(makeUser()),
    'GET /api/users/kyc': () => json(current),
    'GET /api/invest/eligibility': json({ message: 'Please upload your identity documents before investing.' }, 403),
  });
  const u = userEvent.setup({ applyAccept: false });
  renderApp({ route: '/upload-kyc', ...signedIn() });
  return { api, u, setKyc: (next: typeof kyc) => (current = next) };
}

const jpeg = (name = 'front.jpg', size = 2048) => new File([new Uint8Array(size)], name, { type: 'image/jpeg' });

describe('identity check upload', () => {
  it('asks for both documents, then checks each file’s type and size with the specification’s messages', async () => {
    const { u } = setup();
    expect(await screen.findByRole('heading', { level: 1, name: 'Identity Check' })).toBeTruthy();
    await screen.findByRole('group', { name: 'Front of your document' });
    expect(screen.getByRole('group', { name: 'Back of your document' })).toBeTruthy();
    const front = screen.getByLabelText('Choose a file for the front');
    expect(front.getAttribute('accept')).toBe('image/jpeg,image/png,image/gif,image/webp,image/bmp,image/heic,application/pdf');
    expect(screen.getByLabelText('Take a photo of the front').getAttribute('capture')).toBe('environment');

    await u.click(screen.getByRole('button', { name: 'Submit documents' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Please upload both front and back documents.');
    expect(screen.getAllByText('Please select a file.')).toHaveLength(2);

    await u.upload(front, new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    expect(within(screen.getByTestId('slot-front')).getByText('Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.')).toBeTruthy();
    expect(front.getAttribute('aria-invalid')).toBe('true');

    const big = jpeg('big.jpg', 1);
    Object.defineProperty(big, 'size', { value: 10_485_761 });
    await u.upload(screen.getByLabelText('Choose another file for the front'), big);
    expect(within(screen.getByTestId('slot-front')).getByText('File size must be less than 10MB.')).toBeTruthy();

    const exact = jpeg('exact.jpg', 1);
    Object.defineProperty(exact, 'size', { value: 10_485_760 });
    await u.upload(screen.getByLabelText('Choose another file for the front'), exact);
    expect(within(screen.getByTestId('slot-front')).queryByText('File size must be less than 10MB.')).toBeNull();
    expect(screen.getByRole('img', { name: 'Preview of the front' })).toBeTruthy();

    await u.click(screen.getByRole('button', { name: 'Submit documents' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Please upload both front and back documents.');
    expect(within(screen.getByTestId('slot-back')).getByText('Please select a file.')).toBeTruthy();
    expect(FakeXhr.sent).toHaveLength(0);
  });

  it('previews images through object URLs it revokes, PDFs as a page and HEIC as a file icon', async () => {
    const create = vi.fn(() => 'blob:preview-1');
    const revoke = vi.fn();
    vi.stubGlobal('URL', Object.assign(globalThis.URL, { createObjectURL: create, revokeObjectURL: revoke }));
    const { u } = setup();
    await u.upload(await screen.findByLabelText('Choose a file for the front'), jpeg());
    const img = screen.getByRole('img', { name: 'Preview of the front' });
    expect(img.getAttribute('src')).toBe('blob:preview-1');
    await u.click(screen.getByRole('button', { name: 'Remove the front' }));
    expect(revoke).toHaveBeenCalledWith('blob:preview-1');

    await u.upload(screen.getByLabelText('Choose a file for the back'), new File(['%PDF-1.4'], 'back.pdf', { type: 'application/pdf' }));
    expect(await screen.findByRole('img', { name: 'Preview of the back, first page', hidden: true })).toBeTruthy();
    expect(screen.getByText(/back\.pdf/)).toBeTruthy();

    await u.upload(screen.getByLabelText('Choose a file for the front'), new File(['x'], 'IMG_0001.HEIC', { type: '' }));
    const slot = screen.getByTestId('slot-front');
    expect(within(slot).getByText('IMG_0001.HEIC')).toBeTruthy();
    expect(within(slot).getByText(/File · 1 B/)).toBeTruthy();
    expect(within(slot).queryByText(/Invalid file format/)).toBeNull();
  });

  it('shows progress while uploading, sends the headers, toasts and shows the pending review', async () => {
    const { u, setKyc } = setup();
    await u.upload(await screen.findByLabelText('Choose a file for the front'), jpeg());
    await u.upload(screen.getByLabelText('Choose a file for the back'), jpeg('back.png'));
    await u.click(screen.getByRole('button', { name: 'Submit documents' }));

    const xhr = FakeXhr.sent[0]!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/users/uploadKycDocuments');
    expect(xhr.headers['X-Requested-With']).toBe('XMLHttpRequest');
    expect(xhr.headers['Idempotency-Key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((xhr.body?.get('front') as File).name).toBe('front.jpg');
    expect((xhr.body?.get('back') as File).name).toBe('back.png');

    xhr.progress(512, 1024);
    const bar = screen.getByRole('progressbar', { name: 'Uploading… 50%' });
    expect(bar.getAttribute('value')).toBe('50');
    expect(screen.getByRole('button', { name: 'Uploading…' }).getAttribute('aria-disabled')).toBe('true');
    xhr.progress(1024, 1024);
    expect(screen.getByRole('progressbar', { name: 'Uploading… 100%' })).toBeTruthy();

    const pending = myKyc({ kycStatus: 'Pending', submission: 1, submittedAt: '2026-11-23T10:00:00Z', resubmit: [] });
    setKyc(pending);
    xhr.respond(200, { message: 'KYC documents uploaded successfully!', kyc: pending });
    expect(await screen.findByText('KYC documents uploaded successfully!')).toBeTruthy();
    expect(await screen.findByRole('heading', { name: 'Your documents are under review' })).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('says "Upload failed" on a network failure and shows the server’s own refusal; each attempt has its own key', async () => {
    const { u } = setup();
    await u.upload(await screen.findByLabelText('Choose a file for the front'), jpeg());
    await u.upload(screen.getByLabelText('Choose a file for the back'), jpeg('back.jpg'));
    await u.click(screen.getByRole('button', { name: 'Submit documents' }));
    FakeXhr.sent[0]!.fail();
    // Said once, above the form: never in a toast as well.
    expect(await screen.findAllByText('Upload failed. Please try again.')).toHaveLength(1);

    await u.click(screen.getByRole('button', { name: 'Submit documents' }));
    FakeXhr.sent[1]!.respond(415, { message: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.' });
    expect(await screen.findAllByText('Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.')).not.toHaveLength(0);
    expect(FakeXhr.sent[0]!.headers['Idempotency-Key']).not.toBe(FakeXhr.sent[1]!.headers['Idempotency-Key']);
  });

  it('after a rejection shows the reasons in plain words and asks only for the rejected side', async () => {
    const { u } = setup(rejectedBack);
    expect(await screen.findByRole('heading', { name: 'We could not accept your documents' })).toBeTruthy();
    expect(screen.getByText(/Glare or reflections hide part of the document/)).toBeTruthy();
    expect(screen.getByText('The light hides the machine-readable zone.')).toBeTruthy();
    expect(screen.queryByRole('group', { name: 'Front of your document' })).toBeNull();
    expect(screen.getByRole('group', { name: 'Back of your document' })).toBeTruthy();

    await u.click(screen.getByRole('button', { name: 'Submit document' }));
    expect(within(screen.getByTestId('slot-back')).getByText('Please select a file.')).toBeTruthy();
    expect(screen.queryByText('Please upload both front and back documents.')).toBeNull();

    await u.upload(screen.getByLabelText('Choose a file for the back'), jpeg('back-again.jpg'));
    await u.click(screen.getByRole('button', { name: 'Submit document' }));
    const body = FakeXhr.sent[0]!.body!;
    expect(body.has('front')).toBe(false);
    expect((body.get('back') as File).name).toBe('back-again.jpg');
  });

  it('shows the pending review without an upload, and the verified state with a way to invest', async () => {
    setup(myKyc({ kycStatus: 'Approved', submission: 1, resubmit: [] }));
    expect(await screen.findByRole('heading', { name: 'Your identity is verified' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Start investing' }).getAttribute('href')).toBe('/start-invest');
    expect(screen.queryByRole('form')).toBeNull();
  });
});

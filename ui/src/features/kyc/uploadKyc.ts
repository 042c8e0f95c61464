import type { KycSide, KycSubmitted } from '../../api/enhanced';
import { POSITION_HEADER } from '../../api/position';
import { kycMessages } from './validation';

export type UploadOutcome =
  | { ok: true; data: KycSubmitted; position: string | null }
  | { ok: false; status: number | 'network'; message: string; position: string | null };

export interface UploadOptions {
  // Share of the request body sent so far, 0 to 1.
  onProgress?: (fraction: number) => void;
  // One key per submit attempt: a retry of the same attempt after a lost answer is not a second
  // submission, a new attempt is.
  idempotencyKey: string;
}

export { newIdempotencyKey } from '../../components/idempotencyKey';

function messageOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    return typeof body.message === 'string' && body.message !== '' ? body.message : undefined;
  } catch {
    return undefined;
  }
}

// Sends the identity documents as multipart parts `front` and `back`. It uses XMLHttpRequest
// rather than the API client because fetch reports no upload progress; the headers are the ones
// the API client sends (the CSRF marker; cookies go along on our own origin).
export function uploadKycDocuments(files: Partial<Record<KycSide, File>>, { onProgress, idempotencyKey }: UploadOptions) {
  return new Promise<UploadOutcome>((resolve) => {
    const form = new FormData();
    if (files.front) form.append('front', files.front);
    if (files.back) form.append('back', files.back);

    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/users/uploadKycDocuments');
    xhr.withCredentials = false; // same-origin: the cookies are sent anyway
    xhr.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
    xhr.setRequestHeader('Idempotency-Key', idempotencyKey);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => {
      const position = xhr.getResponseHeader(POSITION_HEADER);
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve({ ok: true, data: JSON.parse(xhr.responseText) as KycSubmitted, position });
        } catch {
          resolve({ ok: false, status: xhr.status, message: kycMessages.network, position });
        }
        return;
      }
      resolve({ ok: false, status: xhr.status, message: messageOf(xhr.responseText) ?? kycMessages.network, position });
    };
    xhr.onerror = () => resolve({ ok: false, status: 'network', message: kycMessages.network, position: null });
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = xhr.onerror;
    xhr.send(form);
  });
}

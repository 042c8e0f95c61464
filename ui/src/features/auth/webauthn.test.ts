import { describe, expect, it } from 'vitest';
import { base64urlToBuffer, bufferToBase64url, isPasskeyDismissed } from './webauthn';

describe('passkey helpers', () => {
  it('turn base64url into bytes and back, without padding', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
    const text = bufferToBase64url(bytes);
    expect(text).toBe('AAEC-vv8_f7_');
    expect(new Uint8Array(base64urlToBuffer(text))).toEqual(bytes);
    expect(new Uint8Array(base64urlToBuffer('AQ'))).toEqual(new Uint8Array([1]));
  });

  it('tell a cancelled ceremony from a failed one', () => {
    expect(isPasskeyDismissed(new DOMException('', 'NotAllowedError'))).toBe(true);
    expect(isPasskeyDismissed(new DOMException('', 'AbortError'))).toBe(true);
    expect(isPasskeyDismissed(new DOMException('', 'InvalidStateError'))).toBe(false);
    expect(isPasskeyDismissed(new Error('network'))).toBe(false);
  });
});

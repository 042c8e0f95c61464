import type { ApiErrorInfo } from '../../api/errors';

type Said = Pick<ApiErrorInfo, 'code' | 'message'>;

// The specification keys these flows on the message text; the contract adds stable
// codes. Either is enough.
export const isSuspended = ({ code, message }: Said) => code === 'suspended' || Boolean(message?.includes('suspended'));
export const isTotpRequired = ({ code }: Said) => code === 'totp_required';
// The pending sign-in the login code belongs to is gone (used, replaced, expired): only the
// password can start a new one.
export const isLoginExpired = ({ code }: Said) => code === 'login_expired';

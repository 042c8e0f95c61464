import { apiErrorInfo } from '../api/errors';
import { useGetInvestEligibilityQuery, type User } from '../api/enhanced';

export type InvestGate =
  | { state: 'checking' }
  | { state: 'open' }
  | { state: 'closed'; message: string }
  // The check itself failed (network, server error): starting is left to the server to refuse.
  | { state: 'unknown' };

// Whether the signed-in user may start an investment, as the server says (a verified e-mail and
// an approved identity check). The server's 403 message says what is missing.
export function useInvestGate(): InvestGate {
  const { data, isError, error } = useGetInvestEligibilityQuery({});
  if (data?.eligible) return { state: 'open' };
  if (isError) {
    const info = apiErrorInfo(error);
    if (info.status === 403) return { state: 'closed', message: info.message ?? 'You cannot start an investment yet.' };
    return { state: 'unknown' };
  }
  return { state: 'checking' };
}

// Where a user the gate stops can do something about it, if anywhere.
export function gateLink(user: Pick<User, 'isVerified' | 'kycStatus'>): { to: string; label: string } | null {
  if (!user.isVerified) return null;
  if (user.kycStatus === 'Not Submitted') return { to: '/upload-kyc', label: 'Upload your documents' };
  if (user.kycStatus === 'Rejected') return { to: '/upload-kyc', label: 'Upload new documents' };
  return null;
}

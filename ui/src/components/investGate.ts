import { apiErrorInfo } from '../api/errors';
import { useGetInvestEligibilityQuery, type User } from '../api/enhanced';
import { useTranslation } from '../i18n';

export type InvestGate =
  | { state: 'checking' }
  | { state: 'open' }
  | { state: 'closed'; message: string }
  // The check itself failed (network, server error). Nothing is known, so nothing is offered but
  // asking again: `retry` refetches, and `retrying` is true while that runs.
  | { state: 'unknown'; retry: () => void; retrying: boolean };

// Whether the signed-in user may start an investment, as the server says (a verified e-mail and
// an approved identity check). Not being eligible yet is an answer (200, `eligible: false`) whose
// `reason` says what is missing; an error means the check itself failed. While a refetch
// runs after a failure (a retry, or the cache invalidated after an upload), the last answer
// stands: the entry keeps its error until a new answer comes, so an action never flashes open.
export function useInvestGate(): InvestGate {
  const { t } = useTranslation('invest');
  const { data, isError, error, isFetching, refetch } = useGetInvestEligibilityQuery({});
  if (isError || (error !== undefined && isFetching)) {
    const info = apiErrorInfo(error);
    if (info.status === 403) return { state: 'closed', message: info.message ?? t('gate.closed') };
    return { state: 'unknown', retry: () => void refetch(), retrying: isFetching };
  }
  if (data?.eligible) return { state: 'open' };
  if (data) return { state: 'closed', message: data.reason ?? t('gate.closed') };
  return { state: 'checking' };
}

// Where a user the gate stops can do something about it, if anywhere, in the reader's language.
// (What the user is told while the check cannot be answered is the `invest` namespace's
// gate.unknown.)
export function useGateLink() {
  const { t } = useTranslation('invest');
  return (user: Pick<User, 'isVerified' | 'kycStatus'>): { to: string; label: string } | null => {
    if (!user.isVerified) return null;
    if (user.kycStatus === 'Not Submitted') return { to: '/upload-kyc', label: t('gate.upload') };
    if (user.kycStatus === 'Rejected') return { to: '/upload-kyc', label: t('gate.uploadAgain') };
    return null;
  };
}

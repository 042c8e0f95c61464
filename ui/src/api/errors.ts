import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';
import type { InvestmentQuote, WithdrawalQuote } from './generated';

export interface ApiErrorInfo {
  status: number | 'network' | 'unknown';
  // The server's sentence for the user, when it sent one.
  message?: string;
  code?: string;
  field?: string;
  // With withdrawal_cooldown: when withdrawals are possible again (ISO 8601).
  until?: string;
  // With plan_changed and fee_changed: the figures the server would use now.
  investmentQuote?: InvestmentQuote;
  withdrawalQuote?: WithdrawalQuote;
}

function isFetchError(error: unknown): error is FetchBaseQueryError {
  return typeof error === 'object' && error !== null && 'status' in error;
}

// Reads what the server said out of an RTK Query error (a rejected unwrap() or a hook's error).
// The server's message is shown when present (docs/product-rules.md); callers supply the fallback.
export function apiErrorInfo(error: unknown): ApiErrorInfo {
  if (!isFetchError(error)) return { status: 'unknown', message: (error as SerializedError | undefined)?.message };
  // An answer that is not JSON (a proxy's error page, say) came from a server all the same.
  if (error.status === 'PARSING_ERROR') return { status: error.originalStatus };
  if (typeof error.status !== 'number') return { status: 'network' };
  const data = error.data as
    | { message?: unknown; code?: unknown; field?: unknown; until?: unknown; investmentQuote?: unknown; withdrawalQuote?: unknown }
    | undefined;
  const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const obj = <T,>(value: unknown) => (typeof value === 'object' && value !== null ? (value as T) : undefined);
  return {
    status: error.status,
    message: str(data?.message),
    code: str(data?.code),
    field: str(data?.field),
    until: str(data?.until),
    investmentQuote: obj<InvestmentQuote>(data?.investmentQuote),
    withdrawalQuote: obj<WithdrawalQuote>(data?.withdrawalQuote),
  };
}

export function errorMessage(error: unknown, fallback: string) {
  const info = apiErrorInfo(error);
  if (info.status === 'network') return 'Cannot reach Clearvest. Check your connection and try again.';
  return info.message ?? fallback;
}

import { useEffect } from 'react';
import { api, useSettleMaturedInvestmentsQuery } from '../api/enhanced';
import { useAppDispatch } from '../app/hooks';

// The dashboard asks the server to pay out the user's investments that reached their end date
// (the maturity job does it for everyone within seconds; this makes it immediate for the one
// looking). When something was paid out, the figures and the list are read again.
export function useSettleDueInvestments() {
  const dispatch = useAppDispatch();
  const { data } = useSettleMaturedInvestmentsQuery(undefined, { refetchOnMountOrArgChange: true });
  useEffect(() => {
    if (data && data.settled.length > 0) dispatch(api.util.invalidateTags(['Me', { type: 'Investment', id: 'LIST' }]));
  }, [data, dispatch]);
}

import { useEffect } from 'react';
import { api, useSettleMaturedInvestmentsMutation } from '../api/enhanced';
import { useAppDispatch } from '../app/hooks';

// The dashboard asks the server to pay out the user's investments that reached their end date
// (the maturity job does it for everyone within seconds; this makes it immediate for the one
// looking). It is a POST, since it may move money, sent once each time the page opens. When
// something was paid out, the figures and the list are read again. Not sent when enabled is false
// (a staff member viewing the site as the user, whose changes the server refuses).
export function useSettleDueInvestments(enabled = true) {
  const dispatch = useAppDispatch();
  const [settle] = useSettleMaturedInvestmentsMutation();
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    settle()
      .unwrap()
      .then((data) => {
        if (current && data.settled.length > 0) dispatch(api.util.invalidateTags(['Me', { type: 'Investment', id: 'LIST' }]));
      })
      // The maturity job settles it anyway within seconds; nothing to tell the user here.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [settle, dispatch, enabled]);
}

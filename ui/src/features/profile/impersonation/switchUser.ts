import { useEffect, useRef } from 'react';
import { api, switchedUserInvalidates } from '../../../api/enhanced';
import { useAppDispatch } from '../../../app/hooks';
import type { AppDispatch } from '../../../app/store';
import { useCurrentUser } from '../../auth/session';

// After starting or leaving a view-as-user session the cookie names someone else. First the
// signed-in user is read again, so the next page renders as, and asks only what, the new person
// may; then the page changes.
// A read of the user already under way (a live refresh, say) was sent with the previous person's
// cookie, and RTK Query hands a forced read that answer instead of asking again: the page would
// go on as the previous person, and ask their questions with the new person's cookie. So that
// read is waited for first, and the user is then read as the new person.
export async function switchUser(dispatch: AppDispatch, go: () => void) {
  const earlier = dispatch(api.util.getRunningQueryThunk('getUser', {}));
  if (earlier) await earlier;
  await dispatch(api.endpoints.getUser.initiate({}, { forceRefetch: true, subscribe: false }));
  go();
}

// Drops the previous person's cached data once the signed-in user has changed (a view-as-user
// session started or ended). It runs as an effect of the last part of the layout, after the old
// page's queries have unsubscribed: dropping them earlier would ask the old page's questions (a
// staff list, the queue counts) as the new person, who may not see them.
export function useDropPreviousPerson() {
  const dispatch = useAppDispatch();
  const user = useCurrentUser().data;
  // Who, and whether as a view: a sign-in drops the previous person's data by itself (enhanced.ts).
  const who = user ? `${user._id}${user.isImpersonated ? ' viewed' : ''}` : undefined;
  const previous = useRef(who);
  useEffect(() => {
    const before = previous.current;
    if (who) previous.current = who;
    if (!before || !who || before === who) return;
    if (before.endsWith(' viewed') || who.endsWith(' viewed')) dispatch(api.util.invalidateTags([...switchedUserInvalidates]));
  }, [dispatch, who]);
}

export function DropPreviousPerson() {
  useDropPreviousPerson();
  return null;
}

import { api, switchedUserInvalidates } from '../../../api/enhanced';
import type { AppDispatch } from '../../../app/store';

// After starting or leaving a view-as-user session the cookie names someone else. The order
// matters: first the signed-in user is read again (so the next page renders as, and asks only
// what, the new person may), then the page changes, and only then is the rest of the previous
// person's data dropped: dropping it first would ask the old page's questions as the new person.
export async function switchUser(dispatch: AppDispatch, go: () => void) {
  await dispatch(api.endpoints.getUser.initiate({}, { forceRefetch: true, subscribe: false }));
  go();
  dispatch(api.util.invalidateTags([...switchedUserInvalidates]));
}

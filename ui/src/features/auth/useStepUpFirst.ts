import { useCallback } from 'react';
import { api } from '../../api/enhanced';
import { askForStepUp } from '../../api/stepUp';
import { useAppDispatch } from '../../app/hooks';
import { useCurrentUser } from './session';

// An operation that needs the person, not just the session (docs/security.md, "Step-up"), asks
// them before it is sent, so the usual path never meets the server's 403 step_up_required: that
// answer stays for a confirmation that runs out in between, and the base query handles it.
// Resolves false when the person declined; when the state cannot be read, the request goes on and
// the server decides.
// In a view-as-user session nobody is asked: the server refuses the change itself, with the
// message that says why.
export function useStepUpFirst() {
  const dispatch = useAppDispatch();
  const impersonating = useCurrentUser().data?.isImpersonated === true;
  return useCallback(async () => {
    if (impersonating) return true;
    const state = await dispatch(api.endpoints.getStepUp.initiate(undefined, { forceRefetch: true, subscribe: false }));
    if (!state.data || state.data.confirmed) return true;
    return askForStepUp();
  }, [dispatch, impersonating]);
}

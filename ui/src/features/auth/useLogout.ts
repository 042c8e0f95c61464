import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/enhanced';
import { useAppDispatch } from '../../app/hooks';
import { useToast } from '../../components/toast/useToast';
import { loggedOut } from './authSlice';

export function useLogout() {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const toast = useToast();
  return useCallback(
    async ({ quiet = false }: { quiet?: boolean } = {}) => {
      try {
        // logout is a GET in the contract, so it is a query; forceRefetch makes it run every time.
        const { message } = await dispatch(
          api.endpoints.logout.initiate(undefined, { subscribe: false, forceRefetch: true }),
        ).unwrap();
        if (!quiet) toast.success(message);
      } catch {
        // The server signs out even without a session; if it cannot be reached, this browser
        // still forgets the user, which is what they asked for.
      }
      dispatch(loggedOut());
      // Pages showing personal data unmount with the navigation and their cache entries expire;
      // the next sign-in drops whatever is left (see enhanced.ts).
      dispatch(api.util.invalidateTags(['AuthStatus']));
      navigate('/login');
    },
    [dispatch, navigate, toast],
  );
}

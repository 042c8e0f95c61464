import { useGetMetaQuery } from '../api/enhanced';
import { selectIsLoggedIn } from '../features/auth/authSlice';
import { useCurrentUser } from '../features/auth/session';
import { useAppSelector } from './hooks';
import type { Viewer } from './routes';

// Who is looking, for deciding which links of the route table to show.
export function useViewer(): Viewer {
  const signedIn = useAppSelector(selectIsLoggedIn);
  const { data: user } = useCurrentUser();
  const { data: meta } = useGetMetaQuery();
  return { signedIn, role: user?.role, development: meta?.environment === 'development' };
}

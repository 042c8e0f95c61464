import { useGetUserQuery, type Role } from '../../api/enhanced';
import { useAppSelector } from '../../app/hooks';
import { selectIsLoggedIn } from './authSlice';

// Authors and admins: the staff (docs/product-rules.md, "Roles").
export const STAFF_ROLES: readonly Role[] = ['author', 'admin'];
export const isStaff = (role: Role | undefined) => role !== undefined && STAFF_ROLES.includes(role);

// The signed-in user, straight from the getUser query's cache: loaded once the session is known,
// refreshed whenever a change invalidates it, and never asked for while signed out (the result
// is then empty, so a page cannot show the previous user's data).
export function useCurrentUser() {
  const isLoggedIn = useAppSelector(selectIsLoggedIn);
  return useGetUserQuery({}, { skip: !isLoggedIn });
}

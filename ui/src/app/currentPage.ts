import { useMatches } from 'react-router';
import type { PageRoute } from './routes';

// Each route built from the route table carries its entry as the route's handle (router.tsx).
export interface PageHandle {
  page: PageRoute;
}

export const isPageHandle = (handle: unknown): handle is PageHandle => typeof handle === 'object' && handle !== null && 'page' in handle;

// The route table's entry of the page showing now, if a page matched.
export function useCurrentPage(): PageRoute | undefined {
  return useMatches()
    .map((match) => match.handle)
    .filter(isPageHandle)
    .pop()?.page;
}

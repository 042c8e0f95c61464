import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
  type FetchBaseQueryMeta,
} from '@reduxjs/toolkit/query/react';
import { POSITION_HEADER, positionSeen, positionSlice, type PositionState } from './position';

const rawBaseQuery = fetchBaseQuery({
  baseUrl: '/api',
  credentials: 'same-origin',
  prepareHeaders(headers, { getState }) {
    // The server refuses cookie-authenticated unsafe requests without it (CSRF defence, §5).
    headers.set('X-Requested-With', 'XMLHttpRequest');
    const position = positionSlice.selectors.selectHighestPosition(
      getState() as { [positionSlice.reducerPath]: PositionState },
    );
    if (position !== null) headers.set(POSITION_HEADER, position);
    return headers;
  },
});

const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError, object, FetchBaseQueryMeta> =
  async (args, api, extraOptions) => {
    const result = await rawBaseQuery(args, api, extraOptions);
    // Error responses count too: a 409 or 422 may still report how far the log has moved.
    const seen = result.meta?.response?.headers.get(POSITION_HEADER);
    if (seen) api.dispatch(positionSeen(seen));
    return result;
  };

// The one API slice of the app. Endpoints are injected by the generated code (generated.ts) and
// given cache tags in enhanced.ts; components import hooks from enhanced.ts.
export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery,
  endpoints: () => ({}),
});

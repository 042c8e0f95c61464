import { generatedApi } from './generated';

// Cache tags are a client concern the OpenAPI document cannot express, so they are added here
// rather than by editing generated.ts. List queries should provide {type, id: 'LIST'} and
// mutations invalidate only what they change.
export const api = generatedApi.enhanceEndpoints({
  addTagTypes: ['Meta'],
  endpoints: {
    getMeta: {
      providesTags: ['Meta'],
    },
  },
});

export const { useGetMetaQuery } = api;
export type { Meta } from './generated';

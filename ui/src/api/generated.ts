import { baseApi as api } from "./baseApi";
const injectedRtkApi = api.injectEndpoints({
  endpoints: (build) => ({
    getMeta: build.query<GetMetaApiResponse, GetMetaApiArg>({
      query: () => ({ url: `/meta` }),
    }),
  }),
  overrideExisting: false,
});
export { injectedRtkApi as generatedApi };
export type GetMetaApiResponse = /** status 200 Server metadata */ Meta;
export type GetMetaApiArg = void;
export type Meta = {
  product: "Clearvest";
  /** Build version of the server ("dev" for local builds). */
  version: string;
  environment: "development" | "production";
};
export type Error = {
  /** What went wrong, worded for the user; safe to show as-is. */
  message: string;
  /** The input at fault, when the error is about one field. */
  field?: string;
};
export const { useGetMetaQuery } = injectedRtkApi;

import { api } from './enhanced';

// Cache tags of the social-proof endpoints (features/community), kept beside the other
// enhancements but in a file of their own. 'Testimonials' is the public list, 'TestimonialQueue'
// the staff queue, 'MyTestimonial' the dashboard card, 'Badge' the signed-in user's level. The
// public reads are the same for every visitor; the signed-in ones are read afresh when their
// page opens, so whoever signs in next never sees the previous user's.
export const communityApi = api.enhanceEndpoints({
  addTagTypes: ['Testimonials', 'TestimonialQueue', 'MyTestimonial', 'Badge', 'PublicActivity', 'PublicStats', 'BadgeLevels'],
  endpoints: {
    listTestimonials: { providesTags: ['Testimonials'] },
    submitTestimonial: { invalidatesTags: ['MyTestimonial', 'TestimonialQueue'] },
    getMyTestimonial: { providesTags: ['MyTestimonial'] },
    getPendingTestimonials: { providesTags: ['TestimonialQueue'] },
    approveTestimonial: { invalidatesTags: ['TestimonialQueue', 'Testimonials'] },
    rejectTestimonial: { invalidatesTags: ['TestimonialQueue'] },
    getPublicActivity: { providesTags: ['PublicActivity'] },
    getPublicStats: { providesTags: ['PublicStats'] },
    listBadges: { providesTags: ['BadgeLevels'], keepUnusedDataFor: 3600 },
    getMyBadge: { providesTags: ['Badge'] },
  },
});

export const {
  useListTestimonialsQuery,
  useSubmitTestimonialMutation,
  useGetMyTestimonialQuery,
  useGetPendingTestimonialsQuery,
  useApproveTestimonialMutation,
  useRejectTestimonialMutation,
  useGetPublicActivityQuery,
  useGetPublicStatsQuery,
  useListBadgesQuery,
  useGetMyBadgeQuery,
} = communityApi;

export type {
  ActivityItem,
  BadgeLevel,
  BadgeName,
  MyBadge,
  MyTestimonial,
  OwnTestimonial,
  PublicStats,
  Testimonial,
  TestimonialQueueItem,
} from './generated';

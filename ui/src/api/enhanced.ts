import { generatedApi, type LoginPending, type User } from './generated';

// Cache tags are a client concern the OpenAPI document cannot express, so they are added here
// rather than by editing generated.ts. List queries provide {type, id: 'LIST'} and mutations
// invalidate only what they change.
//
// 'AuthStatus' is loginStatus, 'Me' the signed-in user, 'Session' their sessions, 'SecurityLog'
// their log, 'User' the staff user list, 'Kyc' the signed-in user's identity check, 'KycQueue'
// the staff queue, 'KycCase' one user's case (by user id), 'Eligibility' whether they may invest, 'Plan' the plan catalogue. Signing in drops or refreshes everything cached for
// whoever was signed in before; loginStatus is not asked again because the sign-in answer itself
// says who is signed in.
const userList = { type: 'User', id: 'LIST' } as const;

// A sign-in answers with the user, so the cache of getUser holds the new user at once and a page
// never shows the previous one while the refetch runs. The access token in that answer is for
// API clients; the browser's cookie carries the session, so the token is not kept where any
// script could read it.
// A sign-in that needs one more step answers 202 with the step instead of the user, not a
// session: `new_device` (a code was e-mailed to the account) or `totp` (the authenticator's code).
export function isLoginPending(data: unknown): data is LoginPending {
  const status = typeof data === 'object' && data !== null ? (data as { status?: unknown }).status : undefined;
  return status === 'new_device' || status === 'totp';
}

// The 202 of a new browser: the login code is on its way by e-mail.
export const isNewDevice = (data: unknown): data is LoginPending => isLoginPending(data) && data.status === 'new_device';
// The 202 of an account with an authenticator app: send the same request again with totpCode.
export const isTotpStep = (data: unknown): data is LoginPending => isLoginPending(data) && data.status === 'totp';

const cacheSignedInUser = {
  async onQueryStarted(
    _arg: unknown,
    { dispatch, queryFulfilled }: { dispatch: (action: unknown) => unknown; queryFulfilled: Promise<{ data: User | LoginPending }> },
  ) {
    let user: User;
    try {
      const { data } = await queryFulfilled;
      if (isLoginPending(data)) return;
      user = data;
    } catch {
      return;
    }
    const withoutToken = { ...user };
    delete withoutToken.token;
    dispatch(api.util.upsertQueryEntries([{ endpointName: 'getUser', arg: {}, value: withoutToken }]));
  },
};
const signedInData = [
  'Me',
  { type: 'Session', id: 'LIST' },
  { type: 'SecurityLog', id: 'LIST' },
  userList,
  { type: 'DevMail', id: 'LIST' },
  'Kyc',
  'KycQueue',
  'KycCase',
  'Eligibility',
  'Deposit',
  'DepositQueue',
  'Withdrawal',
  'WithdrawalQueue',
  'WithdrawalHistory',
  'Investment',
  'InvestmentQueue',
  'History',
  'Dashboard',
  'Proposal',
  'Passkey',
] as const;

// What a KYC upload changes: the user's status (on getUser), their case, whether they may invest,
// and the staff queue. The upload itself runs on XMLHttpRequest for its progress events
// (features/kyc), which then invalidates these.
// Viewing as a user, and back (features/profile/impersonation): everything cached belongs to the
// other person. Dropped after the switch, once the page showing it has gone.
export const switchedUserInvalidates = signedInData.filter((tag) => tag !== 'Me');

export const kycUploadInvalidates = ['Me', 'Kyc', 'Eligibility', 'KycQueue', userList] as const;

export const api = generatedApi.enhanceEndpoints({
  addTagTypes: ['Meta', 'AuthStatus', 'Me', 'Session', 'SecurityLog', 'User', 'Country', 'DevMail', 'Kyc', 'KycQueue', 'KycCase', 'Eligibility', 'Plan', 'DepositAddress', 'Deposit', 'DepositQueue', 'Investment', 'InvestmentQueue', 'Withdrawal', 'WithdrawalQueue', 'WithdrawalHistory', 'History', 'Dashboard', 'Referrals', 'Content', 'SupportTicket', 'Proposal', 'Settings', 'Passkey', 'TestimonialQueue', 'EmailBroadcast'],
  endpoints: {
    getMeta: { providesTags: ['Meta'] },

    loginStatus: { providesTags: ['AuthStatus'] },
    getUser: { providesTags: ['Me'] },
    register: { invalidatesTags: [...signedInData], ...cacheSignedInUser },
    login: { invalidatesTags: (result) => (isLoginPending(result) ? [] : [...signedInData]), ...cacheSignedInUser },
    loginWithCode: { invalidatesTags: (result) => (isLoginPending(result) ? [] : [...signedInData]), ...cacheSignedInUser },
    googleLink: { invalidatesTags: (result) => (isLoginPending(result) ? [] : [...signedInData]), ...cacheSignedInUser },
    loginWithPasskey: { invalidatesTags: [...signedInData], ...cacheSignedInUser },
    listPasskeys: { providesTags: ['Passkey'] },
    finishPasskeyRegistration: { invalidatesTags: ['Passkey', { type: 'SecurityLog', id: 'LIST' }] },
    removePasskey: { invalidatesTags: ['Passkey', { type: 'SecurityLog', id: 'LIST' }] },

    updateUser: { invalidatesTags: ['Me', { type: 'SecurityLog', id: 'LIST' }, userList] },
    uploadPhoto: {
      // The generator cannot express multipart bodies; this is the one hand-written request.
      query: ({ body }) => {
        const form = new FormData();
        form.append('photo', body.photo);
        return { url: '/users/photo', method: 'POST', body: form };
      },
      invalidatesTags: ['Me', userList],
    },
    verifyUser: { invalidatesTags: ['Me', { type: 'SecurityLog', id: 'LIST' }, userList] },
    changePassword: { invalidatesTags: [{ type: 'Session', id: 'LIST' }, { type: 'SecurityLog', id: 'LIST' }] },

    listSessions: { providesTags: [{ type: 'Session', id: 'LIST' }] },
    endSession: { invalidatesTags: [{ type: 'Session', id: 'LIST' }, { type: 'SecurityLog', id: 'LIST' }] },
    revokeOtherSessions: { invalidatesTags: [{ type: 'Session', id: 'LIST' }, { type: 'SecurityLog', id: 'LIST' }] },
    enableTwoFactor: { invalidatesTags: ['Me', { type: 'SecurityLog', id: 'LIST' }] },
    disableTwoFactor: { invalidatesTags: ['Me', { type: 'SecurityLog', id: 'LIST' }] },
    getSecurityLog: { providesTags: [{ type: 'SecurityLog', id: 'LIST' }] },

    getUsers: {
      providesTags: (users) => [userList, ...(users ?? []).map((u) => ({ type: 'User' as const, id: u._id }))],
    },
    listUsers: {
      providesTags: (page) => [userList, ...(page?.users ?? []).map((u) => ({ type: 'User' as const, id: u._id }))],
    },
    // Granting the admin role and closing an account open a proposal instead (202).
    upgradeUser: { invalidatesTags: (_r, _e, arg) => [userList, { type: 'User', id: arg.upgradeUserRequest.id }, 'Proposal'] },
    suspendUser: { invalidatesTags: (_r, _e, arg) => [userList, { type: 'User', id: arg.id }] },
    reinstateUser: { invalidatesTags: (_r, _e, arg) => [userList, { type: 'User', id: arg.id }] },
    deleteUser: { invalidatesTags: (_r, _e, arg) => [userList, { type: 'User', id: arg.id }, 'Proposal'] },

    uploadKycDocuments: {
      query: ({ body }) => {
        const form = new FormData();
        if (body.front) form.append('front', body.front);
        if (body.back) form.append('back', body.back);
        return { url: '/users/uploadKycDocuments', method: 'POST', body: form };
      },
      invalidatesTags: [...kycUploadInvalidates],
    },
    getMyKyc: { providesTags: ['Kyc'] },
    getPendingKyc: { providesTags: ['KycQueue'] },
    getKycCase: { providesTags: (_r, _e, arg) => [{ type: 'KycCase', id: arg.id }] },
    approveKyc: {
      invalidatesTags: (_r, _e, arg) => ['KycQueue', { type: 'KycCase', id: arg.id }, userList, { type: 'User', id: arg.id }],
    },
    rejectKyc: {
      invalidatesTags: (_r, _e, arg) => ['KycQueue', { type: 'KycCase', id: arg.id }, userList, { type: 'User', id: arg.id }],
    },
    getInvestEligibility: { providesTags: ['Eligibility'] },
    // The same for everyone; terms change rarely, and a page opened again asks again.
    listPlans: { providesTags: ['Plan'] },

    // Deposits. A decision credits the wallet, so it refreshes the signed-in user too (staff
    // deciding someone else's deposit see their own figures unchanged, which is right).
    listDepositAddresses: { providesTags: ['DepositAddress'] },
    createDeposit: { invalidatesTags: ['Me', 'DepositQueue', 'History', 'Dashboard'] },
    viewPaymentStatus: { providesTags: (_r, _e, arg) => [{ type: 'Deposit', id: arg.transactionId }] },
    getPendingDeposits: { providesTags: ['DepositQueue'] },
    confirmDeposit: {
      invalidatesTags: (_r, _e, arg) => [
        'DepositQueue',
        'Me',
        'History',
        'Dashboard',
        'Proposal',
        { type: 'Deposit', id: arg.confirmDepositRequest.transactionId },
      ],
    },
    rejectDeposit: {
      invalidatesTags: (_r, _e, arg) => ['DepositQueue', 'History', 'Dashboard', { type: 'Deposit', id: arg.rejectDepositRequest.transactionId }],
    },

    // The money history and the dashboard built from it (features/history). Live refresh
    // invalidates these with 'Me' whenever the server says the user's money changed.
    getTransactionHistory: { providesTags: ['History'] },
    getDashboard: { providesTags: ['Dashboard'] },
    // The statement is CSV, read as text and handed to the browser as a file; never cached.
    getStatement: {
      query: (arg) => ({ url: '/invest/statement.csv', params: { from: arg.from, to: arg.to }, responseHandler: 'text' }),
      keepUnusedDataFor: 0,
    },

    // Withdrawals. A request holds money and a decision may charge the fee or release the hold,
    // so both refresh the signed-in user's figures.
    createWithdrawal: { invalidatesTags: ['Me', 'WithdrawalQueue', 'WithdrawalHistory'] },
    getWithdrawal: { providesTags: (_r, _e, arg) => [{ type: 'Withdrawal', id: arg.id }] },
    getWithdrawalHistory: { providesTags: ['WithdrawalHistory'] },
    getPendingWithdrawals: { providesTags: ['WithdrawalQueue'] },
    approveWithdrawal: {
      invalidatesTags: (_r, _e, arg) => ['WithdrawalQueue', 'WithdrawalHistory', 'Me', 'Proposal', { type: 'Withdrawal', id: arg.id }],
    },
    rejectWithdrawal: { invalidatesTags: (_r, _e, arg) => ['WithdrawalQueue', 'WithdrawalHistory', 'Me', { type: 'Withdrawal', id: arg.id }] },
    // The four-eyes queue (features/approvals). An approval carries out the decision it approves
    // (a credit, a payout, a role, a closure), so it refreshes whatever that decision touches.
    getProposals: { providesTags: ['Proposal'] },
    // The shell's counts beside each staff queue: a decision in any queue changes them.
    getQueueCounts: { providesTags: ['DepositQueue', 'WithdrawalQueue', 'InvestmentQueue', 'KycQueue', 'Proposal', 'SupportTicket', 'TestimonialQueue'] },
    approveProposal: {
      invalidatesTags: ['Proposal', 'DepositQueue', 'Deposit', 'WithdrawalQueue', 'Withdrawal', 'WithdrawalHistory', 'History', 'Dashboard', 'Me', userList, 'User'],
    },
    rejectProposal: { invalidatesTags: ['Proposal'] },
    // The admins' settings (features/settings). A change is in force at once, so what it feeds
    // (the fee, the addresses, the plans, the thresholds) is asked again.
    getSettings: { providesTags: ['Settings'] },
    updateSettings: { invalidatesTags: ['Settings', 'DepositAddress', 'Proposal', 'Content', 'Referrals'] },
    createPlan: { invalidatesTags: ['Settings', 'Plan'] },
    newPlanVersion: { invalidatesTags: ['Settings', 'Plan'] },
    retirePlan: { invalidatesTags: ['Settings', 'Plan'] },
    // One user's money as staff correct it (features/corrections): 'User' with the user's id.
    getUserMoney: { providesTags: (_r, _e, arg) => [{ type: 'User', id: arg.id }], keepUnusedDataFor: 0 },
    postCorrection: { invalidatesTags: (_r, _e, arg) => [{ type: 'User', id: arg.id }, 'Proposal', 'History', 'Dashboard'] },
    editReturns: {},
    waiveFee: { invalidatesTags: (_r, _e, arg) => [{ type: 'User', id: arg.id }, 'Withdrawal', 'WithdrawalHistory', 'History', 'Dashboard'] },
    updateFees: { invalidatesTags: (_r, _e, arg) => [{ type: 'User', id: arg.id }, 'Withdrawal', 'WithdrawalHistory', 'History', 'Dashboard'] },
    setFeeExemption: { invalidatesTags: (_r, _e, arg) => [{ type: 'User', id: arg.id }] },
    // Investments. 'Investment' with an id is one investment, with 'LIST' the caller's list; a
    // start, a decision, a maturity or a redemption moves money, so they refresh the signed-in
    // user's figures too.
    getInvestmentQuote: { keepUnusedDataFor: 0 },
    startInvestment: { invalidatesTags: ['Me', 'InvestmentQueue', { type: 'Investment', id: 'LIST' }] },
    getInvestmentHistory: { providesTags: [{ type: 'Investment', id: 'LIST' }] },
    getInvestment: { providesTags: (_r, _e, arg) => [{ type: 'Investment', id: arg.investmentId }] },
    getPendingInvestments: { providesTags: ['InvestmentQueue'] },
    approveInvestment: {
      invalidatesTags: (_r, _e, arg) => ['InvestmentQueue', { type: 'Investment', id: arg.investmentId }, { type: 'Investment', id: 'LIST' }],
    },
    rejectInvestment: {
      invalidatesTags: (_r, _e, arg) => ['InvestmentQueue', { type: 'Investment', id: arg.investmentId }, { type: 'Investment', id: 'LIST' }],
    },
    setMaturityInstruction: { invalidatesTags: (_r, _e, arg) => [{ type: 'Investment', id: arg.investmentId }, { type: 'Investment', id: 'LIST' }] },
    previewEarlyRedemption: { keepUnusedDataFor: 0 },
    redeemEarly: {
      invalidatesTags: (_r, _e, arg) => ['Me', { type: 'Investment', id: arg.investmentId }, { type: 'Investment', id: 'LIST' }],
    },

    // The list is the same for everyone and changes with a release, not a session.
    // Referrals. The bonus is credited in the background after a deposit is confirmed, so the page
    // reads the list afresh whenever it opens.
    getReferrals: { providesTags: ['Referrals'] },

    getCountries: { providesTags: ['Country'], keepUnusedDataFor: 3600 },
    // Public prices from the server's cache, which changes every 15 minutes at most.
    getMarketCandles: { keepUnusedDataFor: 300 },

    listDevMail: { providesTags: [{ type: 'DevMail', id: 'LIST' }] },
    getDevMail: { providesTags: (_r, _e, arg) => [{ type: 'DevMail', id: arg.id }] },

    // Site content (features/content): the operator edits it on the server, so it is kept for a
    // few minutes and read again on the next visit after that. Support tickets (features/support):
    // a reply or closing changes the staff queue.
    getContentFaq: { providesTags: ['Content'], keepUnusedDataFor: 300 },
    getContentTeam: { providesTags: ['Content'], keepUnusedDataFor: 300 },
    getContentHowItWorks: { providesTags: ['Content'], keepUnusedDataFor: 300 },
    getContentSupport: { providesTags: ['Content'], keepUnusedDataFor: 300 },
    getContentPage: { providesTags: (_r, _e, arg) => [{ type: 'Content', id: arg.slug }], keepUnusedDataFor: 300 },
    listSupportTickets: { providesTags: [{ type: 'SupportTicket', id: 'LIST' }] },
    createSupportTicket: { invalidatesTags: [{ type: 'SupportTicket', id: 'LIST' }] },
    replySupportTicket: { invalidatesTags: [{ type: 'SupportTicket', id: 'LIST' }] },
    closeSupportTicket: { invalidatesTags: [{ type: 'SupportTicket', id: 'LIST' }] },

    // The audit screens (features/audit): reads only; the CSV is text handed to the browser as a
    // file, never cached.
    getAuditLogCsv: {
      query: (arg) => ({
        url: '/audit/log.csv',
        params: { actor: arg.actor, target: arg.target, kind: arg.kind, from: arg.from, to: arg.to },
        responseHandler: 'text',
      }),
      keepUnusedDataFor: 0,
    },
    // Staff e-mail (features/compose-email): a send or a cancellation changes the list of sends.
    listEmailBroadcasts: { providesTags: [{ type: 'EmailBroadcast', id: 'LIST' }] },
    getEmailBroadcast: { providesTags: (_r, _e, arg) => [{ type: 'EmailBroadcast', id: arg.id }] },
    sendComposedEmail: { invalidatesTags: (_r, _e, arg) => (arg.composeEmailRequest.preview ? [] : [{ type: 'EmailBroadcast', id: 'LIST' }]) },
    sendAutomatedEmail: { invalidatesTags: [{ type: 'EmailBroadcast', id: 'LIST' }] },
    cancelEmailBroadcast: { invalidatesTags: (_r, _e, arg) => [{ type: 'EmailBroadcast', id: 'LIST' }, { type: 'EmailBroadcast', id: arg.id }] },
  },
});

export const {
  useGetMetaQuery,
  useRegisterMutation,
  useLoginMutation,
  useLoginStatusQuery,
  useGetUserQuery,
  useUpdateUserMutation,
  useSetLanguageMutation,
  useUploadPhotoMutation,
  useSendVerificationEmailMutation,
  useVerifyUserMutation,
  useChangePasswordMutation,
  useStepUpMutation,
  useGetStepUpQuery,
  useForgotPasswordMutation,
  useResetPasswordMutation,
  useSecureAccountMutation,
  useSendLoginCodeMutation,
  useLoginWithCodeMutation,
  useGoogleLinkMutation,
  useImpersonateUserMutation,
  useExitImpersonationMutation,
  useListSessionsQuery,
  useEndSessionMutation,
  useRevokeOtherSessionsMutation,
  useSetupTwoFactorMutation,
  useListPasskeysQuery,
  useBeginPasskeyRegistrationMutation,
  useFinishPasskeyRegistrationMutation,
  useRemovePasskeyMutation,
  useBeginPasskeyLoginMutation,
  useLoginWithPasskeyMutation,
  useBeginPasskeyStepUpMutation,
  useEnableTwoFactorMutation,
  useDisableTwoFactorMutation,
  useGetSecurityLogQuery,
  useGetUsersQuery,
  useListUsersQuery,
  useUpgradeUserMutation,
  useSuspendUserMutation,
  useReinstateUserMutation,
  useDeleteUserMutation,
  useGetCountriesQuery,
  useListDevMailQuery,
  useGetDevMailQuery,
  useGetMyKycQuery,
  useGetPendingKycQuery,
  useGetKycCaseQuery,
  useApproveKycMutation,
  useRejectKycMutation,
  useGetInvestEligibilityQuery,
  useListPlansQuery,
  useListDepositAddressesQuery,
  useCreateDepositMutation,
  useViewPaymentStatusQuery,
  useGetPendingDepositsQuery,
  useConfirmDepositMutation,
  useRejectDepositMutation,
  useCreateWithdrawalMutation,
  useLazyQuoteWithdrawalQuery,
  useQuoteWithdrawalQuery,
  useGetWithdrawalQuery,
  useGetWithdrawalHistoryQuery,
  useGetPendingWithdrawalsQuery,
  useApproveWithdrawalMutation,
  useRejectWithdrawalMutation,
  useGetProposalsQuery,
  useApproveProposalMutation,
  useGetUserMoneyQuery,
  usePostCorrectionMutation,
  useWaiveFeeMutation,
  useSetFeeExemptionMutation,
  useRejectProposalMutation,
  useLazyGetInvestmentQuoteQuery,
  useStartInvestmentMutation,
  useGetInvestmentHistoryQuery,
  useGetInvestmentQuery,
  useGetPendingInvestmentsQuery,
  useApproveInvestmentMutation,
  useRejectInvestmentMutation,
  useSettleMaturedInvestmentsMutation,
  useSetMaturityInstructionMutation,
  useLazyPreviewEarlyRedemptionQuery,
  useRedeemEarlyMutation,
  useGetTransactionHistoryQuery,
  useLazyGetStatementQuery,
  useGetDashboardQuery,
  useGetReferralsQuery,
  useGetMarketCandlesQuery,
  useGetContentFaqQuery,
  useGetContentTeamQuery,
  useGetContentHowItWorksQuery,
  useGetContentSupportQuery,
  useGetContentPageQuery,
  useCreateSupportTicketMutation,
  useListSupportTicketsQuery,
  useReplySupportTicketMutation,
  useCloseSupportTicketMutation,
  useGetQueueCountsQuery,
  useGetChainStatusQuery,
  useGetAuditLogQuery,
  useLazyGetAuditLogCsvQuery,
  useGetAuditEventsQuery,
  useGetAuditBooksQuery,
  useGetSettingsQuery,
  useUpdateSettingsMutation,
  useCreatePlanMutation,
  useNewPlanVersionMutation,
  useRetirePlanMutation,
  useSendComposedEmailMutation,
  useSendAutomatedEmailMutation,
  useListEmailBroadcastsQuery,
  useGetEmailBroadcastQuery,
  useCancelEmailBroadcastMutation,
} = api;
export type {
  AuditAccount,
  AuditBooks,
  AuditEntry,
  AuditEvent,
  AuditEventPage,
  AuditLogPage,
  Settings,
  SettingsChange,
  SettingsPlan,
  SettingsValues,
  SettingsAddress,
  EmailAudience,
  EmailBroadcast,
  EmailPreview,
  ApprovalThresholds,
  QueueCounts,
  ChainNetworkStatus,
  Proposal,
  ProposalCreated,
  ProposalKind,
  ProposalList,
  ContentFaq,
  ContentFaqItem,
  ContentHowItWorks,
  ContentPage,
  ContentStep,
  ContentSupport,
  ContentTeam,
  ContentTeamMember,
  SupportTicket,
  SupportTicketQueue,
  Country,
  Dashboard,
  HistoryItem,
  HistoryType,
  Movement,
  MovementKind,
  MovementPage,
  MovementStatus,
  Deposit,
  DepositAddress,
  DepositQueue,
  DepositQueueItem,
  DepositStatus,
  DevMail,
  DevMailSummary,
  EarlyRedemption,
  InvestEligibility,
  LoginPending,
  Investment,
  InvestmentQueue,
  InvestmentQueueItem,
  InvestmentQuote,
  InvestmentStatus,
  MaturityInstruction,
  KycCase,
  KycDecision,
  KycDocument,
  KycDocumentRejection,
  KycQueue,
  KycQueueItem,
  KycRejectionReason,
  KycSide,
  KycStatus,
  KycSubmission,
  KycSubmitted,
  MarketCandle,
  MarketCandles,
  Meta,
  MyKyc,
  Passkey,
  PasskeyCeremony,
  Plan,
  PlanExample,
  Referral,
  Referrals,
  Role,
  Language,
  SecurityLogEntry,
  Session,
  User,
  UserPage,
  ListUsersApiArg,
  Withdrawal,
  WithdrawalQueue,
  WithdrawalQueueItem,
  WithdrawalQuote,
  WithdrawalStatus,
  UserMoney,
  StaffFee,
  StaffInvestment,
  CorrectionRequest,
} from './generated';

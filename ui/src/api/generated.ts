import { baseApi as api } from "./baseApi";
const injectedRtkApi = api.injectEndpoints({
  endpoints: (build) => ({
    getMeta: build.query<GetMetaApiResponse, GetMetaApiArg>({
      query: () => ({ url: `/meta` }),
    }),
    register: build.mutation<RegisterApiResponse, RegisterApiArg>({
      query: (queryArg) => ({
        url: `/users/register`,
        method: "POST",
        body: queryArg.registerRequest,
        params: {
          ref: queryArg.ref,
        },
      }),
    }),
    login: build.mutation<LoginApiResponse, LoginApiArg>({
      query: (queryArg) => ({
        url: `/users/login`,
        method: "POST",
        body: queryArg.loginRequest,
      }),
    }),
    logout: build.query<LogoutApiResponse, LogoutApiArg>({
      query: () => ({ url: `/users/logout` }),
    }),
    loginStatus: build.query<LoginStatusApiResponse, LoginStatusApiArg>({
      query: () => ({ url: `/users/loginStatus` }),
    }),
    refreshSession: build.mutation<
      RefreshSessionApiResponse,
      RefreshSessionApiArg
    >({
      query: () => ({ url: `/users/refresh`, method: "POST" }),
    }),
    getUser: build.query<GetUserApiResponse, GetUserApiArg>({
      query: (queryArg) => ({
        url: `/users/getUser`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    updateUser: build.mutation<UpdateUserApiResponse, UpdateUserApiArg>({
      query: (queryArg) => ({
        url: `/users/updateUser`,
        method: "PATCH",
        body: queryArg.updateUserRequest,
      }),
    }),
    uploadPhoto: build.mutation<UploadPhotoApiResponse, UploadPhotoApiArg>({
      query: (queryArg) => ({
        url: `/users/photo`,
        method: "POST",
        body: queryArg.body,
      }),
    }),
    getPhoto: build.query<GetPhotoApiResponse, GetPhotoApiArg>({
      query: (queryArg) => ({ url: `/users/photo/${queryArg.name}` }),
    }),
    sendVerificationEmail: build.mutation<
      SendVerificationEmailApiResponse,
      SendVerificationEmailApiArg
    >({
      query: () => ({ url: `/users/sendVerificationEmail`, method: "POST" }),
    }),
    verifyUser: build.mutation<VerifyUserApiResponse, VerifyUserApiArg>({
      query: (queryArg) => ({
        url: `/users/verifyUser/${queryArg.token}`,
        method: "PATCH",
      }),
    }),
    changePassword: build.mutation<
      ChangePasswordApiResponse,
      ChangePasswordApiArg
    >({
      query: (queryArg) => ({
        url: `/users/changePassword`,
        method: "PATCH",
        body: queryArg.changePasswordRequest,
      }),
    }),
    setLanguage: build.mutation<SetLanguageApiResponse, SetLanguageApiArg>({
      query: (queryArg) => ({
        url: `/users/language`,
        method: "PATCH",
        body: queryArg.setLanguageRequest,
      }),
    }),
    getStepUp: build.query<GetStepUpApiResponse, GetStepUpApiArg>({
      query: () => ({ url: `/users/step-up` }),
    }),
    stepUp: build.mutation<StepUpApiResponse, StepUpApiArg>({
      query: (queryArg) => ({
        url: `/users/step-up`,
        method: "POST",
        body: queryArg.stepUpRequest,
      }),
    }),
    forgotPassword: build.mutation<
      ForgotPasswordApiResponse,
      ForgotPasswordApiArg
    >({
      query: (queryArg) => ({
        url: `/users/forgotPassword`,
        method: "POST",
        body: queryArg.forgotPasswordRequest,
      }),
    }),
    resetPassword: build.mutation<
      ResetPasswordApiResponse,
      ResetPasswordApiArg
    >({
      query: (queryArg) => ({
        url: `/users/resetPassword/${queryArg.resetToken}`,
        method: "PATCH",
        body: queryArg.resetPasswordRequest,
      }),
    }),
    sendLoginCode: build.mutation<
      SendLoginCodeApiResponse,
      SendLoginCodeApiArg
    >({
      query: (queryArg) => ({
        url: `/users/sendLoginCode/${queryArg.email}`,
        method: "POST",
        body: queryArg.sendLoginCodeRequest,
      }),
    }),
    loginWithCode: build.mutation<
      LoginWithCodeApiResponse,
      LoginWithCodeApiArg
    >({
      query: (queryArg) => ({
        url: `/users/loginWithCode/${queryArg.email}`,
        method: "POST",
        body: queryArg.loginWithCodeRequest,
      }),
    }),
    googleStart: build.query<GoogleStartApiResponse, GoogleStartApiArg>({
      query: (queryArg) => ({
        url: `/users/google/start`,
        params: {
          return: queryArg["return"],
          acceptTerms: queryArg.acceptTerms,
          language: queryArg.language,
        },
      }),
    }),
    googleRedirect: build.query<
      GoogleRedirectApiResponse,
      GoogleRedirectApiArg
    >({
      query: (queryArg) => ({
        url: `/users/google/redirect`,
        params: {
          code: queryArg.code,
          state: queryArg.state,
          error: queryArg.error,
        },
      }),
    }),
    googleLink: build.mutation<GoogleLinkApiResponse, GoogleLinkApiArg>({
      query: (queryArg) => ({
        url: `/users/google/link`,
        method: "POST",
        body: queryArg.googleLinkRequest,
      }),
    }),
    listSessions: build.query<ListSessionsApiResponse, ListSessionsApiArg>({
      query: () => ({ url: `/users/sessions` }),
    }),
    endSession: build.mutation<EndSessionApiResponse, EndSessionApiArg>({
      query: (queryArg) => ({
        url: `/users/sessions/${queryArg.id}`,
        method: "DELETE",
      }),
    }),
    revokeOtherSessions: build.mutation<
      RevokeOtherSessionsApiResponse,
      RevokeOtherSessionsApiArg
    >({
      query: () => ({ url: `/users/sessions/revoke-others`, method: "POST" }),
    }),
    listPasskeys: build.query<ListPasskeysApiResponse, ListPasskeysApiArg>({
      query: () => ({ url: `/users/passkeys` }),
    }),
    beginPasskeyRegistration: build.mutation<
      BeginPasskeyRegistrationApiResponse,
      BeginPasskeyRegistrationApiArg
    >({
      query: () => ({ url: `/users/passkeys/register/begin`, method: "POST" }),
    }),
    finishPasskeyRegistration: build.mutation<
      FinishPasskeyRegistrationApiResponse,
      FinishPasskeyRegistrationApiArg
    >({
      query: (queryArg) => ({
        url: `/users/passkeys/register/finish`,
        method: "POST",
        body: queryArg.passkeyRegistrationRequest,
      }),
    }),
    removePasskey: build.mutation<
      RemovePasskeyApiResponse,
      RemovePasskeyApiArg
    >({
      query: (queryArg) => ({
        url: `/users/passkeys/${queryArg.credentialId}`,
        method: "DELETE",
      }),
    }),
    beginPasskeyLogin: build.mutation<
      BeginPasskeyLoginApiResponse,
      BeginPasskeyLoginApiArg
    >({
      query: () => ({ url: `/users/passkeys/login/begin`, method: "POST" }),
    }),
    loginWithPasskey: build.mutation<
      LoginWithPasskeyApiResponse,
      LoginWithPasskeyApiArg
    >({
      query: (queryArg) => ({
        url: `/users/passkeys/login/finish`,
        method: "POST",
        body: queryArg.passkeyAssertion,
      }),
    }),
    beginPasskeyStepUp: build.mutation<
      BeginPasskeyStepUpApiResponse,
      BeginPasskeyStepUpApiArg
    >({
      query: () => ({ url: `/users/step-up/passkey`, method: "POST" }),
    }),
    setupTwoFactor: build.mutation<
      SetupTwoFactorApiResponse,
      SetupTwoFactorApiArg
    >({
      query: () => ({ url: `/users/2fa/setup`, method: "POST" }),
    }),
    enableTwoFactor: build.mutation<
      EnableTwoFactorApiResponse,
      EnableTwoFactorApiArg
    >({
      query: (queryArg) => ({
        url: `/users/2fa/enable`,
        method: "POST",
        body: queryArg.twoFactorEnableRequest,
      }),
    }),
    disableTwoFactor: build.mutation<
      DisableTwoFactorApiResponse,
      DisableTwoFactorApiArg
    >({
      query: (queryArg) => ({
        url: `/users/2fa/disable`,
        method: "POST",
        body: queryArg.twoFactorDisableRequest,
      }),
    }),
    getSecurityLog: build.query<
      GetSecurityLogApiResponse,
      GetSecurityLogApiArg
    >({
      query: (queryArg) => ({
        url: `/users/security-log`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    secureAccount: build.mutation<
      SecureAccountApiResponse,
      SecureAccountApiArg
    >({
      query: (queryArg) => ({
        url: `/users/secure-account/${queryArg.token}`,
        method: "POST",
      }),
    }),
    getUsers: build.query<GetUsersApiResponse, GetUsersApiArg>({
      query: (queryArg) => ({
        url: `/users/getUsers`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
        params: {
          search: queryArg.search,
        },
      }),
    }),
    listUsers: build.query<ListUsersApiResponse, ListUsersApiArg>({
      query: (queryArg) => ({
        url: `/users/listUsers`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
        params: {
          search: queryArg.search,
          role: queryArg.role,
          kycStatus: queryArg.kycStatus,
          status: queryArg.status,
          cursor: queryArg.cursor,
          limit: queryArg.limit,
        },
      }),
    }),
    upgradeUser: build.mutation<UpgradeUserApiResponse, UpgradeUserApiArg>({
      query: (queryArg) => ({
        url: `/users/upgradeUser`,
        method: "POST",
        body: queryArg.upgradeUserRequest,
      }),
    }),
    suspendUser: build.mutation<SuspendUserApiResponse, SuspendUserApiArg>({
      query: (queryArg) => ({
        url: `/users/suspend/${queryArg.id}`,
        method: "POST",
        body: queryArg.suspendRequest,
      }),
    }),
    reinstateUser: build.mutation<
      ReinstateUserApiResponse,
      ReinstateUserApiArg
    >({
      query: (queryArg) => ({
        url: `/users/reinstate/${queryArg.id}`,
        method: "POST",
      }),
    }),
    impersonateUser: build.mutation<
      ImpersonateUserApiResponse,
      ImpersonateUserApiArg
    >({
      query: (queryArg) => ({
        url: `/users/impersonate/${queryArg.id}`,
        method: "POST",
      }),
    }),
    exitImpersonation: build.mutation<
      ExitImpersonationApiResponse,
      ExitImpersonationApiArg
    >({
      query: () => ({ url: `/users/exit-impersonation`, method: "POST" }),
    }),
    deleteUser: build.mutation<DeleteUserApiResponse, DeleteUserApiArg>({
      query: (queryArg) => ({
        url: `/users/${queryArg.id}`,
        method: "DELETE",
        body: queryArg.closeAccountRequest,
      }),
    }),
    uploadKycDocuments: build.mutation<
      UploadKycDocumentsApiResponse,
      UploadKycDocumentsApiArg
    >({
      query: (queryArg) => ({
        url: `/users/uploadKycDocuments`,
        method: "POST",
        body: queryArg.body,
      }),
    }),
    getMyKyc: build.query<GetMyKycApiResponse, GetMyKycApiArg>({
      query: (queryArg) => ({
        url: `/users/kyc`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getPendingKyc: build.query<GetPendingKycApiResponse, GetPendingKycApiArg>({
      query: (queryArg) => ({
        url: `/users/kyc/pending`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
        params: {
          cursor: queryArg.cursor,
          limit: queryArg.limit,
        },
      }),
    }),
    getKycCase: build.query<GetKycCaseApiResponse, GetKycCaseApiArg>({
      query: (queryArg) => ({
        url: `/users/kyc/${queryArg.id}`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    downloadKycDocument: build.mutation<
      DownloadKycDocumentApiResponse,
      DownloadKycDocumentApiArg
    >({
      query: (queryArg) => ({
        url: `/users/kyc/${queryArg.id}/documents/${queryArg.submission}/${queryArg.side}`,
        method: "POST",
      }),
    }),
    approveKyc: build.mutation<ApproveKycApiResponse, ApproveKycApiArg>({
      query: (queryArg) => ({
        url: `/users/kyc/${queryArg.id}/approve`,
        method: "PATCH",
        body: queryArg.kycApproveRequest,
      }),
    }),
    rejectKyc: build.mutation<RejectKycApiResponse, RejectKycApiArg>({
      query: (queryArg) => ({
        url: `/users/kyc/${queryArg.id}/reject`,
        method: "PATCH",
        body: queryArg.kycRejectRequest,
      }),
    }),
    getReferrals: build.query<GetReferralsApiResponse, GetReferralsApiArg>({
      query: (queryArg) => ({
        url: `/users/referrals`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getInvestEligibility: build.query<
      GetInvestEligibilityApiResponse,
      GetInvestEligibilityApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/eligibility`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    listPlans: build.query<ListPlansApiResponse, ListPlansApiArg>({
      query: () => ({ url: `/invest/plans` }),
    }),
    getInvestmentQuote: build.query<
      GetInvestmentQuoteApiResponse,
      GetInvestmentQuoteApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/quote`,
        params: {
          planName: queryArg.planName,
          amount: queryArg.amount,
        },
      }),
    }),
    startInvestment: build.mutation<
      StartInvestmentApiResponse,
      StartInvestmentApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/start-invest`,
        method: "POST",
        body: queryArg.startInvestmentRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    getInvestmentHistory: build.query<
      GetInvestmentHistoryApiResponse,
      GetInvestmentHistoryApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/investment-history`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getInvestment: build.query<GetInvestmentApiResponse, GetInvestmentApiArg>({
      query: (queryArg) => ({
        url: `/invest/investment/${queryArg.investmentId}`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getPendingInvestments: build.query<
      GetPendingInvestmentsApiResponse,
      GetPendingInvestmentsApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/adminPendingInvestment`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
        params: {
          cursor: queryArg.cursor,
          limit: queryArg.limit,
        },
      }),
    }),
    approveInvestment: build.mutation<
      ApproveInvestmentApiResponse,
      ApproveInvestmentApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/${queryArg.investmentId}/approve`,
        method: "PUT",
      }),
    }),
    rejectInvestment: build.mutation<
      RejectInvestmentApiResponse,
      RejectInvestmentApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/${queryArg.investmentId}/reject`,
        method: "PUT",
        body: queryArg.rejectInvestmentRequest,
      }),
    }),
    settleMaturedInvestments: build.mutation<
      SettleMaturedInvestmentsApiResponse,
      SettleMaturedInvestmentsApiArg
    >({
      query: () => ({ url: `/invest/deposit-maturity`, method: "POST" }),
    }),
    setMaturityInstruction: build.mutation<
      SetMaturityInstructionApiResponse,
      SetMaturityInstructionApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/${queryArg.investmentId}/instruction`,
        method: "PUT",
        body: queryArg.maturityInstructionRequest,
      }),
    }),
    previewEarlyRedemption: build.query<
      PreviewEarlyRedemptionApiResponse,
      PreviewEarlyRedemptionApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/${queryArg.investmentId}/early-redemption`,
      }),
    }),
    redeemEarly: build.mutation<RedeemEarlyApiResponse, RedeemEarlyApiArg>({
      query: (queryArg) => ({
        url: `/invest/${queryArg.investmentId}/early-redemption`,
        method: "POST",
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    getTransactionHistory: build.query<
      GetTransactionHistoryApiResponse,
      GetTransactionHistoryApiArg
    >({
      query: (queryArg) => ({
        url: `/invest/getTransactionHistory`,
        params: {
          cursor: queryArg.cursor,
          limit: queryArg.limit,
        },
      }),
    }),
    getStatement: build.query<GetStatementApiResponse, GetStatementApiArg>({
      query: (queryArg) => ({
        url: `/invest/statement.csv`,
        params: {
          from: queryArg["from"],
          to: queryArg.to,
        },
      }),
    }),
    getDashboard: build.query<GetDashboardApiResponse, GetDashboardApiArg>({
      query: () => ({ url: `/invest/dashboard` }),
    }),
    streamUserEvents: build.query<
      StreamUserEventsApiResponse,
      StreamUserEventsApiArg
    >({
      query: () => ({ url: `/users/events` }),
    }),
    listDepositAddresses: build.query<
      ListDepositAddressesApiResponse,
      ListDepositAddressesApiArg
    >({
      query: () => ({ url: `/payments/addresses` }),
    }),
    createDeposit: build.mutation<
      CreateDepositApiResponse,
      CreateDepositApiArg
    >({
      query: (queryArg) => ({
        url: `/payments/create`,
        method: "POST",
        body: queryArg.createDepositRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    viewPaymentStatus: build.query<
      ViewPaymentStatusApiResponse,
      ViewPaymentStatusApiArg
    >({
      query: (queryArg) => ({
        url: `/payments/viewPaymentStatus/${queryArg.transactionId}`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getPendingDeposits: build.query<
      GetPendingDepositsApiResponse,
      GetPendingDepositsApiArg
    >({
      query: (queryArg) => ({
        url: `/payments/pending-deposit`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
        params: {
          cursor: queryArg.cursor,
          limit: queryArg.limit,
        },
      }),
    }),
    confirmDeposit: build.mutation<
      ConfirmDepositApiResponse,
      ConfirmDepositApiArg
    >({
      query: (queryArg) => ({
        url: `/payments/confirmPayment`,
        method: "PATCH",
        body: queryArg.confirmDepositRequest,
      }),
    }),
    rejectDeposit: build.mutation<
      RejectDepositApiResponse,
      RejectDepositApiArg
    >({
      query: (queryArg) => ({
        url: `/payments/rejectPayment`,
        method: "PATCH",
        body: queryArg.rejectDepositRequest,
      }),
    }),
    createWithdrawal: build.mutation<
      CreateWithdrawalApiResponse,
      CreateWithdrawalApiArg
    >({
      query: (queryArg) => ({
        url: `/withDraw/create`,
        method: "POST",
        body: queryArg.createWithdrawalRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    quoteWithdrawal: build.query<
      QuoteWithdrawalApiResponse,
      QuoteWithdrawalApiArg
    >({
      query: (queryArg) => ({
        url: `/withDraw/quote`,
        method: "POST",
        body: queryArg.withdrawalQuoteRequest,
      }),
    }),
    getPendingWithdrawals: build.query<
      GetPendingWithdrawalsApiResponse,
      GetPendingWithdrawalsApiArg
    >({
      query: (queryArg) => ({
        url: `/withDraw/pending`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
        params: {
          cursor: queryArg.cursor,
          limit: queryArg.limit,
        },
      }),
    }),
    getWithdrawal: build.query<GetWithdrawalApiResponse, GetWithdrawalApiArg>({
      query: (queryArg) => ({
        url: `/withDraw/get-withdrawal/${queryArg.id}`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getWithdrawalHistory: build.query<
      GetWithdrawalHistoryApiResponse,
      GetWithdrawalHistoryApiArg
    >({
      query: (queryArg) => ({
        url: `/withDraw/history`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    approveWithdrawal: build.mutation<
      ApproveWithdrawalApiResponse,
      ApproveWithdrawalApiArg
    >({
      query: (queryArg) => ({
        url: `/withDraw/approve/${queryArg.id}`,
        method: "PUT",
        body: queryArg.approveWithdrawalRequest,
      }),
    }),
    rejectWithdrawal: build.mutation<
      RejectWithdrawalApiResponse,
      RejectWithdrawalApiArg
    >({
      query: (queryArg) => ({
        url: `/withDraw/reject/${queryArg.id}`,
        method: "PUT",
        body: queryArg.rejectWithdrawalRequest,
      }),
    }),
    getCountries: build.query<GetCountriesApiResponse, GetCountriesApiArg>({
      query: () => ({ url: `/countries` }),
    }),
    listDevMail: build.query<ListDevMailApiResponse, ListDevMailApiArg>({
      query: () => ({ url: `/dev/mail` }),
    }),
    getDevMail: build.query<GetDevMailApiResponse, GetDevMailApiArg>({
      query: (queryArg) => ({ url: `/dev/mail/${queryArg.id}` }),
    }),
    getDevClock: build.query<GetDevClockApiResponse, GetDevClockApiArg>({
      query: () => ({ url: `/dev/clock` }),
    }),
    advanceDevClock: build.mutation<
      AdvanceDevClockApiResponse,
      AdvanceDevClockApiArg
    >({
      query: (queryArg) => ({
        url: `/dev/clock`,
        method: "POST",
        body: queryArg.devClockAdvance,
      }),
    }),
    getMarketCandles: build.query<
      GetMarketCandlesApiResponse,
      GetMarketCandlesApiArg
    >({
      query: (queryArg) => ({
        url: `/market/candles`,
        params: {
          symbol: queryArg["symbol"],
          interval: queryArg.interval,
        },
      }),
    }),
    getContentFaq: build.query<GetContentFaqApiResponse, GetContentFaqApiArg>({
      query: () => ({ url: `/content/faq` }),
    }),
    getContentTeam: build.query<
      GetContentTeamApiResponse,
      GetContentTeamApiArg
    >({
      query: () => ({ url: `/content/team` }),
    }),
    getContentHowItWorks: build.query<
      GetContentHowItWorksApiResponse,
      GetContentHowItWorksApiArg
    >({
      query: () => ({ url: `/content/how-it-works` }),
    }),
    getContentSupport: build.query<
      GetContentSupportApiResponse,
      GetContentSupportApiArg
    >({
      query: () => ({ url: `/content/support` }),
    }),
    getContentPage: build.query<
      GetContentPageApiResponse,
      GetContentPageApiArg
    >({
      query: (queryArg) => ({ url: `/content/pages/${queryArg.slug}` }),
    }),
    createSupportTicket: build.mutation<
      CreateSupportTicketApiResponse,
      CreateSupportTicketApiArg
    >({
      query: (queryArg) => ({
        url: `/support/tickets`,
        method: "POST",
        body: queryArg.createSupportTicketRequest,
      }),
    }),
    listSupportTickets: build.query<
      ListSupportTicketsApiResponse,
      ListSupportTicketsApiArg
    >({
      query: (queryArg) => ({
        url: `/support/tickets`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    replySupportTicket: build.mutation<
      ReplySupportTicketApiResponse,
      ReplySupportTicketApiArg
    >({
      query: (queryArg) => ({
        url: `/support/tickets/${queryArg.id}/reply`,
        method: "POST",
        body: queryArg.replySupportTicketRequest,
      }),
    }),
    closeSupportTicket: build.mutation<
      CloseSupportTicketApiResponse,
      CloseSupportTicketApiArg
    >({
      query: (queryArg) => ({
        url: `/support/tickets/${queryArg.id}/close`,
        method: "POST",
      }),
    }),
    listTestimonials: build.query<
      ListTestimonialsApiResponse,
      ListTestimonialsApiArg
    >({
      query: () => ({ url: `/testimonials` }),
    }),
    submitTestimonial: build.mutation<
      SubmitTestimonialApiResponse,
      SubmitTestimonialApiArg
    >({
      query: (queryArg) => ({
        url: `/testimonials`,
        method: "POST",
        body: queryArg.submitTestimonialRequest,
      }),
    }),
    getMyTestimonial: build.query<
      GetMyTestimonialApiResponse,
      GetMyTestimonialApiArg
    >({
      query: (queryArg) => ({
        url: `/testimonials/mine`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getPendingTestimonials: build.query<
      GetPendingTestimonialsApiResponse,
      GetPendingTestimonialsApiArg
    >({
      query: (queryArg) => ({
        url: `/testimonials/pending`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    approveTestimonial: build.mutation<
      ApproveTestimonialApiResponse,
      ApproveTestimonialApiArg
    >({
      query: (queryArg) => ({
        url: `/testimonials/${queryArg.testimonialId}/approve`,
        method: "PUT",
      }),
    }),
    rejectTestimonial: build.mutation<
      RejectTestimonialApiResponse,
      RejectTestimonialApiArg
    >({
      query: (queryArg) => ({
        url: `/testimonials/${queryArg.testimonialId}/reject`,
        method: "PUT",
        body: queryArg.rejectTestimonialRequest,
      }),
    }),
    getPublicActivity: build.query<
      GetPublicActivityApiResponse,
      GetPublicActivityApiArg
    >({
      query: () => ({ url: `/public/activity` }),
    }),
    getPublicStats: build.query<
      GetPublicStatsApiResponse,
      GetPublicStatsApiArg
    >({
      query: () => ({ url: `/public/stats` }),
    }),
    listBadges: build.query<ListBadgesApiResponse, ListBadgesApiArg>({
      query: () => ({ url: `/badges` }),
    }),
    getUserMoney: build.query<GetUserMoneyApiResponse, GetUserMoneyApiArg>({
      query: (queryArg) => ({ url: `/users/money/${queryArg.id}` }),
    }),
    postCorrection: build.mutation<
      PostCorrectionApiResponse,
      PostCorrectionApiArg
    >({
      query: (queryArg) => ({
        url: `/users/editDepositBalance/${queryArg.id}`,
        method: "PUT",
        body: queryArg.correctionRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    editReturns: build.mutation<EditReturnsApiResponse, EditReturnsApiArg>({
      query: (queryArg) => ({
        url: `/users/updateDepositBalance/${queryArg.id}`,
        method: "PUT",
      }),
    }),
    waiveFee: build.mutation<WaiveFeeApiResponse, WaiveFeeApiArg>({
      query: (queryArg) => ({
        url: `/users/waive-fee/${queryArg.id}`,
        method: "POST",
        body: queryArg.waiveFeeRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    updateFees: build.mutation<UpdateFeesApiResponse, UpdateFeesApiArg>({
      query: (queryArg) => ({
        url: `/users/update-fees/${queryArg.id}`,
        method: "PUT",
        body: queryArg.updateFeesRequest,
      }),
    }),
    setFeeExemption: build.mutation<
      SetFeeExemptionApiResponse,
      SetFeeExemptionApiArg
    >({
      query: (queryArg) => ({
        url: `/users/fees-toggle/${queryArg.id}`,
        method: "PUT",
        body: queryArg.feeExemptionRequest,
      }),
    }),
    getMyBadge: build.query<GetMyBadgeApiResponse, GetMyBadgeApiArg>({
      query: (queryArg) => ({
        url: `/users/badge`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    streamStaffEvents: build.query<
      StreamStaffEventsApiResponse,
      StreamStaffEventsApiArg
    >({
      query: () => ({ url: `/staff/events` }),
    }),
    getQueueCounts: build.query<
      GetQueueCountsApiResponse,
      GetQueueCountsApiArg
    >({
      query: (queryArg) => ({
        url: `/staff/queue-counts`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
      }),
    }),
    getChainStatus: build.query<
      GetChainStatusApiResponse,
      GetChainStatusApiArg
    >({
      query: () => ({ url: `/staff/chain-status` }),
    }),
    sendComposedEmail: build.mutation<
      SendComposedEmailApiResponse,
      SendComposedEmailApiArg
    >({
      query: (queryArg) => ({
        url: `/users/sendComposedEmail`,
        method: "POST",
        body: queryArg.composeEmailRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    sendAutomatedEmail: build.mutation<
      SendAutomatedEmailApiResponse,
      SendAutomatedEmailApiArg
    >({
      query: (queryArg) => ({
        url: `/email/sendAutomatedEmail`,
        method: "POST",
        body: queryArg.automatedEmailRequest,
      }),
    }),
    listEmailBroadcasts: build.query<
      ListEmailBroadcastsApiResponse,
      ListEmailBroadcastsApiArg
    >({
      query: () => ({ url: `/email/broadcasts` }),
    }),
    getEmailBroadcast: build.query<
      GetEmailBroadcastApiResponse,
      GetEmailBroadcastApiArg
    >({
      query: (queryArg) => ({ url: `/email/broadcasts/${queryArg.id}` }),
    }),
    cancelEmailBroadcast: build.mutation<
      CancelEmailBroadcastApiResponse,
      CancelEmailBroadcastApiArg
    >({
      query: (queryArg) => ({
        url: `/email/broadcasts/${queryArg.id}/cancel`,
        method: "POST",
      }),
    }),
    getProposals: build.query<GetProposalsApiResponse, GetProposalsApiArg>({
      query: () => ({ url: `/proposals` }),
    }),
    approveProposal: build.mutation<
      ApproveProposalApiResponse,
      ApproveProposalApiArg
    >({
      query: (queryArg) => ({
        url: `/proposals/${queryArg.proposalId}/approve`,
        method: "POST",
        body: queryArg.approveProposalRequest,
      }),
    }),
    rejectProposal: build.mutation<
      RejectProposalApiResponse,
      RejectProposalApiArg
    >({
      query: (queryArg) => ({
        url: `/proposals/${queryArg.proposalId}/reject`,
        method: "POST",
        body: queryArg.rejectProposalRequest,
      }),
    }),
    getSettings: build.query<GetSettingsApiResponse, GetSettingsApiArg>({
      query: () => ({ url: `/settings` }),
    }),
    updateSettings: build.mutation<
      UpdateSettingsApiResponse,
      UpdateSettingsApiArg
    >({
      query: (queryArg) => ({
        url: `/settings/${queryArg.section}`,
        method: "PUT",
        body: queryArg.settingsUpdate,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    createPlan: build.mutation<CreatePlanApiResponse, CreatePlanApiArg>({
      query: (queryArg) => ({
        url: `/settings/plans`,
        method: "POST",
        body: queryArg.planCreateRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    newPlanVersion: build.mutation<
      NewPlanVersionApiResponse,
      NewPlanVersionApiArg
    >({
      query: (queryArg) => ({
        url: `/settings/plans/${queryArg.planId}/versions`,
        method: "POST",
        body: queryArg.planVersionRequest,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    retirePlan: build.mutation<RetirePlanApiResponse, RetirePlanApiArg>({
      query: (queryArg) => ({
        url: `/settings/plans/${queryArg.planId}/retire`,
        method: "POST",
        body: queryArg.settingsReason,
        headers: {
          "Idempotency-Key": queryArg["Idempotency-Key"],
        },
      }),
    }),
    getAuditLog: build.query<GetAuditLogApiResponse, GetAuditLogApiArg>({
      query: (queryArg) => ({
        url: `/audit/log`,
        headers: {
          "X-Clearvest-Position": queryArg["X-Clearvest-Position"],
        },
        params: {
          actor: queryArg.actor,
          target: queryArg.target,
          kind: queryArg.kind,
          from: queryArg["from"],
          to: queryArg.to,
          before: queryArg.before,
          limit: queryArg.limit,
        },
      }),
    }),
    getAuditLogCsv: build.query<
      GetAuditLogCsvApiResponse,
      GetAuditLogCsvApiArg
    >({
      query: (queryArg) => ({
        url: `/audit/log.csv`,
        params: {
          actor: queryArg.actor,
          target: queryArg.target,
          kind: queryArg.kind,
          from: queryArg["from"],
          to: queryArg.to,
        },
      }),
    }),
    getAuditEvents: build.query<
      GetAuditEventsApiResponse,
      GetAuditEventsApiArg
    >({
      query: (queryArg) => ({
        url: `/audit/events`,
        params: {
          stream: queryArg.stream,
          after: queryArg.after,
          type: queryArg["type"],
          limit: queryArg.limit,
        },
      }),
    }),
    getAuditBooks: build.query<GetAuditBooksApiResponse, GetAuditBooksApiArg>({
      query: (queryArg) => ({
        url: `/audit/books`,
        params: {
          position: queryArg.position,
        },
      }),
    }),
  }),
  overrideExisting: false,
});
export { injectedRtkApi as generatedApi };
export type GetMetaApiResponse = /** status 200 Server metadata */ Meta;
export type GetMetaApiArg = void;
export type RegisterApiResponse =
  /** status 201 Registered and signed in; the user carries `token`. */ User;
export type RegisterApiArg = {
  /** Referral code from a shared link. */
  ref?: string;
  registerRequest: RegisterRequest;
};
export type LoginApiResponse =
  | /** status 200 Signed in; the user carries `token`. */ User
  | /** status 202 The password was right; the sign-in needs one more step: the code e-mailed for a new
browser (`new_device`) or the authenticator's (`totp`).
 */ LoginPending;
export type LoginApiArg = {
  loginRequest: LoginRequest;
};
export type LogoutApiResponse = /** status 200 Signed out. */ Message;
export type LogoutApiArg = void;
export type LoginStatusApiResponse =
  /** status 200 true when the request carries a valid session. */ boolean;
export type LoginStatusApiArg = void;
export type RefreshSessionApiResponse =
  /** status 200 Refreshed. */ TokenResponse;
export type RefreshSessionApiArg = void;
export type GetUserApiResponse = /** status 200 The user. */ User;
export type GetUserApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type UpdateUserApiResponse = /** status 200 The updated user. */ User;
export type UpdateUserApiArg = {
  updateUserRequest: UpdateUserRequest;
};
export type UploadPhotoApiResponse =
  /** status 200 The updated user; `photo` is the new image's URL. */ User;
export type UploadPhotoApiArg = {
  body: {
    photo: Blob;
  };
};
export type GetPhotoApiResponse = /** status 200 The image. */ Blob;
export type GetPhotoApiArg = {
  name: string;
};
export type SendVerificationEmailApiResponse =
  /** status 200 Sent (or already verified). */ Message;
export type SendVerificationEmailApiArg = void;
export type VerifyUserApiResponse = /** status 200 Verified. */ Message;
export type VerifyUserApiArg = {
  token: string;
};
export type ChangePasswordApiResponse = /** status 200 Changed. */ Message;
export type ChangePasswordApiArg = {
  changePasswordRequest: ChangePasswordRequest;
};
export type SetLanguageApiResponse = /** status 200 Recorded. */ Message;
export type SetLanguageApiArg = {
  setLanguageRequest: SetLanguageRequest;
};
export type GetStepUpApiResponse =
  /** status 200 The session's confirmation. */ StepUpState;
export type GetStepUpApiArg = void;
export type StepUpApiResponse =
  /** status 200 Confirmed for 5 minutes. */ StepUp;
export type StepUpApiArg = {
  stepUpRequest: StepUpRequest;
};
export type ForgotPasswordApiResponse = /** status 200 Accepted. */ Message;
export type ForgotPasswordApiArg = {
  forgotPasswordRequest: ForgotPasswordRequest;
};
export type ResetPasswordApiResponse = /** status 200 Reset. */ Message;
export type ResetPasswordApiArg = {
  resetToken: string;
  resetPasswordRequest: ResetPasswordRequest;
};
export type SendLoginCodeApiResponse = /** status 200 Sent. */ Message;
export type SendLoginCodeApiArg = {
  email: string;
  sendLoginCodeRequest: SendLoginCodeRequest;
};
export type LoginWithCodeApiResponse =
  | /** status 200 Signed in; the user carries `token`. */ User
  | /** status 202 The code was right, and the account's authenticator code is needed too (`totp`). */ LoginPending;
export type LoginWithCodeApiArg = {
  email: string;
  loginWithCodeRequest: LoginWithCodeRequest;
};
export type GoogleStartApiResponse = unknown;
export type GoogleStartApiArg = {
  return?: string;
  acceptTerms?: boolean;
  language?: Language;
};
export type GoogleRedirectApiResponse = unknown;
export type GoogleRedirectApiArg = {
  code?: string;
  state?: string;
  error?: string;
};
export type GoogleLinkApiResponse =
  | /** status 200 Signed in; the user carries `token`. */ User
  | /** status 202 The proof was right, and the account's authenticator code is needed too (`totp`). */ LoginPending;
export type GoogleLinkApiArg = {
  googleLinkRequest: GoogleLinkRequest;
};
export type ListSessionsApiResponse =
  /** status 200 Active sessions, most recently used first. */ Session[];
export type ListSessionsApiArg = void;
export type EndSessionApiResponse = /** status 200 Ended. */ Message;
export type EndSessionApiArg = {
  id: string;
};
export type RevokeOtherSessionsApiResponse = /** status 200 Ended. */ Message;
export type RevokeOtherSessionsApiArg = void;
export type ListPasskeysApiResponse =
  /** status 200 Oldest first. */ PasskeyList;
export type ListPasskeysApiArg = void;
export type BeginPasskeyRegistrationApiResponse =
  /** status 200 The ceremony's options. */ PasskeyCeremony;
export type BeginPasskeyRegistrationApiArg = void;
export type FinishPasskeyRegistrationApiResponse =
  /** status 201 Added. */ Passkey;
export type FinishPasskeyRegistrationApiArg = {
  passkeyRegistrationRequest: PasskeyRegistrationRequest;
};
export type RemovePasskeyApiResponse = /** status 200 Removed. */ Message;
export type RemovePasskeyApiArg = {
  credentialId: string;
};
export type BeginPasskeyLoginApiResponse =
  /** status 200 The ceremony's options. */ PasskeyCeremony;
export type BeginPasskeyLoginApiArg = void;
export type LoginWithPasskeyApiResponse =
  /** status 200 Signed in; the user carries `token`. */ User;
export type LoginWithPasskeyApiArg = {
  passkeyAssertion: PasskeyAssertion;
};
export type BeginPasskeyStepUpApiResponse =
  /** status 200 The ceremony's options. */ PasskeyCeremony;
export type BeginPasskeyStepUpApiArg = void;
export type SetupTwoFactorApiResponse =
  /** status 200 The secret to add to the authenticator app. */ TwoFactorSetup;
export type SetupTwoFactorApiArg = void;
export type EnableTwoFactorApiResponse =
  /** status 200 On. The recovery codes are shown once; each works once instead of a code. */ RecoveryCodes;
export type EnableTwoFactorApiArg = {
  twoFactorEnableRequest: TwoFactorEnableRequest;
};
export type DisableTwoFactorApiResponse = /** status 200 Off. */ Message;
export type DisableTwoFactorApiArg = {
  twoFactorDisableRequest: TwoFactorDisableRequest;
};
export type GetSecurityLogApiResponse =
  /** status 200 The log. */ SecurityLogEntry[];
export type GetSecurityLogApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type SecureAccountApiResponse = /** status 200 Secured. */ Message;
export type SecureAccountApiArg = {
  token: string;
};
export type GetUsersApiResponse =
  /** status 200 Users, newest first, each with `figures`: their money figures from the books, absent
where they could not be read (shown as unavailable, never as zero).
 */ User[];
export type GetUsersApiArg = {
  /** Part of a name or e-mail (case-insensitive). */
  search?: string;
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type ListUsersApiResponse =
  /** status 200 One page of users, each with `figures` as in `getUsers`. */ UserPage;
export type ListUsersApiArg = {
  /** Part of a name or e-mail (case-insensitive). */
  search?: string;
  /** The role held (a suspended user keeps theirs). */
  role?: "subscriber" | "author" | "admin";
  kycStatus?: KycStatus;
  status?: "active" | "suspended";
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
  /** A staff queue's `nextCursor` from the page before; absent for the first page. */
  cursor?: string;
  /** How many items a page of a staff queue holds (default 50). */
  limit?: number;
};
export type UpgradeUserApiResponse =
  | /** status 200 Changed. */ Message
  | /** status 202 Needs a second staff member (docs/security.md, "Separation of duties"): nothing is
decided yet; a proposal waits in the staff queues until another admin approves or
rejects it with `POST /proposals/{id}/approve` or `/reject`.
 */ ProposalCreated;
export type UpgradeUserApiArg = {
  upgradeUserRequest: UpgradeUserRequest;
};
export type SuspendUserApiResponse = /** status 200 Suspended. */ Message;
export type SuspendUserApiArg = {
  id: string;
  suspendRequest: SuspendRequest;
};
export type ReinstateUserApiResponse = /** status 200 Reinstated. */ Message;
export type ReinstateUserApiArg = {
  id: string;
};
export type ImpersonateUserApiResponse =
  /** status 200 Viewing as the user. */ ImpersonationStarted;
export type ImpersonateUserApiArg = {
  id: string;
};
export type ExitImpersonationApiResponse =
  /** status 200 Left. */ ImpersonationExited;
export type ExitImpersonationApiArg = void;
export type DeleteUserApiResponse =
  | /** status 200 Closed. */ Message
  | /** status 202 Needs a second staff member (docs/security.md, "Separation of duties"): nothing is
decided yet; a proposal waits in the staff queues until another admin approves or
rejects it with `POST /proposals/{id}/approve` or `/reject`.
 */ ProposalCreated;
export type DeleteUserApiArg = {
  id: string;
  closeAccountRequest: CloseAccountRequest;
};
export type UploadKycDocumentsApiResponse =
  /** status 200 Submitted; the case is now Pending. */ KycSubmitted;
export type UploadKycDocumentsApiArg = {
  body: {
    front?: Blob;
    back?: Blob;
  };
};
export type GetMyKycApiResponse = /** status 200 The user's KYC case. */ MyKyc;
export type GetMyKycApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetPendingKycApiResponse =
  /** status 200 One page of the queue. */ KycQueue;
export type GetPendingKycApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
  /** A staff queue's `nextCursor` from the page before; absent for the first page. */
  cursor?: string;
  /** How many items a page of a staff queue holds (default 50). */
  limit?: number;
};
export type GetKycCaseApiResponse = /** status 200 The case. */ KycCase;
export type GetKycCaseApiArg = {
  id: string;
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type DownloadKycDocumentApiResponse =
  /** status 200 The document. */ Blob;
export type DownloadKycDocumentApiArg = {
  id: string;
  submission: number;
  side: KycSide;
};
export type ApproveKycApiResponse = /** status 200 Approved. */ Message;
export type ApproveKycApiArg = {
  id: string;
  kycApproveRequest: KycApproveRequest;
};
export type RejectKycApiResponse = /** status 200 Rejected. */ Message;
export type RejectKycApiArg = {
  id: string;
  kycRejectRequest: KycRejectRequest;
};
export type GetReferralsApiResponse =
  /** status 200 The caller's referrals. */ Referrals;
export type GetReferralsApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetInvestEligibilityApiResponse =
  /** status 200 Whether the user may invest, and if not, why not. */ InvestEligibility;
export type GetInvestEligibilityApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type ListPlansApiResponse = /** status 200 The active plans. */ PlanList;
export type ListPlansApiArg = void;
export type GetInvestmentQuoteApiResponse =
  /** status 200 The quote. */ InvestmentQuote;
export type GetInvestmentQuoteApiArg = {
  planName: string;
  amount: string;
};
export type StartInvestmentApiResponse =
  /** status 200 The Pending investment. */ Investment;
export type StartInvestmentApiArg = {
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  startInvestmentRequest: StartInvestmentRequest;
};
export type GetInvestmentHistoryApiResponse =
  /** status 200 The investments. */ InvestmentList;
export type GetInvestmentHistoryApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetInvestmentApiResponse =
  /** status 200 The investment. */ Investment;
export type GetInvestmentApiArg = {
  investmentId: string;
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetPendingInvestmentsApiResponse =
  /** status 200 One page of the queue. */ InvestmentQueue;
export type GetPendingInvestmentsApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
  /** A staff queue's `nextCursor` from the page before; absent for the first page. */
  cursor?: string;
  /** How many items a page of a staff queue holds (default 50). */
  limit?: number;
};
export type ApproveInvestmentApiResponse = /** status 200 Approved. */ Message;
export type ApproveInvestmentApiArg = {
  investmentId: string;
};
export type RejectInvestmentApiResponse = /** status 200 Rejected. */ Message;
export type RejectInvestmentApiArg = {
  investmentId: string;
  rejectInvestmentRequest: RejectInvestmentRequest;
};
export type SettleMaturedInvestmentsApiResponse =
  /** status 200 What was settled. */ SettledInvestments;
export type SettleMaturedInvestmentsApiArg = void;
export type SetMaturityInstructionApiResponse =
  /** status 200 The investment with its instruction. */ Investment;
export type SetMaturityInstructionApiArg = {
  investmentId: string;
  maturityInstructionRequest: MaturityInstructionRequest;
};
export type PreviewEarlyRedemptionApiResponse =
  /** status 200 The preview. */ EarlyRedemption;
export type PreviewEarlyRedemptionApiArg = {
  investmentId: string;
};
export type RedeemEarlyApiResponse =
  /** status 200 What was paid back and forfeited. */ EarlyRedemption;
export type RedeemEarlyApiArg = {
  investmentId: string;
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
};
export type GetTransactionHistoryApiResponse =
  /** status 200 The pending movements and one page of the settled ones. */ MovementPage;
export type GetTransactionHistoryApiArg = {
  cursor?: string;
  limit?: number;
};
export type GetStatementApiResponse =
  /** status 200 The statement, as an attachment named for its period. */ string;
export type GetStatementApiArg = {
  /** First UTC day included. */
  from?: string;
  /** Last UTC day included. */
  to?: string;
};
export type GetDashboardApiResponse =
  /** status 200 The dashboard. */ Dashboard;
export type GetDashboardApiArg = void;
export type StreamUserEventsApiResponse = /** status 200 The stream. */ string;
export type StreamUserEventsApiArg = void;
export type ListDepositAddressesApiResponse =
  /** status 200 The addresses. */ DepositAddressList;
export type ListDepositAddressesApiArg = void;
export type CreateDepositApiResponse =
  /** status 200 The Pending deposit. */ Deposit;
export type CreateDepositApiArg = {
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  createDepositRequest: CreateDepositRequest;
};
export type ViewPaymentStatusApiResponse =
  /** status 200 The deposit. */ Deposit;
export type ViewPaymentStatusApiArg = {
  transactionId: string;
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetPendingDepositsApiResponse =
  /** status 200 One page of the queue. */ DepositQueue;
export type GetPendingDepositsApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
  /** A staff queue's `nextCursor` from the page before; absent for the first page. */
  cursor?: string;
  /** How many items a page of a staff queue holds (default 50). */
  limit?: number;
};
export type ConfirmDepositApiResponse =
  | /** status 200 Confirmed. */ Message
  | /** status 202 Needs a second staff member (docs/security.md, "Separation of duties"): nothing is
decided yet; a proposal waits in the staff queues until another admin approves or
rejects it with `POST /proposals/{id}/approve` or `/reject`.
 */ ProposalCreated;
export type ConfirmDepositApiArg = {
  confirmDepositRequest: ConfirmDepositRequest;
};
export type RejectDepositApiResponse = /** status 200 Rejected. */ Message;
export type RejectDepositApiArg = {
  rejectDepositRequest: RejectDepositRequest;
};
export type CreateWithdrawalApiResponse =
  /** status 200 The Pending withdrawal. */ Withdrawal;
export type CreateWithdrawalApiArg = {
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  createWithdrawalRequest: CreateWithdrawalRequest;
};
export type QuoteWithdrawalApiResponse =
  /** status 200 The quote. */ WithdrawalQuote;
export type QuoteWithdrawalApiArg = {
  withdrawalQuoteRequest: WithdrawalQuoteRequest;
};
export type GetPendingWithdrawalsApiResponse =
  /** status 200 One page of the queue. */ WithdrawalQueue;
export type GetPendingWithdrawalsApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
  /** A staff queue's `nextCursor` from the page before; absent for the first page. */
  cursor?: string;
  /** How many items a page of a staff queue holds (default 50). */
  limit?: number;
};
export type GetWithdrawalApiResponse =
  /** status 200 The withdrawal. */ Withdrawal;
export type GetWithdrawalApiArg = {
  id: string;
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetWithdrawalHistoryApiResponse =
  /** status 200 The withdrawals. */ WithdrawalList;
export type GetWithdrawalHistoryApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type ApproveWithdrawalApiResponse =
  | /** status 200 Approved. */ Message
  | /** status 202 Needs a second staff member (docs/security.md, "Separation of duties"): nothing is
decided yet; a proposal waits in the staff queues until another admin approves or
rejects it with `POST /proposals/{id}/approve` or `/reject`.
 */ ProposalCreated;
export type ApproveWithdrawalApiArg = {
  id: string;
  approveWithdrawalRequest: ApproveWithdrawalRequest;
};
export type RejectWithdrawalApiResponse = /** status 200 Rejected. */ Message;
export type RejectWithdrawalApiArg = {
  id: string;
  rejectWithdrawalRequest: RejectWithdrawalRequest;
};
export type GetCountriesApiResponse =
  /** status 200 Countries by name. */ Country[];
export type GetCountriesApiArg = void;
export type ListDevMailApiResponse =
  /** status 200 The mailbox. */ DevMailSummary[];
export type ListDevMailApiArg = void;
export type GetDevMailApiResponse = /** status 200 The message. */ DevMail;
export type GetDevMailApiArg = {
  id: string;
};
export type GetDevClockApiResponse = /** status 200 The clock. */ DevClock;
export type GetDevClockApiArg = void;
export type AdvanceDevClockApiResponse =
  /** status 200 The clock after the move. */ DevClock;
export type AdvanceDevClockApiArg = {
  devClockAdvance: DevClockAdvance;
};
export type GetMarketCandlesApiResponse =
  /** status 200 The market's cached candles and their freshness. */ MarketCandles;
export type GetMarketCandlesApiArg = {
  symbol: "EURUSD" | "BTCUSDT";
  /** Only daily candles are served. */
  interval?: "1d";
};
export type GetContentFaqApiResponse = /** status 200 The FAQ. */ ContentFaq;
export type GetContentFaqApiArg = void;
export type GetContentTeamApiResponse = /** status 200 The team. */ ContentTeam;
export type GetContentTeamApiArg = void;
export type GetContentHowItWorksApiResponse =
  /** status 200 The steps, in order. */ ContentHowItWorks;
export type GetContentHowItWorksApiArg = void;
export type GetContentSupportApiResponse =
  /** status 200 How to reach support. */ ContentSupport;
export type GetContentSupportApiArg = void;
export type GetContentPageApiResponse = /** status 200 The page. */ ContentPage;
export type GetContentPageApiArg = {
  slug: string;
};
export type CreateSupportTicketApiResponse = /** status 200 Sent. */ Message;
export type CreateSupportTicketApiArg = {
  createSupportTicketRequest: CreateSupportTicketRequest;
};
export type ListSupportTicketsApiResponse =
  /** status 200 The queue. */ SupportTicketQueue;
export type ListSupportTicketsApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type ReplySupportTicketApiResponse = /** status 200 Sent. */ Message;
export type ReplySupportTicketApiArg = {
  id: string;
  replySupportTicketRequest: ReplySupportTicketRequest;
};
export type CloseSupportTicketApiResponse = /** status 200 Closed. */ Message;
export type CloseSupportTicketApiArg = {
  id: string;
};
export type ListTestimonialsApiResponse =
  /** status 200 The published testimonials. */ TestimonialList;
export type ListTestimonialsApiArg = void;
export type SubmitTestimonialApiResponse =
  /** status 201 Submitted, pending review. */ TestimonialSubmitted;
export type SubmitTestimonialApiArg = {
  submitTestimonialRequest: SubmitTestimonialRequest;
};
export type GetMyTestimonialApiResponse =
  /** status 200 The caller's standing. */ MyTestimonial;
export type GetMyTestimonialApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetPendingTestimonialsApiResponse =
  /** status 200 The queue. */ TestimonialQueue;
export type GetPendingTestimonialsApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type ApproveTestimonialApiResponse = /** status 200 Approved. */ Message;
export type ApproveTestimonialApiArg = {
  testimonialId: string;
};
export type RejectTestimonialApiResponse = /** status 200 Rejected. */ Message;
export type RejectTestimonialApiArg = {
  testimonialId: string;
  rejectTestimonialRequest: RejectTestimonialRequest;
};
export type GetPublicActivityApiResponse =
  /** status 200 The activities. */ PublicActivity;
export type GetPublicActivityApiArg = void;
export type GetPublicStatsApiResponse =
  /** status 200 The counts. */ PublicStats;
export type GetPublicStatsApiArg = void;
export type ListBadgesApiResponse =
  /** status 200 The levels. */ BadgeLevelList;
export type ListBadgesApiArg = void;
export type GetUserMoneyApiResponse = /** status 200 Done. */ UserMoney;
export type GetUserMoneyApiArg = {
  id: string;
};
export type PostCorrectionApiResponse =
  | /** status 200 Done. */ Message
  | /** status 202 Needs a second admin; a proposal waits in the proposals queue. */ ProposalCreated;
export type PostCorrectionApiArg = {
  id: string;
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  correctionRequest: CorrectionRequest;
};
export type EditReturnsApiResponse = /** status 200 Done. */ Message;
export type EditReturnsApiArg = {
  id: string;
};
export type WaiveFeeApiResponse = /** status 200 Done. */ Message;
export type WaiveFeeApiArg = {
  id: string;
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  waiveFeeRequest: WaiveFeeRequest;
};
export type UpdateFeesApiResponse = /** status 200 Done. */ Message;
export type UpdateFeesApiArg = {
  id: string;
  updateFeesRequest: UpdateFeesRequest;
};
export type SetFeeExemptionApiResponse = /** status 200 Done. */ Message;
export type SetFeeExemptionApiArg = {
  id: string;
  feeExemptionRequest: FeeExemptionRequest;
};
export type GetMyBadgeApiResponse =
  /** status 200 The caller's badge. */ MyBadge;
export type GetMyBadgeApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type StreamStaffEventsApiResponse = /** status 200 The stream. */ string;
export type StreamStaffEventsApiArg = void;
export type GetQueueCountsApiResponse =
  /** status 200 The counts. */ QueueCounts;
export type GetQueueCountsApiArg = {
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetChainStatusApiResponse =
  /** status 200 The watched chains. */ ChainStatus;
export type GetChainStatusApiArg = void;
export type SendComposedEmailApiResponse =
  /** status 200 The preview, or the send. */ ComposeEmailResponse;
export type SendComposedEmailApiArg = {
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  composeEmailRequest: ComposeEmailRequest;
};
export type SendAutomatedEmailApiResponse =
  /** status 200 Queued. */ ComposeEmailResponse;
export type SendAutomatedEmailApiArg = {
  automatedEmailRequest: AutomatedEmailRequest;
};
export type ListEmailBroadcastsApiResponse =
  /** status 200 At most 100 sends. */ EmailBroadcastList;
export type ListEmailBroadcastsApiArg = void;
export type GetEmailBroadcastApiResponse =
  /** status 200 The send. */ EmailBroadcast;
export type GetEmailBroadcastApiArg = {
  id: string;
};
export type CancelEmailBroadcastApiResponse =
  /** status 200 Cancelled. */ ComposeEmailResponse;
export type CancelEmailBroadcastApiArg = {
  id: string;
};
export type GetProposalsApiResponse = /** status 200 The queue. */ ProposalList;
export type GetProposalsApiArg = void;
export type ApproveProposalApiResponse =
  /** status 200 Approved and carried out. */ Message;
export type ApproveProposalApiArg = {
  proposalId: string;
  approveProposalRequest: ApproveProposalRequest;
};
export type RejectProposalApiResponse = /** status 200 Rejected. */ Message;
export type RejectProposalApiArg = {
  proposalId: string;
  rejectProposalRequest: RejectProposalRequest;
};
export type GetSettingsApiResponse = /** status 200 The settings. */ Settings;
export type GetSettingsApiArg = void;
export type UpdateSettingsApiResponse =
  /** status 200 Changed; the settings as they are now. */ Settings;
export type UpdateSettingsApiArg = {
  section:
    "withdrawalFee" | "referral" | "approvals" | "depositAddresses" | "support";
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  settingsUpdate: SettingsUpdate;
};
export type CreatePlanApiResponse = /** status 201 Created. */ PlanCreated;
export type CreatePlanApiArg = {
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  planCreateRequest: PlanCreateRequest;
};
export type NewPlanVersionApiResponse =
  /** status 200 The new version is in force. */ Message;
export type NewPlanVersionApiArg = {
  planId: string;
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  planVersionRequest: PlanVersionRequest;
};
export type RetirePlanApiResponse = /** status 200 Retired. */ Message;
export type RetirePlanApiArg = {
  planId: string;
  /** Makes a retry of this request safe: a repeat with the same key and the same request gets
    the first answer again (marked `Idempotency-Hit: true`) instead of running twice. 1 to 255
    visible ASCII characters, e.g. a UUID; remembered for at least 24 hours.
     */
  "Idempotency-Key"?: string;
  settingsReason: SettingsReason;
};
export type GetAuditLogApiResponse =
  /** status 200 A page of the log. */ AuditLogPage;
export type GetAuditLogApiArg = {
  /** The staff member's id or e-mail. */
  actor?: string;
  /** The target user's id or e-mail. */
  target?: string;
  kind?: string;
  /** From this time on (included). */
  from?: string;
  /** Until this time (excluded). */
  to?: string;
  before?: string;
  limit?: number;
  /** A position returned by an earlier command. The server waits, bounded, until the read
    models this query uses have passed it.
     */
  "X-Clearvest-Position"?: number;
};
export type GetAuditLogCsvApiResponse =
  /** status 200 The log, as an attachment. */ string;
export type GetAuditLogCsvApiArg = {
  /** The staff member's id or e-mail. */
  actor?: string;
  /** The target user's id or e-mail. */
  target?: string;
  kind?: string;
  /** From this time on (included). */
  from?: string;
  /** Until this time (excluded). */
  to?: string;
};
export type GetAuditEventsApiResponse =
  /** status 200 A page of events. */ AuditEventPage;
export type GetAuditEventsApiArg = {
  stream?: string;
  after?: number;
  type?: string;
  limit?: number;
};
export type GetAuditBooksApiResponse = /** status 200 The books. */ AuditBooks;
export type GetAuditBooksApiArg = {
  position?: number;
};
export type Meta = {
  /** Whether "Continue with Google" is offered (GOOGLE_CLIENT_ID is set). */
  googleSignIn: boolean;
  product: "Clearvest";
  /** Build version of the server ("dev" for local builds). */
  version: string;
  environment: "development" | "production";
};
export type InvestmentQuote = {
  plan: string;
  /** The version of the plan's terms these figures come from; startInvestment needs it back. */
  planVersion: number;
  amount: string;
  termDays: number;
  termRate: string;
  apr: string;
  /** amount × termRate, rounded half-even to the cent. */
  return: string;
  /** amount + return. */
  payout: string;
  /** The end date if the investment were approved now. */
  maturesAt: string;
  /** The caller's available balance. */
  available: string;
};
export type WithdrawalQuote = {
  /** The amount asked about (when given), decimal string. */
  amount?: string;
  /** The fee on it, decimal string. */
  fee?: string;
  /** What the user would receive, amount − fee, decimal string. */
  receives?: string;
  /** The address as it will be paid to (when given), trimmed. */
  walletAddress?: string;
  /** The smallest withdrawal, decimal string. */
  minimum: string;
  /** The fee as published, without the minimum (which is `minimum`), e.g. "1% + $1.00 (at most $25.00)". */
  schedule: string;
  /** Staff exempted the account from withdrawal fees, so `fee` is 0.00. */
  feeExempt?: boolean;
};
export type Error = {
  /** What went wrong, worded for the user; safe to show as-is. */
  message: string;
  /** A stable machine-readable reason, when the client must act on it: `login_expired` (the pending sign-in is gone: back to
    login), `totp_required` (the authenticator code sent is wrong: send it again), `suspended`, `link_required` (Google
    sign-in needs the password or an e-mailed code), `step_up_required` (403: confirm
    with stepUp, then repeat the request), `withdrawal_cooldown` (403: withdrawals are
    paused until `until` after a security change), `plan_changed` (409: the plan's terms
    changed since the quote; the new ones are in `investmentQuote`), `fee_changed` (409:
    the withdrawal fee differs from the one sent; the new figures are in
    `withdrawalQuote`).
     */
  code?: string;
  /** With `withdrawal_cooldown` only, when withdrawals are possible again. */
  until?: string;
  investmentQuote?: InvestmentQuote;
  withdrawalQuote?: WithdrawalQuote;
  /** With `new_device` only: the token of the pending sign-in, for loginWithCode and
    sendLoginCode (browsers also get it as the HttpOnly cookie `cv_pending_login`).
     */
  pendingLogin?: string;
  /** The input at fault, when the error is about one field. */
  field?: string;
};
export type Role = "subscriber" | "author" | "admin" | "suspended";
export type KycStatus = "Not Submitted" | "Pending" | "Approved" | "Rejected";
export type UserFigures = {
  balance: string;
  /** The sum received of the user's confirmed deposits. */
  deposited: string;
  investmentBalance: string;
  totalMaturityAmount: string;
  fees: string;
} | null;
export type User = {
  _id: string;
  name: string;
  email: string;
  phone: string;
  /** ISO 3166-1 alpha-2 code, or "" when not given. */
  country: string;
  bio: string;
  /** URL of the profile photo on our origin, or "". */
  photo: string;
  role: Role;
  status: "active" | "suspended" | "closed";
  /** The e-mail address is verified. */
  isVerified: boolean;
  kycStatus: KycStatus;
  /** Available wallet balance, USD decimal string. */
  balance: string;
  investmentBalance: string;
  /** Total returns ("profit") so far. */
  totalMaturityAmount: string;
  fees: string;
  hasFees: boolean;
  figures?: UserFigures;
  referralCode: string;
  /** True in a view-as-user session an admin holds (docs/staff.md, "Viewing as a user"). */
  isImpersonated: boolean;
  /** In a view-as-user session, when it ends by itself. */
  impersonationEndsAt?: string;
  twoFactorEnabled: boolean;
  createdAt?: string;
  /** Access token (JWT, 15 minutes); present only in sign-in responses. API clients send it
    as `Authorization: Bearer <token>`; browsers can ignore it (the cookie carries it).
     */
  token?: string;
};
export type Language = "en" | "de";
export type RegisterRequest = {
  name?: string;
  email?: string;
  password?: string;
  /** When given, it must equal password ('Passwords do not match'). */
  confirmPassword?: string;
  phone?: string;
  /** ISO 3166-1 alpha-2 code (or the country's name). */
  country?: string;
  referralCode?: string;
  /** The person ticked "I agree to the Terms and the Privacy Policy". Required to be true. */
  acceptTerms?: boolean;
  language?: Language;
};
export type LoginPending = {
  status: "new_device" | "totp";
  message: string;
  /** With `new_device` only: the pending sign-in's token, for API clients (browsers get it
    as a cookie).
     */
  pendingLogin?: string;
};
export type LoginRequest = {
  email?: string;
  password?: string;
  /** Authenticator code or recovery code, after a `totp` step (202) or a `totp_required` answer. */
  totpCode?: string;
};
export type Message = {
  message: string;
};
export type TokenResponse = {
  token: string;
  expiresAt: string;
};
export type UpdateUserRequest = {
  name?: string;
  phone?: string;
  bio?: string;
  country?: string;
  photo?: string;
};
export type ChangePasswordRequest = {
  oldPassword?: string;
  password?: string;
  confirmPassword?: string;
};
export type SetLanguageRequest = {
  language: Language;
};
export type StepUpState = {
  /** True while the session counts as confirmed (POST /users/step-up). */
  confirmed: boolean;
  /** True when the account has a passkey, which can confirm instead (beginPasskeyStepUp). */
  passkey?: boolean;
};
export type StepUp = {
  message: string;
  /** Until when the session counts as confirmed. */
  expiresAt: string;
};
export type PasskeyAssertion = {
  challengeId: string;
  /** The PublicKeyCredential the browser returned, in its JSON form (binary fields base64url). */
  credential: {
    [key: string]: any;
  };
};
export type StepUpRequest = {
  /** The code of the authenticator app (accounts with one). */
  code?: string;
  /** The account's password (accounts without an authenticator app). */
  password?: string;
  passkey?: PasskeyAssertion;
};
export type ForgotPasswordRequest = {
  email?: string;
};
export type ResetPasswordRequest = {
  password?: string;
  confirmPassword?: string;
};
export type SendLoginCodeRequest = {
  /** The pending sign-in's token from the `new_device` answer; browsers send the cookie instead. */
  pendingLogin?: string;
};
export type LoginWithCodeRequest = {
  loginCode?: string;
  totpCode?: string;
  /** The pending sign-in's token from the `new_device` answer; browsers send the cookie instead. */
  pendingLogin?: string;
};
export type GoogleLinkRequest = {
  password?: string;
  code?: string;
  totpCode?: string;
};
export type Session = {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  ip: string;
  userAgent: string;
  /** This is the session making the request. */
  current: boolean;
};
export type Passkey = {
  /** The credential id (base64url). */
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt?: string;
};
export type PasskeyList = {
  passkeys: Passkey[];
};
export type PasskeyCeremony = {
  /** Sent back with the answer; single-use, valid 5 minutes. */
  challengeId: string;
  /** PublicKeyCredentialCreationOptions or PublicKeyCredentialRequestOptions in their JSON
    form (binary fields base64url).
     */
  publicKey: {
    [key: string]: any;
  };
};
export type PasskeyRegistrationRequest = {
  challengeId: string;
  /** The person's name for the passkey, at most 60 characters. */
  name: string;
  /** The PublicKeyCredential the browser created, in its JSON form (binary fields base64url). */
  credential: {
    [key: string]: any;
  };
};
export type TwoFactorSetup = {
  /** Base32 secret to type into the app. */
  secret: string;
  /** The otpauth:// URL the QR code holds. */
  otpauthUrl: string;
  /** The QR code as a PNG data URL, usable directly as an image source. */
  qrCode: string;
};
export type RecoveryCodes = {
  message: string;
  recoveryCodes: string[];
};
export type TwoFactorEnableRequest = {
  code?: string;
};
export type TwoFactorDisableRequest = {
  password?: string;
  code?: string;
};
export type SecurityLogEntry = {
  id: string;
  at: string;
  /** signed_in, registered, email_verified, password_changed, new_device_sign_in,
    two_factor_enabled, two_factor_disabled, passkey_added, passkey_removed, role_changed, suspended, reinstated,
    staff_access, staff_viewed (new kinds may appear; show `description`).
     */
  kind: string;
  description: string;
  ip?: string;
  userAgent?: string;
  /** For `staff_viewed`, the role of the staff member who viewed the account (never their name). */
  staffRole?: string;
};
export type UserPage = {
  users: User[];
  /** Users matching the search and filters, in all. */
  total: number;
  /** The next page's cursor; absent on the last page. */
  nextCursor?: string;
  /** All users (closed accounts not counted), whatever the filters. */
  counts: {
    users: number;
    verified: number;
    suspended: number;
  };
};
export type ProposalCreated = {
  message: string;
  proposalId: string;
};
export type UpgradeUserRequest = {
  id?: string;
  /** subscriber, author, admin or suspended. */
  role?: string;
  /** Why, when suspending or granting admin (then required). */
  reason?: string;
};
export type SuspendRequest = {
  reason?: string;
};
export type ImpersonationStarted = {
  message: string;
  /** The view-as-user access token (also set as `cv_access`). */
  token: string;
  expiresAt: string;
  userId: string;
  name: string;
};
export type ImpersonationExited = {
  message: string;
  /** True when the admin is back in their own session; false when it had ended. */
  signedIn: boolean;
};
export type CloseAccountRequest = {
  /** Why the account closes; required. */
  reason?: string;
};
export type KycSide = "front" | "back";
export type KycDocument = {
  side: KycSide;
  /** The submission this file came with. */
  submission: number;
  /** Detected from the content. */
  contentType: string;
  size: number;
  /** Hex SHA-256 of the file as uploaded. */
  sha256: string;
  /** Where downloadKycDocument serves it (a POST), or "" when the file was deleted. */
  url: string;
};
export type KycPerson = {
  _id: string;
  /** "" for a closed account. */
  name: string;
};
export type KycRejectionReason =
  | "blurry"
  | "cut_off"
  | "glare"
  | "expired"
  | "mismatch"
  | "not_accepted"
  | "missing"
  | "other";
export type KycDocumentRejection = {
  side: KycSide;
  reason: KycRejectionReason;
};
export type KycDecision = {
  status: "Approved" | "Rejected";
  at: string;
  reviewer: KycPerson;
  /** The refused documents (empty for an approval). */
  documents: KycDocumentRejection[];
  comment: string;
};
export type MyKyc = {
  kycStatus: KycStatus;
  /** The latest submission's number, 0 before the first. */
  submission: number;
  submittedAt?: string;
  /** The documents on file now, one per side. */
  documents: KycDocument[];
  /** The sides the next upload must carry (both before the first, the rejected ones after a rejection, none otherwise). */
  resubmit: KycSide[];
  lastDecision?: KycDecision;
};
export type KycSubmitted = {
  message: string;
  kyc: MyKyc;
};
export type KycQueueItem = {
  _id: string;
  name: string;
  email: string;
  country: string;
  /** 1 for a first submission, higher for a re-upload after a rejection. */
  submission: number;
  submittedAt: string;
  /** Sides sent with this submission. */
  documents: KycSide[];
};
export type KycQueue = {
  pendingUsers: KycQueueItem[];
  /** The server's clock when the queue was read; waiting times count to it. */
  asOf: string;
  /** How many identity checks wait in all, on every page. */
  total: number;
  /** The `cursor` of the next page; absent on the last page. */
  nextCursor?: string;
};
export type KycSubmission = {
  /** Counts the user's submissions from 1. */
  submission: number;
  submittedAt: string;
  /** The files sent with this submission (both at first, the rejected ones later). */
  documents: KycDocument[];
  decision?: KycDecision;
};
export type KycCase = {
  user: {
    _id: string;
    name: string;
    email: string;
    phone: string;
    country: string;
    isVerified: boolean;
    status: "active" | "suspended" | "closed";
    createdAt: string;
  };
  kycStatus: KycStatus;
  /** The documents on file now, one per side (what a decision is about). */
  documents: KycDocument[];
  /** Every submission, newest first, each with its decision. */
  submissions: KycSubmission[];
  asOf: string;
};
export type KycApproveRequest = {
  /** The submission the reviewer looked at; 409 if another is pending now. */
  submission?: number;
};
export type KycRejectRequest = {
  /** A free comment for the user. */
  reason?: string;
  documents: KycDocumentRejection[];
  submission?: number;
};
export type Referral = {
  _id: string;
  /** Empty once the account is closed. */
  name: string;
  /** The profile photo's URL, or empty. */
  photo: string;
  joinedAt: string;
  /** Their first deposit was confirmed. */
  qualified: boolean;
  /** The account was closed; name and photo are gone. */
  closed: boolean;
  /** The bonus credited for this user, once it was. */
  bonus?: string;
};
export type Referrals = {
  referralCode: string;
  /** The public register page with the code filled in. */
  referralLink: string;
  /** What a referral earns when their first deposit is confirmed. */
  bonus: string;
  totalEarned: string;
  /** Newest first. */
  referrals: Referral[];
  /** "No referrals" when the list is empty. */
  message?: string;
};
export type InvestEligibility = {
  eligible: boolean;
  /** Present when `eligible` is false; the sentence saying what is missing. */
  reason?: string;
};
export type PlanExample = {
  amount: string;
  /** amount × termRate, rounded half-even to the cent. */
  return: string;
  /** amount + return, paid at maturity. */
  payout: string;
  maturityDays: number;
};
export type Plan = {
  _id: string;
  name: string;
  /** The smallest amount accepted, USD decimal string. */
  min: string;
  /** The largest amount accepted, USD decimal string. */
  max: string;
  termDays: number;
  /** The rate for the whole term as a decimal (at least four decimals). */
  termRate: string;
  /** The simple annualised rate in percent, two decimals. */
  apr: string;
  /** The version of the terms; it grows each time the terms change. */
  version: number;
  example: PlanExample;
};
export type PlanList = {
  plans: Plan[];
};
export type InvestmentStatus = "Pending" | "Active" | "Ended" | "Rejected";
export type MaturityInstruction = "payout" | "reinvest";
export type DepositUser = {
  _id: string;
  name: string;
  email: string;
};
export type Investment = {
  _id: string;
  /** What the investor knows it by (`INV-5Q2X7K3M`), also on its rows in the history; see docs/history.md. */
  reference: string;
  /** The plan's name as it was when the investment was requested. */
  plan: string;
  planId: string;
  /** The version of the plan's terms the investment captured. */
  planVersion: number;
  /** The principal, USD decimal string. */
  amount: string;
  status: InvestmentStatus;
  termDays: number;
  /** The captured rate for the whole term as a decimal (at least four decimals). */
  termRate: string;
  /** The simple annualised rate of the captured terms in percent, two decimals. */
  apr: string;
  /** The return, fixed at approval ("0.00" before); the expected return while Pending. */
  maturityAmount: string;
  /** amount + maturityAmount, paid at maturity. */
  payout: string;
  /** The return given up by an early redemption ("0.00" otherwise). */
  forfeited: string;
  instruction: MaturityInstruction;
  closedEarly: boolean;
  /** How far through its term the investment is, by the app clock (display only). */
  progressPercent: number;
  /** An estimate of the return earned so far, as if it accrued evenly over the term (half-even
    to the cent). Display only: the return is paid whole at maturity, or forfeited by an
    early redemption.
     */
  accruedEstimate: string;
  /** The investment the payout went into, after a reinvestment. */
  reinvestedAs?: string;
  /** The investment whose payout started this one. */
  reinvestedFrom?: string;
  startDate?: string;
  endDate?: string;
  requestedAt: string;
  decidedAt?: string;
  closedAt?: string;
  /** Why staff rejected it. */
  reason?: string;
  user?: DepositUser;
};
export type StartInvestmentRequest = {
  amount: string;
  planName: string;
  /** The plan version the investor was shown (`planVersion` of the quote). A request without it is a 400; one for another version than the current one a 409 `plan_changed` with the current figures. */
  planVersion: number;
};
export type InvestmentList = {
  /** The app clock's reading, which decides maturity. */
  asOf: string;
  investments: Investment[];
};
export type InvestmentQueueItem = {
  investment: Investment;
  /** How long the investment has waited, at asOf. */
  ageSeconds: number;
};
export type InvestmentQueue = {
  asOf: string;
  pendingInvestments: InvestmentQueueItem[];
  /** How many investments wait in all, on every page. */
  total: number;
  /** The `cursor` of the next page; absent on the last page. */
  nextCursor?: string;
};
export type RejectInvestmentRequest = {
  reason: string;
};
export type SettledInvestments = {
  settled: Investment[];
};
export type MaturityInstructionRequest = {
  /** payout or reinvest. */
  instruction: string;
};
export type EarlyRedemption = {
  investmentId: string;
  /** What comes back to the available balance. */
  principal: string;
  /** The return given up. */
  forfeited: string;
};
export type MovementKind =
  | "deposit"
  | "investment"
  | "withdrawal"
  | "fee"
  | "return"
  | "adjustment"
  | "bonus";
export type MovementStatus =
  | "pending"
  | "confirmed"
  | "rejected"
  | "active"
  | "matured"
  | "closed"
  | "completed";
export type MovementDetails = {
  plan?: string;
  termDays?: number;
  termRate?: string;
  asset?: string;
  network?: string;
  address?: string;
  /** Why staff rejected it, why an adjustment was made, or why a fee was refunded. */
  reason?: string;
  category?: string;
  principal?: string;
  return?: string;
  expectedReturn?: string;
  forfeited?: string;
  closedEarly?: boolean;
  waived?: boolean;
  startDate?: string;
  endDate?: string;
  /** The reference of the investment whose payout started this one. */
  reinvestedFrom?: string;
};
export type Movement = {
  kind: MovementKind;
  /** What the investor knows the movement by (`DEP-7K3M9Q2X`); see docs/history.md. */
  reference: string;
  /** The deposit, investment or withdrawal the row is about, for the link to its page. */
  subjectId?: string;
  /** Signed decimal string, into (+) or out of (-) the available balance. */
  amount: string;
  status: MovementStatus;
  createdAt: string;
  /** The last change of status. */
  updatedAt: string;
  /** When it left pending; absent while pending. */
  settledAt?: string;
  details: MovementDetails;
};
export type MovementPage = {
  pending: Movement[];
  items: Movement[];
  nextCursor?: string;
};
export type BalancePoint = {
  date: string;
  balance: string;
};
export type MonthReturn = {
  /** YYYY-MM (UTC). */
  month: string;
  returns: string;
};
export type HistoryType =
  "Transaction" | "Investment" | "Withdrawal" | "Adjustment" | "Fee" | "Bonus";
export type HistoryItem = {
  /** The event's id. */
  _id: string;
  type: HistoryType;
  /** A request's current status (Pending, Confirmed, Active, Ended, Approved, Rejected),
    a decision's decided status, or Completed.
     */
  status: string;
  title: string;
  /** Signed effect on the available balance, decimal string. */
  effect: string;
  amount: string;
  fee: string;
  /** The available balance after this item. */
  balanceAfter: string;
  date: string;
  /** The deposit's transaction ID, the investment's or the withdrawal's id. */
  reference: string;
  /** Plan and terms, network, address and transaction hash, reason or notes, category,
    and the staff decision, as the event recorded them.
     */
  details: {
    [key: string]: any;
  };
  /** On the dashboard's pending items, for a deposit the chain watcher is following: the
    confirmations its transfer has (see Deposit.confirmations).
     */
  confirmations?: number;
  /** With confirmations, the number at which the deposit is credited. */
  confirmationsNeeded?: number;
};
export type Dashboard = {
  balance: BalancePoint[];
  returnsByMonth: MonthReturn[];
  pending: HistoryItem[];
};
export type DepositAsset = "BTC" | "ETH" | "USDT";
export type DepositNetwork = "BTC" | "ERC20" | "TRC20";
export type DepositAddress = {
  asset: DepositAsset;
  network: DepositNetwork;
  address: string;
  /** The signed-in investor's own address on a watched network (docs/chain.md): what
    arrives there is theirs alone and is credited automatically after `confirmations`,
    with nothing to declare. False for the shared address, where a deposit is declared
    and confirmed by staff.
     */
  own: boolean;
  /** How many confirmations a deposit on this network needs before it is credited (by staff, or by the watcher on an own address). */
  confirmations: number;
  /** How many minutes a deposit on this network usually takes to reach them. */
  usualMinutes: number;
};
export type DepositAddressList = {
  /** The smallest deposit in USD, decimal string (CLEARVEST_MIN_DEPOSIT); a request below it is refused with 422. */
  minimum: string;
  addresses: DepositAddress[];
};
export type DepositStatus = "Pending" | "Confirmed" | "Rejected";
export type Deposit = {
  transactionId: string;
  /** What the investor knows it by, on its row in the history too: its transaction ID (see
    docs/history.md). Every deposit has one.
     */
  reference: string;
  /** USD the investor stated, decimal string. */
  amount: string;
  asset: string;
  network: string;
  /** Where the investor was told to send the asset. */
  address: string;
  /** What the QR code encodes (the address). */
  qrPayload: string;
  onChainAmount: string;
  usdRate: string;
  txHash: string;
  status: DepositStatus;
  /** USD credited, decimal string ("0.00" until confirmed). */
  received: string;
  notes: string;
  requestedAt: string;
  decidedAt?: string;
  /** declared: the investor declared it and staff confirm or reject it. chain: the chain
    watcher saw the transfer arrive at the investor's own address (or linked the
    investor's declaration to it) and credits it once it has its confirmations; staff
    cannot decide it (docs/chain.md).
     */
  source: "declared" | "chain";
  /** A pending chain deposit only: the confirmations its transfer has at the network's tip
    as the watcher last read it (0 before the watcher reached its block).
     */
  confirmations?: number;
  /** A pending chain deposit only; the confirmations at which it is credited. */
  confirmationsNeeded?: number;
  user?: DepositUser;
};
export type CreateDepositRequest = {
  /** USD the investor sent, decimal string. */
  amount: string;
  asset: string;
  network: string;
  /** How much of the asset was sent; required for BTC and ETH, ignored for USDT. */
  onChainAmount?: string;
  /** The on-chain transaction hash, if the investor has it: 64 hexadecimal digits (BTC, TRC20) or 0x and 64 (ERC20; the 0x may be left out), any case. It is recorded in its network's canonical form (lower case, 0x only on ERC20) and may be used once per network. A hash with spaces or invisible characters is a 400; one already used, in any spelling, a 409. */
  txHash?: string;
};
export type DepositQueueItem = {
  deposit: Deposit;
  /** How long the deposit has waited, at asOf. */
  ageSeconds: number;
};
export type DepositQueue = {
  asOf: string;
  deposits: DepositQueueItem[];
  /** How many deposits wait in all, on every page. */
  total: number;
  /** The `cursor` of the next page; absent on the last page. */
  nextCursor?: string;
};
export type ConfirmDepositRequest = {
  transactionId: string;
  /** USD actually received, decimal string. */
  amount: string;
  notes?: string;
};
export type RejectDepositRequest = {
  transactionId: string;
  /** The reason for the rejection, shown to the investor; required (400 without it). */
  notes?: string;
};
export type WithdrawalStatus = "Pending" | "Approved" | "Rejected";
export type PayoutOnChain = {
  status: "confirming" | "final" | "failed" | "missing";
  /** The block holding the transaction (0 when missing). */
  height: number;
  /** Blocks on top of it, its own included, counted up to the number the network needs. */
  confirmations: number;
  /** When the watcher recorded this. */
  seenAt: string;
};
export type Withdrawal = {
  _id: string;
  /** What the investor knows it by (`WDR-0123ABCD`), also on its rows and its fee's in the history; see docs/history.md. */
  reference: string;
  /** USD taken from the available balance, decimal string. */
  amount: string;
  /** The schedule's fee, decimal string; charged when approved. */
  fee: string;
  /** What the investor is paid, amount − fee, decimal string. */
  receives: string;
  /** How much of the fee staff refunded, decimal string. */
  feeWaived: string;
  walletAddress: string;
  network: string;
  asset: string;
  status: WithdrawalStatus;
  requestDate: string;
  decidedAt?: string;
  /** The payout transaction (approved withdrawals). */
  txHash: string;
  payoutOnChain?: PayoutOnChain;
  onChainAmount: string;
  usdRate: string;
  /** Why it was rejected (rejected withdrawals). */
  reason: string;
  user?: DepositUser;
  /** The investor's available balance now, decimal string (staff views of one withdrawal). */
  availableBalance?: string;
};
export type CreateWithdrawalRequest = {
  /** USD taken from the available balance, decimal string; the fee comes out of it. */
  amount: string;
  walletAddress: string;
  /** BTC, ERC20 or TRC20. */
  network: string;
  /** The coin to pay in; by default USDT on ERC20 and TRC20, BTC on BTC. */
  asset?: string;
  /** The fee the investor was shown (`fee` of the quote for this amount), decimal string. A request without it is a 400; one whose fee is not what the schedule charges now a 409 `fee_changed` with the current figures. */
  fee: string;
};
export type WithdrawalQuoteRequest = {
  /** USD to take from the available balance, decimal string; leave it out for the schedule alone. */
  amount?: string;
  /** BTC, ERC20 or TRC20. */
  network: string;
  /** The address to check; leave it out to check none. */
  walletAddress?: string;
};
export type WithdrawalQueueItem = {
  withdrawal: Withdrawal;
  /** How long the withdrawal has waited, at asOf. */
  ageSeconds: number;
};
export type WithdrawalQueue = {
  asOf: string;
  withdrawals: WithdrawalQueueItem[];
  /** How many withdrawals wait in all, on every page. */
  total: number;
  /** The `cursor` of the next page; absent on the last page. */
  nextCursor?: string;
};
export type WithdrawalList = {
  withdrawals: Withdrawal[];
};
export type ApproveWithdrawalRequest = {
  /** The payout transaction hash, well-formed for the withdrawal's network (64 hexadecimal digits; 0x and 64 on ERC20, the 0x optional), recorded in its canonical form. A hash already recorded for another payout or for a deposit is a 409. Required below the approval threshold; above it, left empty: the second staff member records it when they approve. */
  txHash?: string;
  /** Why the payout should go ahead; required above the threshold. */
  reason?: string;
  /** How much of the asset was sent, if known. */
  onChainAmount?: string;
  /** The USD rate applied, if known. */
  usdRate?: string;
};
export type RejectWithdrawalRequest = {
  reason: string;
};
export type Country = {
  name: string;
  code: string;
  dialCode?: string;
};
export type DevMailSummary = {
  id: string;
  to: string;
  subject: string;
  date: string;
};
export type DevMail = {
  id: string;
  to: string;
  subject: string;
  date: string;
  text: string;
  html: string;
};
export type DevClock = {
  /** The application's current time (UTC). */
  now: string;
  /** How far the test clock is ahead of the real one, as a Go duration ("72h0m0s"). */
  offset: string;
  /** The same offset in whole seconds. */
  offsetSeconds: number;
};
export type DevClockAdvance = {
  /** A positive Go duration ("72h", "90m", "1h30m") of at most 3650 days (87600h). */
  advance: string;
};
export type MarketCandle = {
  /** The UTC day the candle opened. */
  time: string;
  open: string;
  high: string;
  low: string;
  close: string;
};
export type MarketCandles = {
  symbol: "EURUSD" | "BTCUSDT";
  interval: "1d";
  status: "live" | "stale" | "unavailable";
  /** When the data was last fetched successfully; absent when unavailable. */
  asOf?: string;
  /** Who published the prices, for attribution. */
  source: string;
  /** Each day is one published reference rate, not a traded range. */
  referenceRate: boolean;
  /** Oldest first; empty when unavailable. */
  candles: MarketCandle[];
};
export type ContentFaqItem = {
  id: string;
  question: string;
  /** The answer, rendered from Markdown without raw HTML. */
  answerHtml: string;
};
export type ContentFaq = {
  /** The answers are placeholder text; the site says so. */
  sample: boolean;
  items: ContentFaqItem[];
};
export type ContentTeamMember = {
  id: string;
  name: string;
  title: string;
  /** A path on this site or an https URL. */
  image: string;
  description: string;
  /** One of chart, compass, gift, headset, id-card, list, lock, mail, pen, shield, user, wallet. */
  icon: string;
};
export type ContentTeam = {
  /** The members are sample profiles; the site labels the section and every card. */
  sample: boolean;
  heading: string;
  intro: string;
  members: ContentTeamMember[];
};
export type ContentStep = {
  id: string;
  title: string;
  icon: string;
  /** A path on this site the step leads to, when it has one. */
  link?: string;
  descriptionHtml: string;
};
export type ContentHowItWorks = {
  intro: string;
  steps: ContentStep[];
};
export type ContentSupport = {
  email: string;
  responseTime: string;
  hours?: string;
};
export type ContentPage = {
  slug: string;
  title: string;
  /** The page is sample text the operator must replace; the site says so. */
  sample: boolean;
  /** The page, rendered from Markdown without raw HTML. */
  html: string;
  /** The date of the page's last change (YYYY-MM-DD), when the page states one. For the terms and the privacy policy it is the version a new user agrees to. */
  updated?: string;
};
export type CreateSupportTicketRequest = {
  user_name: string;
  user_email: string;
  message: string;
  /** Leave empty (a field hidden from people, to catch form-filling bots). */
  website?: string;
};
export type SupportTicketStatus = "open" | "answered" | "closed";
export type SupportTicket = {
  _id: string;
  user_name: string;
  user_email: string;
  message: string;
  status: SupportTicketStatus;
  createdAt: string;
  /** How long since the message was sent, at asOf. */
  ageSeconds: number;
  /** How many replies staff sent. */
  replies: number;
  lastReply?: string;
  lastReplyAt?: string;
  closedAt?: string;
};
export type SupportTicketQueue = {
  asOf: string;
  tickets: SupportTicket[];
};
export type ReplySupportTicketRequest = {
  message: string;
};
export type Testimonial = {
  _id: string;
  /** First name and last initial, e.g. "Ada L.". */
  name: string;
  /** The country's name, or empty when unknown. */
  country: string;
  text: string;
  /** When it was published. */
  date: string;
};
export type TestimonialList = {
  testimonials: Testimonial[];
};
export type TestimonialStatus = "Pending" | "Approved" | "Rejected";
export type TestimonialSubmitted = {
  _id: string;
  status: TestimonialStatus;
  message: string;
};
export type SubmitTestimonialRequest = {
  /** 20 to 600 characters once trimmed. */
  text: string;
};
export type OwnTestimonial = {
  _id: string;
  text: string;
  status: TestimonialStatus;
  /** Why it was rejected. */
  reason?: string;
  submittedAt: string;
};
export type MyTestimonial = {
  /** A verified e-mail address and at least one confirmed deposit. */
  eligible: boolean;
  testimonial?: OwnTestimonial;
};
export type TestimonialQueueItem = {
  _id: string;
  userId: string;
  name: string;
  email: string;
  country: string;
  text: string;
  submittedAt: string;
};
export type TestimonialQueue = {
  testimonials: TestimonialQueueItem[];
};
export type RejectTestimonialRequest = {
  reason: string;
};
export type ActivityKind =
  | "deposit_confirmed"
  | "investment_started"
  | "investment_renewed"
  | "investment_matured";
export type ActivityItem = {
  id: string;
  kind: ActivityKind;
  message: string;
  at: string;
};
export type PublicActivity = {
  activities: ActivityItem[];
};
export type PublicStats = {
  /** Rounded down; null when below the configured minimum. */
  investors: number | null;
  countries: number | null;
};
export type BadgeName = "member" | "leader" | "expert" | "master";
export type BadgeLevel = {
  name: BadgeName;
  /** Lifetime invested, in USD. */
  minInvested: string;
  /** Referred users whose first deposit was confirmed. */
  minReferrals: number;
};
export type BadgeLevelList = {
  levels: BadgeLevel[];
};
export type StaffPerson = {
  _id: string;
  name: string;
};
export type StaffInvestment = {
  id: string;
  plan: string;
  termDays: number;
  /** For the whole term, "0.0125" = 1.25 %. */
  termRate: string;
  amount: string;
  return: string;
  status: string;
  requestedAt: string;
  start?: string;
  end?: string;
};
export type StaffFee = {
  withdrawalId: string;
  amount: string;
  fee: string;
  feeWaived: string;
  status: string;
  requestedAt: string;
  decidedAt?: string;
};
export type UserMoney = {
  user: StaffPerson;
  balances: {
    available: string;
    held: string;
    invested: string;
    returns: string;
    fees: string;
    adjustments: string;
  };
  investments: StaffInvestment[];
  fees: StaffFee[];
  feeExempt: boolean;
  exemptionReason?: string;
  exemptionAt?: string;
  correctionThreshold: string;
};
export type CorrectionRequest = {
  direction: "add" | "deduct";
  /** US dollars, positive, at most two decimals. */
  amount: string;
  category: "correction" | "goodwill" | "chargeback" | "other";
  reason: string;
};
export type WaiveFeeRequest = {
  withdrawalId: string;
  amount: string;
  reason: string;
};
export type UpdateFeesRequest = {
  direction: "add" | "deduct";
  withdrawalId?: string;
  amount: string;
  reason: string;
};
export type FeeExemptionRequest = {
  exempt: boolean;
  reason: string;
};
export type MyBadge = {
  current: BadgeName;
  next?: BadgeLevel;
  /** Lifetime invested, in USD. */
  invested: string;
  /** Qualified referrals. */
  referrals: number;
  percent: number;
};
export type QueueCounts = {
  deposits?: number;
  withdrawals?: number;
  investments?: number;
  identityChecks?: number;
  /** Proposals waiting for a second staff member. */
  approvals?: number;
  /** Open tickets, not answered yet. */
  supportTickets?: number;
  testimonials?: number;
};
export type ChainNetworkStatus = {
  network: DepositNetwork;
  /** `down`: the last pass failed (the node is unreachable or refused); `behind`: blocks
    wait to be read, or no pass succeeded for a minute; `starting`: no pass yet.
    Nothing is lost while a node is down: the watcher resumes from its cursor.
     */
  state: "starting" | "ok" | "behind" | "down";
  /** The node's best block height as last seen. */
  tip: number;
  /** The last block fully read. */
  cursor: number;
  /** Confirmations a transfer needs before it is credited. */
  confirmations: number;
  lastSuccessAt: string | null;
  lastError: string;
  lastErrorAt: string | null;
  /** Transfers seen whose deposit waits for a market price. */
  waitingForPrice: number;
  /** Credited transfers whose block left the chain; staff must look (nothing was debited). */
  orphaned: number;
};
export type ChainStatus = {
  networks: ChainNetworkStatus[];
};
export type EmailPreview = {
  subject: string;
  html: string;
  text: string;
};
export type EmailAudience = {
  kind: "user" | "role" | "verified";
  role?: string;
  userId?: string;
  /** The user's name, for a one-user audience (answers only). */
  userName?: string;
};
export type EmailBroadcast = {
  id: string;
  authorId: string;
  authorName: string;
  audience: EmailAudience;
  subject: string;
  /** The automated message sent again; empty for a composed one. */
  template: string;
  recipients: number;
  sent: number;
  failed: number;
  pending: number;
  /** Messages withdrawn, unsent, when staff cancelled the send. */
  cancelled: number;
  status: "sending" | "done" | "cancelled";
  createdAt: string;
  cancelledAt?: string;
  cancelledByName?: string;
};
export type ComposeEmailResponse = {
  message: string;
  recipients: number;
  preview?: EmailPreview;
  broadcast?: EmailBroadcast;
};
export type ComposeEmailRequest = {
  audience: EmailAudience;
  subject: string;
  /** Markdown; raw HTML is dropped. */
  body: string;
  /** The language of the message's greeting and footer (default en). */
  language?: "en" | "de";
  preview?: boolean;
};
export type AutomatedEmailRequest = {
  userId: string;
  /** verification or password_reset */
  template: string;
};
export type EmailBroadcastList = {
  broadcasts: EmailBroadcast[];
  /** How many e-mails one staff member may send an hour. */
  limitPerHour: number;
};
export type ProposalKind =
  | "deposit_confirmation"
  | "withdrawal_approval"
  | "admin_grant"
  | "account_closure"
  | "balance_correction";
export type ProposalStatus = "pending" | "approved" | "rejected";
export type Proposal = {
  id: string;
  kind: ProposalKind;
  /** The deposit's transaction id, the withdrawal's id, or the user's id. */
  subjectId: string;
  user: StaffPerson;
  /** The money it moves, a decimal string ("0.00" when it moves none). */
  amount: string;
  /** Which rule asked for a second person. */
  why: string;
  params: {
    [key: string]: string;
  };
  proposer: StaffPerson;
  reason: string;
  status: ProposalStatus;
  openedAt: string;
  decider?: StaffPerson;
  decisionReason: string;
  decidedAt?: string;
};
export type ApprovalThresholds = {
  depositTolerancePercent: string;
  depositThreshold: string;
  withdrawalThreshold: string;
  maxAmount: string;
};
export type ProposalList = {
  pending: Proposal[];
  recent: Proposal[];
  thresholds: ApprovalThresholds;
};
export type ApproveProposalRequest = {
  reason?: string;
  /** For a withdrawal, the payout transaction the approver sent; required. */
  txHash?: string;
  onChainAmount?: string;
  usdRate?: string;
};
export type RejectProposalRequest = {
  reason: string;
};
export type WithdrawalFeeSettings = {
  /** Percentage of the amount. */
  percent: string;
  flat: string;
  /** The smallest withdrawal. */
  minimum: string;
  /** The most the fee can be; 0.00 for no cap. */
  cap: string;
};
export type ReferralSettings = {
  bonus: string;
  minDeposit: string;
};
export type ApprovalSettings = {
  depositTolerancePercent: string;
  depositThreshold: string;
  withdrawalThreshold: string;
};
export type SettingsAddress = {
  asset: string;
  network: string;
  address: string;
};
export type DepositAddressSettings = {
  addresses: SettingsAddress[];
};
export type SupportSettings = {
  email: string;
};
export type SettingsValues = {
  withdrawalFee?: WithdrawalFeeSettings;
  referral?: ReferralSettings;
  approvals?: ApprovalSettings;
  depositAddresses?: DepositAddressSettings;
  support?: SupportSettings;
};
export type SettingsChange = {
  section: string;
  at: string;
  by: StaffPerson;
  reason: string;
  old: SettingsValues;
  new: SettingsValues;
};
export type SettingsPlan = {
  _id: string;
  name: string;
  /** false once retired. */
  active: boolean;
  version: number;
  min: string;
  max: string;
  termDays: number;
  termRate: string;
  apr: string;
};
export type Settings = {
  withdrawalFee: WithdrawalFeeSettings;
  referral: ReferralSettings;
  approvals: ApprovalSettings;
  depositAddresses: DepositAddressSettings;
  support: SupportSettings;
  /** The ceiling on amounts (configuration); thresholds stay below it. */
  maxAmount: string;
  /** Every change, newest first; a section's first entry is its last change. */
  history: SettingsChange[];
  /** Every plan, retired ones included. */
  plans: SettingsPlan[];
};
export type SettingsUpdate = {
  reason: string;
  withdrawalFee?: WithdrawalFeeSettings;
  referral?: ReferralSettings;
  approvals?: ApprovalSettings;
  depositAddresses?: DepositAddressSettings;
  support?: SupportSettings;
};
export type PlanCreated = {
  _id: string;
  message: string;
};
export type PlanCreateRequest = {
  name: string;
  min: string;
  max: string;
  termDays: number;
  termRate: string;
  reason: string;
};
export type PlanVersionRequest = {
  min: string;
  max: string;
  termDays: number;
  termRate: string;
  reason: string;
};
export type SettingsReason = {
  reason: string;
};
export type AuditEntry = {
  position: number;
  at: string;
  /** The event type, e.g. account.deposit_confirmed. */
  kind: string;
  /** What it did, in English, e.g. "Confirmed deposit DEP-7K3M9Q2X". */
  summary: string;
  streamId: string;
  eventId: string;
  actorId: string;
  actorEmail?: string;
  actorRole: string;
  impersonatorId?: string;
  targetUser: string;
  targetEmail?: string;
  reference: string;
  /** US dollars, "" when the action moved none. */
  amount: string;
  reason: string;
  /** The staff member's address; "[erased]" once their data was erased. */
  clientIp: string;
  correlationId?: string;
};
export type AuditLogPage = {
  entries: AuditEntry[];
  /** The cursor of the next page; absent at the end. */
  next?: string;
  /** Every kind the log holds, for the filter. */
  kinds: string[];
};
export type AuditMetadata = {
  correlationId?: string;
  causationId?: string;
  actorId?: string;
  actorRole?: string;
  impersonatorId?: string;
  idempotencyKey?: string;
  requestHash?: string;
  /** As stored; sealed. */
  clientIp?: string;
};
export type AuditEvent = {
  position: number;
  eventId: string;
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  recordedAt: string;
  /** The payload as stored. */
  data: {
    [key: string]: any;
  };
  metadata: AuditMetadata;
};
export type AuditEventPage = {
  events: AuditEvent[];
  /** The after of the next page; 0 at the end. */
  next: number;
};
export type AuditAccount = {
  account: string;
  /** The owner of a user account; "" for a platform account. */
  user: string;
  book: string;
  balance: string;
  debit: string;
  credit: string;
};
export type AuditReconciliation = {
  depositsReceived: string;
  payoutsSent: string;
  investorLiabilities: string;
  platformEquity: string;
  difference: string;
};
export type AuditBooks = {
  position: number;
  head: number;
  events: number;
  accounts: AuditAccount[];
  totalDebit: string;
  totalCredit: string;
  balanced: boolean;
  unbalanced: number[];
  wentNegative: string[];
  reconciliation: AuditReconciliation;
  users: {
    available: string;
    held: string;
    invested: string;
  };
};
export const {
  useGetMetaQuery,
  useRegisterMutation,
  useLoginMutation,
  useLogoutQuery,
  useLoginStatusQuery,
  useRefreshSessionMutation,
  useGetUserQuery,
  useUpdateUserMutation,
  useUploadPhotoMutation,
  useGetPhotoQuery,
  useSendVerificationEmailMutation,
  useVerifyUserMutation,
  useChangePasswordMutation,
  useSetLanguageMutation,
  useGetStepUpQuery,
  useStepUpMutation,
  useForgotPasswordMutation,
  useResetPasswordMutation,
  useSendLoginCodeMutation,
  useLoginWithCodeMutation,
  useGoogleStartQuery,
  useGoogleRedirectQuery,
  useGoogleLinkMutation,
  useListSessionsQuery,
  useEndSessionMutation,
  useRevokeOtherSessionsMutation,
  useListPasskeysQuery,
  useBeginPasskeyRegistrationMutation,
  useFinishPasskeyRegistrationMutation,
  useRemovePasskeyMutation,
  useBeginPasskeyLoginMutation,
  useLoginWithPasskeyMutation,
  useBeginPasskeyStepUpMutation,
  useSetupTwoFactorMutation,
  useEnableTwoFactorMutation,
  useDisableTwoFactorMutation,
  useGetSecurityLogQuery,
  useSecureAccountMutation,
  useGetUsersQuery,
  useListUsersQuery,
  useUpgradeUserMutation,
  useSuspendUserMutation,
  useReinstateUserMutation,
  useImpersonateUserMutation,
  useExitImpersonationMutation,
  useDeleteUserMutation,
  useUploadKycDocumentsMutation,
  useGetMyKycQuery,
  useGetPendingKycQuery,
  useGetKycCaseQuery,
  useDownloadKycDocumentMutation,
  useApproveKycMutation,
  useRejectKycMutation,
  useGetReferralsQuery,
  useGetInvestEligibilityQuery,
  useListPlansQuery,
  useGetInvestmentQuoteQuery,
  useStartInvestmentMutation,
  useGetInvestmentHistoryQuery,
  useGetInvestmentQuery,
  useGetPendingInvestmentsQuery,
  useApproveInvestmentMutation,
  useRejectInvestmentMutation,
  useSettleMaturedInvestmentsMutation,
  useSetMaturityInstructionMutation,
  usePreviewEarlyRedemptionQuery,
  useRedeemEarlyMutation,
  useGetTransactionHistoryQuery,
  useGetStatementQuery,
  useGetDashboardQuery,
  useStreamUserEventsQuery,
  useListDepositAddressesQuery,
  useCreateDepositMutation,
  useViewPaymentStatusQuery,
  useGetPendingDepositsQuery,
  useConfirmDepositMutation,
  useRejectDepositMutation,
  useCreateWithdrawalMutation,
  useQuoteWithdrawalQuery,
  useGetPendingWithdrawalsQuery,
  useGetWithdrawalQuery,
  useGetWithdrawalHistoryQuery,
  useApproveWithdrawalMutation,
  useRejectWithdrawalMutation,
  useGetCountriesQuery,
  useListDevMailQuery,
  useGetDevMailQuery,
  useGetDevClockQuery,
  useAdvanceDevClockMutation,
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
  useListTestimonialsQuery,
  useSubmitTestimonialMutation,
  useGetMyTestimonialQuery,
  useGetPendingTestimonialsQuery,
  useApproveTestimonialMutation,
  useRejectTestimonialMutation,
  useGetPublicActivityQuery,
  useGetPublicStatsQuery,
  useListBadgesQuery,
  useGetUserMoneyQuery,
  usePostCorrectionMutation,
  useEditReturnsMutation,
  useWaiveFeeMutation,
  useUpdateFeesMutation,
  useSetFeeExemptionMutation,
  useGetMyBadgeQuery,
  useStreamStaffEventsQuery,
  useGetQueueCountsQuery,
  useGetChainStatusQuery,
  useSendComposedEmailMutation,
  useSendAutomatedEmailMutation,
  useListEmailBroadcastsQuery,
  useGetEmailBroadcastQuery,
  useCancelEmailBroadcastMutation,
  useGetProposalsQuery,
  useApproveProposalMutation,
  useRejectProposalMutation,
  useGetSettingsQuery,
  useUpdateSettingsMutation,
  useCreatePlanMutation,
  useNewPlanVersionMutation,
  useRetirePlanMutation,
  useGetAuditLogQuery,
  useGetAuditLogCsvQuery,
  useGetAuditEventsQuery,
  useGetAuditBooksQuery,
} = injectedRtkApi;

package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"clearvest/api/httperr"
	"clearvest/app/accounts"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
)

// Action is something a caller may be allowed to do. Operations name the action they need;
// roles name the actions they grant. The rows of the roles table (docs/product-rules.md) are split into actions fine enough
// that a later rule ("authors may not close accounts") is a one-line change of the table below.
type Action string

const (
	// ActPublic needs no sign-in.
	ActPublic Action = "public"
	// ActOwnAccount is everything a user does to their own account, money and documents.
	ActOwnAccount Action = "ownAccount"

	// Staff work (authors and admins).
	ActViewUsers    Action = "viewUsers"
	ActReviewQueues Action = "reviewQueues" // confirm/reject deposits, withdrawals, investments, KYC
	ActSendEmail    Action = "sendEmail"

	// Admin work.
	ActChangeRoles    Action = "changeRoles"
	ActSuspendUsers   Action = "suspendUsers"
	ActCloseAccounts  Action = "closeAccounts"
	ActAdjustBalances Action = "adjustBalances"
	ActWaiveFees      Action = "waiveFees"
	ActImpersonate    Action = "impersonate"
	ActApproveChanges Action = "approveChanges" // the second admin of maker-checker
	ActAudit          Action = "audit"          // the audit log, the event browser, the books
	ActChangeSettings Action = "changeSettings" // fees, thresholds, addresses, contact, plans
)

// policy is the one server-side answer to "may this role do that" (docs/product-rules.md, "Roles"). The UI hides
// what this table refuses; it never decides anything itself.
// Suspension is a status, not a role: a suspended principal is refused before the table is
// consulted.
var policy = map[identity.Role][]Action{
	identity.RoleSubscriber: {ActOwnAccount},
	identity.RoleAuthor:     {ActOwnAccount, ActViewUsers, ActReviewQueues, ActSendEmail},
	identity.RoleAdmin: {ActOwnAccount, ActViewUsers, ActReviewQueues, ActSendEmail,
		ActChangeRoles, ActSuspendUsers, ActCloseAccounts, ActAdjustBalances, ActWaiveFees,
		ActImpersonate, ActApproveChanges, ActAudit, ActChangeSettings},
}

// operationActions says what each operation of openapi.yaml needs. An operation missing here
// is refused to everyone (and TestEveryOperationHasAnAction fails), so a new endpoint is closed
// until someone decides who may call it. The spec's x-clearvest-action documents the same
// mapping for client authors; a test keeps the two equal.
var operationActions = map[string]Action{
	// Settings (admins).
	"getSettings": ActChangeSettings, "updateSettings": ActChangeSettings, "createPlan": ActChangeSettings,
	"newPlanVersion": ActChangeSettings, "retirePlan": ActChangeSettings,
	"getMeta":                  ActPublic,
	"register":                 ActPublic,
	"login":                    ActPublic,
	"logout":                   ActPublic,
	"loginStatus":              ActPublic,
	"refreshSession":           ActPublic,
	"verifyUser":               ActPublic,
	"forgotPassword":           ActPublic,
	"resetPassword":            ActPublic,
	"sendLoginCode":            ActPublic,
	"loginWithCode":            ActPublic,
	"googleStart":              ActPublic,
	"googleRedirect":           ActPublic,
	"googleLink":               ActPublic,
	"secureAccount":            ActPublic,
	"getCountries":             ActPublic,
	"listDevMail":              ActPublic,
	"getDevMail":               ActPublic,
	"getDevClock":              ActPublic,
	"advanceDevClock":          ActPublic,
	"getUser":                  ActOwnAccount,
	"updateUser":               ActOwnAccount,
	"setLanguage":              ActOwnAccount,
	"uploadPhoto":              ActOwnAccount,
	"getPhoto":                 ActOwnAccount,
	"sendVerificationEmail":    ActOwnAccount,
	"changePassword":           ActOwnAccount,
	"stepUp":                   ActOwnAccount,
	"getStepUp":                ActOwnAccount,
	"listSessions":             ActOwnAccount,
	"endSession":               ActOwnAccount,
	"revokeOtherSessions":      ActOwnAccount,
	"setupTwoFactor":           ActOwnAccount,
	"enableTwoFactor":          ActOwnAccount,
	"disableTwoFactor":         ActOwnAccount,
	"getSecurityLog":           ActOwnAccount,
	"getUsers":                 ActViewUsers,
	"listUsers":                ActViewUsers,
	"upgradeUser":              ActChangeRoles,
	"suspendUser":              ActSuspendUsers,
	"reinstateUser":            ActSuspendUsers,
	"deleteUser":               ActCloseAccounts,
	"uploadKycDocuments":       ActOwnAccount,
	"getMyKyc":                 ActOwnAccount,
	"downloadKycDocument":      ActOwnAccount, // staff, or the owner; anyone else 404 (in the handler)
	"getPendingKyc":            ActReviewQueues,
	"getKycCase":               ActReviewQueues,
	"approveKyc":               ActReviewQueues,
	"rejectKyc":                ActReviewQueues,
	"getReferrals":             ActOwnAccount,
	"getInvestEligibility":     ActOwnAccount,
	"listPlans":                ActPublic,
	"getInvestmentQuote":       ActOwnAccount,
	"startInvestment":          ActOwnAccount,
	"getInvestmentHistory":     ActOwnAccount,
	"getInvestment":            ActOwnAccount, // the owner, or staff; anyone else 404 (in the service)
	"getPendingInvestments":    ActReviewQueues,
	"approveInvestment":        ActReviewQueues,
	"rejectInvestment":         ActReviewQueues,
	"settleMaturedInvestments": ActOwnAccount,
	"setMaturityInstruction":   ActOwnAccount, // the owner only; anyone else 404 (in the service)
	"previewEarlyRedemption":   ActOwnAccount, // the owner only
	"redeemEarly":              ActOwnAccount, // the owner only
	"listDepositAddresses":     ActPublic,
	"createDeposit":            ActOwnAccount,
	"viewPaymentStatus":        ActOwnAccount, // the owner, or staff; anyone else 404 (in the service)
	"getPendingDeposits":       ActReviewQueues,
	"confirmDeposit":           ActReviewQueues,
	"rejectDeposit":            ActReviewQueues,
	"createWithdrawal":         ActOwnAccount,
	"quoteWithdrawal":          ActOwnAccount,
	"getWithdrawalHistory":     ActOwnAccount,
	"getWithdrawal":            ActOwnAccount, // the owner, or staff; anyone else 404 (in the service)
	"getPendingWithdrawals":    ActReviewQueues,
	"approveWithdrawal":        ActReviewQueues,
	"rejectWithdrawal":         ActReviewQueues,
	// Each reads the caller's own money only.
	"getTransactionHistory": ActOwnAccount,
	"getStatement":          ActOwnAccount,
	"getDashboard":          ActOwnAccount,
	"streamUserEvents":      ActOwnAccount,
	"getMarketCandles":      ActPublic,
	// Site content and the contact form are public; the support queue is staff work.
	"getContentFaq":        ActPublic,
	"getContentTeam":       ActPublic,
	"getContentHowItWorks": ActPublic,
	"getContentSupport":    ActPublic,
	"getContentPage":       ActPublic,
	"createSupportTicket":  ActPublic,
	"listSupportTickets":   ActReviewQueues,
	"replySupportTicket":   ActReviewQueues,
	"closeSupportTicket":   ActReviewQueues,
	// Social proof: public reads, the investor's own testimonial and badge, the staff queue.
	"listTestimonials":       ActPublic,
	"submitTestimonial":      ActOwnAccount,
	"getMyTestimonial":       ActOwnAccount,
	"getPendingTestimonials": ActReviewQueues,
	"approveTestimonial":     ActReviewQueues,
	"rejectTestimonial":      ActReviewQueues,
	"getPublicActivity":      ActPublic,
	"getPublicStats":         ActPublic,
	"listBadges":             ActPublic,
	"getMyBadge":             ActOwnAccount,
	// The four-eyes queue: staff see it, admins other than the proposer decide (in the service).
	"getProposals":    ActReviewQueues,
	"approveProposal": ActApproveChanges,
	"rejectProposal":  ActApproveChanges,
	// Staff corrections, returns and fees of one user (docs/staff.md).
	"getUserMoney":    ActAdjustBalances,
	"postCorrection":  ActAdjustBalances,
	"editReturns":     ActAdjustBalances,
	"waiveFee":        ActWaiveFees,
	"updateFees":      ActWaiveFees,
	"setFeeExemption": ActWaiveFees,
	// The staff navigation's counts of what waits in each queue.
	"getQueueCounts": ActReviewQueues,
	"getChainStatus": ActReviewQueues,
	// The audit screens (admins): staff actions, stored events, the books at a position.
	"getAuditLog":    ActAudit,
	"getAuditLogCsv": ActAudit,
	"getAuditEvents": ActAudit,
	"getAuditBooks":  ActAudit,
	// Passkeys: the caller's own; signing in with one is public.
	"listPasskeys":              ActOwnAccount,
	"beginPasskeyRegistration":  ActOwnAccount,
	"finishPasskeyRegistration": ActOwnAccount,
	"removePasskey":             ActOwnAccount,
	"beginPasskeyStepUp":        ActOwnAccount,
	"beginPasskeyLogin":         ActPublic,
	"loginWithPasskey":          ActPublic,

	// Staff hear, live, when their queues change.
	"streamStaffEvents": ActReviewQueues,
	// Viewing the site as a user (impersonation.go).
	"impersonateUser":   ActImpersonate,
	"exitImpersonation": ActOwnAccount,
	// Staff e-mail: compose, resend an automated message, past sends.
	"sendComposedEmail":    ActSendEmail,
	"sendAutomatedEmail":   ActSendEmail,
	"listEmailBroadcasts":  ActSendEmail,
	"getEmailBroadcast":    ActSendEmail,
	"cancelEmailBroadcast": ActSendEmail,
}

// Allowed reports whether role may perform action.
func Allowed(role identity.Role, action Action) bool {
	return action == ActPublic || slices.Contains(policy[role], action)
}

// Refusals. The suspended message is the one the login page looks for ("suspended").
var (
	errNotSignedIn = accounts.ErrNotSignedIn
	errNotAllowed  = domainerr.New(domainerr.Forbidden, "You are not allowed to do this.")
	errNoPolicy    = domainerr.New(domainerr.Forbidden, "This operation is not available.")
)

// operationIndex maps "METHOD /path/{param}" (the path as written in openapi.yaml, which is
// also the chi route pattern under /api) to the operationId.
type operationIndex map[string]string

func newOperationIndex() (operationIndex, error) {
	ops, err := specOperations()
	if err != nil {
		return nil, err
	}
	idx := operationIndex{}
	for key, op := range ops {
		idx[key] = op.OperationID
	}
	return idx, nil
}

// authorize runs inside the generated router, after chi has matched the route and before the
// body is decoded: an anonymous caller learns nothing about what a staff endpoint would accept.
func (idx operationIndex) authorize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pattern := strings.TrimPrefix(chi.RouteContext(r.Context()).RoutePattern(), "/api")
		action, ok := operationActions[idx[r.Method+" "+pattern]]
		if r.Method == http.MethodHead && !ok {
			action, ok = operationActions[idx[http.MethodGet+" "+pattern]]
		}
		if err := decide(r, action, ok); err != nil {
			httperr.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func decide(r *http.Request, action Action, known bool) error {
	if !known {
		return errNoPolicy
	}
	if action == ActPublic {
		return nil
	}
	st := authStateFrom(r.Context())
	switch {
	case st.suspended:
		return identity.ErrSuspended
	case st.principal == nil:
		return errNotSignedIn
	case !Allowed(st.principal.Role, action):
		return errNotAllowed
	}
	return nil
}

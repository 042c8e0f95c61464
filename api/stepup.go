package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"clearvest/api/apigen"
	"clearvest/api/httperr"
	"clearvest/app/accounts"
	"clearvest/domain/domainerr"
)

const msgSteppedUp = "Thanks, that's confirmed."

// stepUpOperations are the operations that need the person, not just the session: a
// confirmation (stepUp) within the last five minutes on the caller's session. A staff operation
// opts in with one line here.
var stepUpOperations = map[string]bool{
	"createWithdrawal": true,
	// An admin's own changes of a user's money: corrections, fee waivers, the fee exemption.
	"postCorrection":  true,
	"waiveFee":        true,
	"updateFees":      true,
	"setFeeExemption": true,
	"removePasskey":   true,
	"approveProposal": true,
	"rejectProposal":  true,
	"impersonateUser": true,
}

// errStaffSecondFactor refuses a staff decision in production from an account that proves no
// more than a password.
var errStaffSecondFactor = domainerr.Coded(domainerr.Forbidden, "staff_second_factor_required",
	"Staff decisions need a passkey or an authenticator app on your account. Please add one in the Security tab of your profile.")

// SecondFactorChecker answers whether a user has a passkey or an authenticator app;
// *accounts.Service is one.
type SecondFactorChecker interface {
	HasSecondFactor(ctx context.Context, userID string) (bool, error)
}

// staffDecision: an operation that changes state (not GET or HEAD) and needs more than the
// caller's own account: a queue decision, a proposal's approval, a role, a setting.
func staffDecision(method, op string) bool {
	if method == http.MethodGet || method == http.MethodHead {
		return false
	}
	action, ok := operationActions[op]
	return ok && action != ActPublic && action != ActOwnAccount
}

// requireStaffSecondFactor runs after the policy and before requireStepUp: in production a
// staff decision from an account without a passkey or an authenticator app is refused with 403
// staff_second_factor_required. A password alone (which a phishing page can take) never decides
// about other people's money. Development lets it through, so the demo admin works as seeded.
func (idx operationIndex) requireStaffSecondFactor(checker SecondFactorChecker, production bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pattern := strings.TrimPrefix(chi.RouteContext(r.Context()).RoutePattern(), "/api")
			if !production || !staffDecision(r.Method, idx[r.Method+" "+pattern]) {
				next.ServeHTTP(w, r)
				return
			}
			a, err := actorOf(r.Context())
			if err != nil {
				httperr.Write(w, r, err)
				return
			}
			ok := false
			if checker != nil {
				if ok, err = checker.HasSecondFactor(r.Context(), a.UserID); err != nil {
					httperr.Write(w, r, err)
					return
				}
			}
			if !ok {
				httperr.Write(w, r, errStaffSecondFactor)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// errStepUpRequired asks the client to confirm it's the person (POST /api/users/step-up) and
// then repeat the request.
var errStepUpRequired = domainerr.Coded(domainerr.Forbidden, "step_up_required", "Please confirm it's you to continue.")

// StepUpChecker answers whether the caller's session was confirmed recently; *accounts.Service
// is one.
type StepUpChecker interface {
	SteppedUp(ctx context.Context, a accounts.Actor) (bool, error)
}

// requireStepUp runs after the policy (authorize) has let a signed-in caller through, and before
// the body is read: an operation of stepUpOperations without a fresh confirmation is refused
// with 403 step_up_required. Without a checker (a server with no accounts) every such operation
// is refused, never waved through.
func (idx operationIndex) requireStepUp(checker StepUpChecker) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pattern := strings.TrimPrefix(chi.RouteContext(r.Context()).RoutePattern(), "/api")
			if !stepUpOperations[idx[r.Method+" "+pattern]] {
				next.ServeHTTP(w, r)
				return
			}
			a, err := actorOf(r.Context())
			if err != nil {
				httperr.Write(w, r, err)
				return
			}
			ok := false
			if checker != nil {
				if ok, err = checker.SteppedUp(r.Context(), a); err != nil {
					httperr.Write(w, r, err)
					return
				}
			}
			if !ok {
				httperr.Write(w, r, errStepUpRequired)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func (s *server) StepUp(ctx context.Context, req apigen.StepUpRequestObject) (apigen.StepUpResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pk, err := stepUpPasskey(req.Body)
	if err != nil {
		return nil, err
	}
	in := accounts.StepUpInput{Code: str(req.Body.Code), Password: str(req.Body.Password), Passkey: pk}
	until, err := s.accounts.StepUp(ctx, a, in)
	if err != nil {
		return nil, err
	}
	return apigen.StepUp200JSONResponse{Message: msgSteppedUp, ExpiresAt: until}, nil
}

func (s *server) GetStepUp(ctx context.Context, _ apigen.GetStepUpRequestObject) (apigen.GetStepUpResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	ok, err := s.accounts.SteppedUp(ctx, a)
	if err != nil {
		return nil, err
	}
	keys, err := s.accounts.Passkeys(ctx, a)
	if err != nil {
		return nil, err
	}
	hasPasskey := len(keys) > 0
	return apigen.GetStepUp200JSONResponse{Confirmed: ok, Passkey: &hasPasskey}, nil
}

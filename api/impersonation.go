package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"clearvest/api/apigen"
	"clearvest/api/httperr"
	"clearvest/api/middleware"
	"clearvest/app/accounts"
	"clearvest/domain/domainerr"
)

// errImpersonating refuses every change made from a view-as-user session: the admin is there to
// see what the user sees, never to move the user's money or change their settings.
var errImpersonating = domainerr.Coded(domainerr.Forbidden, "impersonating",
	"You are viewing Clearvest as this user, so changes are disabled. Exit to act as yourself again.")

const msgImpersonationExited = "You are back in your own account."

// allowedWhileImpersonating are the only unsafe-method operations a view-as-user session may
// call: leaving it, signing out, the session refresh (which can only bring the admin's own
// session back, the view-as-user session having no refresh token), and the withdrawal quote, a
// read sent as POST that changes nothing, so the admin sees the withdrawal page as the user does
// up to the request itself.
var allowedWhileImpersonating = map[string]bool{
	"exitImpersonation": true,
	"logout":            true,
	"refreshSession":    true,
	"quoteWithdrawal":   true,
}

// refusedReadsWhileImpersonating are reads that would do more than read: the Google flows link
// or sign in an account.
var refusedReadsWhileImpersonating = map[string]bool{
	"googleStart":    true,
	"googleRedirect": true,
}

// ViewRecorder records what an admin reads in a view-as-user session; *accounts.Service is one.
type ViewRecorder interface {
	RecordImpersonatedView(ctx context.Context, a accounts.Actor, path string) (int64, error)
}

// refuseWhileImpersonating runs first for every operation, before the policy: in a
// view-as-user session it refuses every POST, PUT, PATCH and DELETE (but
// allowedWhileImpersonating) with 403 code `impersonating`, whatever the operation would need
// otherwise. This one place covers every operation, present and future.
func (idx operationIndex) refuseWhileImpersonating(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := PrincipalFrom(r.Context())
		if !ok || p.Impersonator == nil {
			next.ServeHTTP(w, r)
			return
		}
		op, read := idx.operation(r)
		if (!read && !allowedWhileImpersonating[op]) || refusedReadsWhileImpersonating[op] {
			httperr.Write(w, r, errImpersonating)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// operation is the operationId of the request (HEAD as its GET) and whether it is a read.
func (idx operationIndex) operation(r *http.Request) (string, bool) {
	pattern := strings.TrimPrefix(chi.RouteContext(r.Context()).RoutePattern(), "/api")
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	return idx[method+" "+pattern], method == http.MethodGet || method == http.MethodOptions
}

// recordImpersonatedReads runs right after the policy: in a view-as-user session it records
// every read the policy let through before answering it (one event per distinct path and
// session; a read that cannot be recorded is not answered).
func (idx operationIndex) recordImpersonatedReads(rec ViewRecorder) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := PrincipalFrom(r.Context())
			if !ok || p.Impersonator == nil {
				next.ServeHTTP(w, r)
				return
			}
			if op, read := idx.operation(r); read && rec != nil && op != "logout" {
				a, err := actorOf(r.Context())
				if err == nil {
					_, err = rec.RecordImpersonatedView(r.Context(), a, r.URL.Path)
				}
				if err != nil {
					middleware.Logger(r.Context()).ErrorContext(r.Context(), "recording a view-as-user read failed", "error", err)
					httperr.Write(w, r, err)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

func (s *server) ImpersonateUser(ctx context.Context, req apigen.ImpersonateUserRequestObject) (apigen.ImpersonateUserResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.accounts.Impersonate(ctx, a, req.Id)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, res.Position)
	// Only the access cookie changes: the refresh cookie stays the admin's, and the view-as-user
	// session has none to give.
	s.setSessionCookies(ctx, accounts.SignIn{AccessToken: res.Token, AccessExpires: res.ExpiresAt})
	return apigen.ImpersonateUser200JSONResponse{
		Message: "You are now viewing Clearvest as " + res.User.Name + ".", Token: res.Token,
		ExpiresAt: res.ExpiresAt, UserId: res.User.ID, Name: res.User.Name,
	}, nil
}

func (s *server) ExitImpersonation(ctx context.Context, _ apigen.ExitImpersonationRequestObject) (apigen.ExitImpersonationResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	back, ok, pos, err := s.accounts.ExitImpersonation(ctx, a)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	if !ok {
		s.clearSessionCookies(ctx)
		return apigen.ExitImpersonation200JSONResponse{Message: "Your own session has ended. Please log in again.", SignedIn: false}, nil
	}
	s.setSessionCookies(ctx, back)
	return apigen.ExitImpersonation200JSONResponse{Message: msgImpersonationExited, SignedIn: true}, nil
}

package api

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"clearvest/api/apigen"
	"clearvest/api/idempotency"
)

// idempotentOperations returns "METHOD /path" of every operation whose declaration in
// openapi.yaml takes the Idempotency-Key header: the document says which requests honour it.
func idempotentOperations() (map[string]bool, error) {
	ops, err := specOperations()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for key, op := range ops {
		for _, p := range op.Parameters {
			if p.Value != nil && p.Value.In == "header" && strings.EqualFold(p.Value.Name, idempotency.HeaderKey) {
				out[key] = true
			}
		}
	}
	return out, nil
}

// idempotencyFor installs the Idempotency-Key middleware on the operations that declare the
// header. It runs inside the policy check, so it knows the caller and the matched route.
func idempotencyFor(store *idempotency.Store) (apigen.MiddlewareFunc, error) {
	ops, err := idempotentOperations()
	if err != nil {
		return nil, err
	}
	mode := func(r *http.Request) idempotency.Mode {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
		default:
			return idempotency.Skip
		}
		op := r.Method + " " + routeOf(r)
		switch {
		case !ops[op] || streamedBodies[op]:
			return idempotency.Skip
		case claimedByCommand[op]:
			return idempotency.WithCommand
		}
		return idempotency.Ahead
	}
	return idempotency.Middleware(store, idempotencyScope, mode), nil
}

// claimedByCommand are the operations whose one state change is a command run through
// command.Submit, which writes the key's record in its own transaction and the key into its
// events (idempotency.WithCommand): a money request then costs one round trip to the database,
// shared with the commands submitted at the same time, and a repeat is answered from the events.
//
// The staff decisions on money and identity checks are among them. Where a check before the
// command refuses a repeat (decided already, or waiting for a second staff member), the
// decision looks for the request's own events then (command.Earlier). A balance correction is
// not among them: each request mints the adjustment's id, which names the stream of the
// proposal a large one opens, so a repeat could not find what its first run opened; its key is
// claimed ahead.
var claimedByCommand = map[string]bool{
	http.MethodPost + " /payments/create":     true,
	http.MethodPost + " /withDraw/create":     true,
	http.MethodPost + " /invest/start-invest": true,

	http.MethodPatch + " /payments/confirmPayment":       true,
	http.MethodPatch + " /payments/rejectPayment":        true,
	http.MethodPut + " /withDraw/approve/{id}":           true,
	http.MethodPut + " /withDraw/reject/{id}":            true,
	http.MethodPut + " /invest/{investmentId}/approve":   true,
	http.MethodPut + " /invest/{investmentId}/reject":    true,
	http.MethodPost + " /proposals/{proposalId}/approve": true,
	http.MethodPost + " /proposals/{proposalId}/reject":  true,
	http.MethodPost + " /users/waive-fee/{id}":           true,
	http.MethodPut + " /users/update-fees/{id}":          true,
	http.MethodPut + " /users/fees-toggle/{id}":          true,
	http.MethodPatch + " /users/kyc/{id}/approve":        true,
	http.MethodPatch + " /users/kyc/{id}/reject":         true,
}

// streamedBodies are the operations whose body streams straight into storage: the record here
// would have to hold the whole body in memory to hash it, so their command honours the key
// instead, in its events' metadata (command.Execute's replay), and the handler marks a replay
// with Idempotency-Hit.
//
// A document download streams its answer instead: it is not kept either, and the view it
// records carries the key, so a repeat records nothing more and sends the file again.
var streamedBodies = map[string]bool{
	http.MethodPost + " /users/uploadKycDocuments":                     true,
	http.MethodPost + " /users/kyc/{id}/documents/{submission}/{side}": true,
}

// idempotencyScope is whose keys a request's key is among. A signed-in caller's own: keys are
// per user, whatever the route. An anonymous caller has no identity, so the scope is the client
// address and the route: the address alone is shared by everyone behind one NAT or proxy, and
// a stored answer (say, of a sign-in) is only ever replayed to a request with the same key,
// route and body, which someone who could send it would get by sending it anyway.
func idempotencyScope(r *http.Request) (string, uuid.UUID) {
	if p, ok := PrincipalFrom(r.Context()); ok {
		owner, _ := uuid.Parse(p.UserID)
		return "user " + p.UserID, owner
	}
	return "anonymous " + clientAddress(r) + " " + r.Method + " " + routeOf(r), uuid.Nil
}

// routeOf is the operation's path as openapi.yaml writes it ("/users/verifyUser/{token}").
func routeOf(r *http.Request) string {
	rc := chi.RouteContext(r.Context())
	if rc == nil {
		return ""
	}
	return strings.TrimPrefix(rc.RoutePattern(), "/api")
}

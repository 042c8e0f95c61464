package api

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"clearvest/api/httperr"
	"clearvest/api/middleware"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth/ratelimit"
)

// requestLimit is how often one user, and one client address, may call a group of operations
// that write money requests, files or text for staff to read. The operations of a group share
// their counters: a user's deposit, withdrawal and investment requests count together.
//
// The counters are the rate_limits table's (platform/auth/ratelimit), so every serve process
// shares them. The values are far above what a person does by hand and far below what a script
// flooding the staff queues or the file store does; docs/security.md says why each is what it is.
type requestLimit struct {
	group     string // the counters' key prefix
	what      string // what the refusal message names
	perUser   ratelimit.Rule
	perClient ratelimit.Rule // an office or a mobile network puts many users behind one address
}

var (
	moneyRequestLimit = requestLimit{group: "money", what: "money requests",
		perUser: ratelimit.Rule{Limit: 30, Window: 10 * time.Minute}, perClient: ratelimit.Rule{Limit: 300, Window: 10 * time.Minute}}
	uploadLimit = requestLimit{group: "upload", what: "uploads",
		perUser: ratelimit.Rule{Limit: 20, Window: time.Hour}, perClient: ratelimit.Rule{Limit: 200, Window: time.Hour}}
	testimonialLimit = requestLimit{group: "testimonial", what: "testimonials",
		perUser: ratelimit.Rule{Limit: 5, Window: time.Hour}, perClient: ratelimit.Rule{Limit: 50, Window: time.Hour}}
	// Support messages are limited per address by the support service already (it also takes
	// them from visitors who are not signed in); this adds the per-user limit.
	supportLimit = requestLimit{group: "support", what: "support messages",
		perUser: ratelimit.Rule{Limit: 10, Window: time.Hour}}
)

// requestLimits are the limited operations, by operationId.
var requestLimits = map[string]requestLimit{
	"createDeposit":       moneyRequestLimit,
	"createWithdrawal":    moneyRequestLimit,
	"startInvestment":     moneyRequestLimit,
	"uploadKycDocuments":  uploadLimit,
	"uploadPhoto":         uploadLimit,
	"submitTestimonial":   testimonialLimit,
	"createSupportTicket": supportLimit,
}

// errRequestLimited refuses a request over a limit; RetryAfter gives the Retry-After header.
type errRequestLimited struct {
	what string
	wait time.Duration
}

func (e *errRequestLimited) Error() string {
	minutes := int((e.wait + time.Minute - 1) / time.Minute)
	if minutes <= 1 {
		return fmt.Sprintf("Too many %s in a short time. Please try again in 1 minute.", e.what)
	}
	return fmt.Sprintf("Too many %s in a short time. Please try again in %d minutes.", e.what, minutes)
}

func (e *errRequestLimited) Kind() domainerr.Kind      { return domainerr.RateLimited }
func (e *errRequestLimited) RetryAfter() time.Duration { return e.wait }

// limit counts each call of a limited operation against its caller and its client address,
// after the policy has admitted the caller and before the operation (or its Idempotency-Key
// record) runs. A repeat of a request with the same key counts too: a client retrying in a
// loop is exactly what the limit is for. Both counters are bumped on every call, so an address
// over its limit cannot be used to keep a user's count low, or the reverse.
func (idx operationIndex) limit(l *ratelimit.Limiter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pattern := strings.TrimPrefix(chi.RouteContext(r.Context()).RoutePattern(), "/api")
			rule, ok := requestLimits[idx[r.Method+" "+pattern]]
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			var wait time.Duration
			check := func(key string, rl ratelimit.Rule) error {
				if rl.Limit == 0 {
					return nil
				}
				allowed, retry, err := l.Hit(r.Context(), key, rl.Limit, rl.Window)
				if err == nil && !allowed {
					wait = max(wait, retry, time.Second)
				}
				return err
			}
			if p := authStateFrom(r.Context()).principal; p != nil {
				if err := check("req-user:"+rule.group+":"+p.UserID, rule.perUser); err != nil {
					httperr.Write(w, r, err)
					return
				}
			}
			if err := check("req-ip:"+rule.group+":"+ratelimit.ClientKey(middleware.ClientAddr(r).String()), rule.perClient); err != nil {
				httperr.Write(w, r, err)
				return
			}
			if wait > 0 {
				httperr.Write(w, r, &errRequestLimited{what: rule.what, wait: wait})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

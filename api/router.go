// Package api is Clearvest's HTTP layer: the chi router, the handlers of the API described in
// openapi.yaml (generated into api/apigen as a strict server), health and metrics endpoints, and
// the embedded single-page UI.
//
// Routes:
//
//	GET  /healthz          the process is alive
//	GET  /readyz           the database answers and every projection runs and is nearly caught up
//	GET  /metrics          404: metrics are served by MetricsHandler on a listener of their own
//	     /api/...          the JSON API; unknown paths are JSON 404s
//	GET  /api/openapi.json the API document
//	GET  /*                the UI: a file from Deps.Assets, else index.html
package api

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"slices"
	"strings"
	"time"

	"clearvest/domain/clock"
	"clearvest/domain/payout"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"clearvest/api/apigen"
	"clearvest/api/httperr"
	"clearvest/api/idempotency"
	"clearvest/api/middleware"
	"clearvest/app/accounts"
	"clearvest/app/approvals"
	appaudit "clearvest/app/audit"
	appbroadcast "clearvest/app/broadcast"
	"clearvest/app/chainaddr"
	appcommunity "clearvest/app/community"
	appkyc "clearvest/app/kyc"
	appmarket "clearvest/app/marketdata"
	appmoney "clearvest/app/money"
	appplans "clearvest/app/plans"
	"clearvest/app/queuefeed"
	appreferrals "clearvest/app/referrals"
	appsettings "clearvest/app/settings"
	appsupport "clearvest/app/support"
	"clearvest/domain/kyc"
	"clearvest/platform/auth/ratelimit"
	"clearvest/platform/sitecontent"
)

// Environments (CLEARVEST_ENV).
const (
	EnvDevelopment = "development"
	EnvProduction  = "production"
)

// DefaultMaxBodyBytes bounds request bodies when Deps.MaxBodyBytes is zero.
const DefaultMaxBodyBytes int64 = 1 << 20

// maxReadYourWritesWait caps a read-your-writes wait even if the Waiter forgets to: the UI
// would rather get slightly stale data than a hanging request.
const maxReadYourWritesWait = 5 * time.Second

// Pinger checks that the database answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// ReadinessChecker tells whether the read models can serve traffic.
type ReadinessChecker interface {
	// NotReady returns why they cannot, one sentence per read model that is parked at a failed
	// event, stood down, or too far behind; none when they can. It must be cheap: probes call it
	// often.
	NotReady(ctx context.Context) (reasons []string, err error)
}

// PositionChecker tells whether new events would sort above the log's head; it fails after a
// restore into another PostgreSQL cluster until positions are moved on (postgres.Store).
type PositionChecker interface {
	CheckPositions(ctx context.Context) error
}

// Waiter blocks until the read models have passed a global event position, and returns an error
// if they do not get there in time: implementations bound their own wait.
type Waiter = middleware.Waiter

// MetricsRegistry is where HTTP metrics are registered and MetricsHandler gathers from; a
// *prometheus.Registry is one.
type MetricsRegistry interface {
	prometheus.Registerer
	prometheus.Gatherer
}

// Deps is everything the HTTP layer needs from the rest of the program. Zero values are safe
// defaults, except that /readyz reports "not ready" until Health and Readiness are set.
type Deps struct {
	// Logger receives access logs and errors; nil means slog.Default().
	Logger *slog.Logger
	// Env is EnvDevelopment or EnvProduction ("" means development). Production adds HSTS.
	Env string
	// RequestLimiter counts the calls of the limited operations (requestlimits.go) per user and
	// per client address; nil turns the limits off (only load tests run without them).
	RequestLimiter *ratelimit.Limiter
	// Version is reported by GET /api/meta; "" means "dev".
	Version string
	// Assets is the built UI (index.html, assets/...). nil, or no index.html, serves a 503 page
	// that says how to build it.
	Assets fs.FS
	// Health pings the database for /readyz.
	Health Pinger
	// Readiness reports the read models' state for /readyz.
	Readiness ReadinessChecker
	// Positions, when set, makes /readyz fail while appends would land below the log's head.
	Positions PositionChecker
	// Details, when set, add lines to /readyz that do not make the process unready (the
	// maturity job's parked accounts).
	Details []ReadinessDetail
	// ReadYourWrites waits for projections on queries that carry X-Clearvest-Position. nil
	// means queries never wait and such responses are marked X-Clearvest-Stale.
	ReadYourWrites Waiter
	// Reads sends the read-model queries of safe requests to read replicas; nil keeps every
	// query on the primary.
	Reads middleware.ReadRouter
	// MaxBodyBytes bounds request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Metrics is where HTTP metrics are registered; other packages register their collectors in
	// the same registry, and MetricsHandler serves it. nil means a private registry with the Go
	// and process collectors.
	Metrics MetricsRegistry
	// Accounts runs the identity flows behind /api/users and authenticates every request. nil
	// leaves every caller anonymous and the user endpoints failing (tests of other parts).
	Accounts *accounts.Service
	// KYC runs the identity checks behind /api/users/kyc, the document upload and
	// /api/invest/eligibility; nil answers them with a 422 (tests of other parts).
	KYC *appkyc.Service
	// Plans is the plan catalogue behind /api/invest/plans; nil answers it with a 422 (tests
	// of other parts).
	Plans *appplans.Service
	// QueueFeed tells staff, live, when their queues change (GET /api/staff/events); nil
	// answers that stream with a 422 (tests of other parts).
	QueueFeed *queuefeed.Feed
	// ChainAddresses gives investors their own deposit addresses on the watched networks; nil
	// when none is watched (everyone sees the shared addresses). ChainConfirmations are what
	// the watcher waits for per network.
	ChainAddresses     *chainaddr.Service
	ChainConfirmations map[payout.Network]uint64
	// Chains answers the staff dashboard how the deposit watchers stand; nil when no chain is
	// watched (the answer is then an empty list).
	Chains ChainStatus
	// Money runs deposits and investments; nil in tests of other parts (its operations then answer 422).
	Money *appmoney.Service
	// ChainProgress reads how far pending chain deposits have come (chainwatch.ProgressReader);
	// nil: they read as having no confirmations yet.
	ChainProgress ChainProgress
	// Approvals runs the four-eyes proposals; nil: decisions never need a second person (tests
	// of other parts).
	Approvals *approvals.Service
	// Referrals answers the referrals page; nil in tests of other parts (it then answers 422).
	Referrals *appreferrals.Reactor
	// Market answers the market rates page from its cache; nil in tests of other parts (it then
	// answers 422).
	Market *appmarket.Service
	// Content is the operator's site content behind /api/content; nil answers it with a 422
	// (tests of other parts).
	Content *sitecontent.Store
	// Support runs the contact form and the support queue; nil answers them with a 422.
	Support *appsupport.Service
	// Broadcast runs staff e-mail; nil answers it with a 422.
	Broadcast *appbroadcast.Service
	// Community runs testimonials and answers the public social proof and badges; nil in tests
	// of other parts (its operations then answer 422).
	Community *appcommunity.Service
	// Audit answers the admins' audit screens; nil answers them with a 422.
	Audit *appaudit.Service
	// Settings are the admins' settings behind /api/settings; nil answers them with a 422.
	Settings *appsettings.Service
	// PublicURL is CLEARVEST_PUBLIC_URL; cookie-authenticated unsafe requests must come from
	// its origin (or the request's own host).
	PublicURL string
	// MailboxDir is the directory of the file:// mail transport, served by /api/dev/mail in
	// development; "" (or production) turns the development mailbox off.
	MailboxDir string
	// DevClock is the development test clock, served by /api/dev/clock in development; nil (or
	// production) turns the routes off. It must be the clock the services read.
	DevClock *clock.Offset
	// DevClockMoved, when set, is called after the test clock moved (serve wakes the maturity
	// job with it).
	DevClockMoved func()
	// TrustedProxies are the reverse proxies whose X-Forwarded-For or Forwarded header names
	// the client (CLEARVEST_TRUSTED_PROXIES); none means the peer is the client.
	TrustedProxies []netip.Prefix
	// Idempotency keeps the answers of requests sent with an Idempotency-Key. nil leaves the
	// header unread (tests of other parts); serve always sets it.
	Idempotency *idempotency.Store
}

func (d Deps) withDefaults() Deps {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	switch d.Env {
	case EnvProduction, EnvDevelopment:
	case "":
		d.Env = EnvDevelopment
	default:
		// A typo here would silently drop HSTS in production; configuration should have
		// refused it, so say so loudly.
		d.Logger.Warn("unknown environment; treating it as development", "env", d.Env)
		d.Env = EnvDevelopment
	}
	if d.Version == "" {
		d.Version = "dev"
	}
	if d.MaxBodyBytes <= 0 {
		d.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if d.Metrics == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		d.Metrics = reg
	}
	return d
}

// uploadBodyLimits raises the body limit of the routes that take files above
// Deps.MaxBodyBytes: a little over the largest file, for the multipart framing.
var uploadBodyLimits = map[string]int64{
	"/api/users/photo": accounts.MaxPhotoBytes + 64<<10,
	// Two documents of at most 10 MiB each, and the multipart framing.
	"/api/users/uploadKycDocuments": 2*kyc.MaxFileBytes + 64<<10,
}

// New returns the HTTP handler of the whole application.
func New(deps Deps) http.Handler {
	deps = deps.withDefaults()
	ops, err := newOperationIndex()
	if err != nil {
		// The document is embedded at build time; failing to read it is a broken build.
		panic(err)
	}
	var authenticator Authenticator
	if deps.Accounts != nil {
		authenticator = deps.Accounts
	}
	metrics := middleware.NewMetrics(deps.Metrics)
	// The generated router wraps each operation in these, the last outermost: the policy first,
	// then Idempotency-Key, which needs the caller and has nothing to keep for a refusal.
	// The request limits come right after the policy: they need the caller, a refused request
	// should not hold a key, and a caller over the limit is not asked to confirm it's them. The
	// step-up check comes next: a request without a fresh confirmation is refused before its
	// body or its key is looked at.
	// Before the step-up, production refuses a staff decision from an account without a passkey
	// or an authenticator app: no point in confirming with what cannot decide. A view-as-user
	// session is refused every change before anything else, and has its reads recorded right
	// after the policy (impersonation.go).
	var stepUp StepUpChecker
	var secondFactor SecondFactorChecker
	var views ViewRecorder
	if deps.Accounts != nil {
		stepUp, secondFactor, views = deps.Accounts, deps.Accounts, deps.Accounts
	}
	staffFactor := ops.requireStaffSecondFactor(secondFactor, deps.Env == EnvProduction)
	recordViews := ops.recordImpersonatedReads(views)
	operationMiddlewares := []apigen.MiddlewareFunc{ops.requireStepUp(stepUp), staffFactor, recordViews, ops.authorize, ops.refuseWhileImpersonating}
	if deps.RequestLimiter != nil {
		operationMiddlewares = []apigen.MiddlewareFunc{ops.requireStepUp(stepUp), staffFactor, ops.limit(deps.RequestLimiter), recordViews, ops.authorize,
			ops.refuseWhileImpersonating}
	}
	if deps.Idempotency != nil {
		idem, err := idempotencyFor(deps.Idempotency)
		if err != nil {
			panic(err)
		}
		operationMiddlewares = append([]apigen.MiddlewareFunc{idem}, operationMiddlewares...)
	}

	r := chi.NewRouter()
	// Order matters: the request ID and its logger first so everything can log; metrics and the
	// access log outside Recover so they see the 500 a panic becomes; security headers before
	// Recover so error responses carry them too.
	r.Use(
		middleware.RequestID(deps.Logger),
		middleware.ClientAddress(middleware.NewProxies(deps.TrustedProxies)),
		metrics.Middleware,
		middleware.AccessLog("/healthz", "/readyz", "/metrics"),
		middleware.SecurityHeaders(deps.Env == EnvProduction),
		middleware.Recover,
		// HEAD is answered wherever GET is (RFC 9110), without declaring it route by route.
		chimw.GetHead,
	)
	r.NotFound(notFound)
	r.MethodNotAllowed(methodNotAllowed(r))

	r.Get("/healthz", healthz)
	r.Method(http.MethodGet, "/readyz", readyz{db: deps.Health, projections: deps.Readiness, positions: deps.Positions, details: deps.Details})
	// Not the SPA's index.html either: a scraper pointed here must see that nothing is here.
	r.Get("/metrics", notFound)

	// The API's operations, also asked by the pages served with current data (livepages.go).
	handlers := newServer(deps)
	r.Route("/api", func(r chi.Router) {
		r.Use(
			noStore,
			bodyLimits(deps.MaxBodyBytes, uploadBodyLimits),
			middleware.RejectNullCharacters,
			// CSRF before authentication: a refused cross-site request costs no session lookup.
			csrf(deps.PublicURL, deps.Env == EnvProduction),
			authenticate(authenticator),
			middleware.ReadYourWrites(deps.ReadYourWrites, deps.Reads, maxReadYourWritesWait, signedIn),
		)
		r.NotFound(notFound)
		r.Get("/openapi.json", openAPIDocument)

		strict := apigen.NewStrictHandlerWithOptions(
			handlers,
			[]apigen.StrictMiddlewareFunc{recordPositions, withExchange},
			apigen.StrictHTTPServerOptions{
				RequestErrorHandlerFunc:  httperr.WriteRequestError,
				ResponseErrorHandlerFunc: httperr.Write,
			},
		)
		apigen.HandlerWithOptions(strict, apigen.ChiServerOptions{
			BaseRouter:       r,
			ErrorHandlerFunc: parameterError,
			Middlewares:      operationMiddlewares,
		})
	})

	ui := newSPA(deps.Assets, deps.PublicURL, liveAnswers(handlers), deps.Logger)
	if deps.Reads != nil {
		// The pages served complete (livepages.go) read the plan catalogue: a replica's reads.
		// Nobody is signed in here, so no position is waited for.
		r.With(middleware.ReadYourWrites(nil, deps.Reads, maxReadYourWritesWait, func(*http.Request) bool { return false })).Get("/*", ui.ServeHTTP)
	} else {
		r.Get("/*", ui.ServeHTTP)
	}
	return r
}

// MetricsHandler serves GET /metrics in Prometheus's text format from reg (the registry given
// as Deps.Metrics), and Go's profiles under /debug/pprof/ so an operator can see where a live
// server spends its CPU under real load. It belongs on a listener of its own
// (CLEARVEST_METRICS_ADDR), never on the public one: metrics describe traffic, errors and the
// state of the ledger, and profiles the program, to whoever reads them.
func MetricsHandler(reg prometheus.Gatherer, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelError),
	}))
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	return mux
}

// bodyLimits applies the default body limit, or a route's own when it takes uploads. The
// choice is made by exact path before routing, since a limit must be in place before anything
// reads the body.
func bodyLimits(def int64, byPath map[string]int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		limited := map[string]http.Handler{}
		for path, limit := range byPath {
			limited[path] = middleware.BodyLimit(max(limit, def))(next)
		}
		deflt := middleware.BodyLimit(def)(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if h, ok := limited[r.URL.Path]; ok {
				h.ServeHTTP(w, r)
				return
			}
			deflt.ServeHTTP(w, r)
		})
	}
}

// noStore keeps API responses (balances, personal data) out of browser and proxy caches;
// handlers of public, cacheable documents override it.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func notFound(w http.ResponseWriter, r *http.Request) {
	httperr.Respond(w, r, http.StatusNotFound, httperr.NotFoundMessage)
}

// methodNotAllowed answers 405 with the Allow header RFC 9110 requires; chi only fills it in
// for its own default handler, so the methods are looked up again in the router.
func methodNotAllowed(mux *chi.Mux) http.HandlerFunc {
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete}
	return func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range methods {
			// GetHead answers HEAD wherever GET is routed.
			if mux.Match(chi.NewRouteContext(), m, r.URL.Path) ||
				(m == http.MethodHead && slices.Contains(allowed, http.MethodGet)) {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
		}
		httperr.Respond(w, r, http.StatusMethodNotAllowed, "This method is not allowed here.")
	}
}

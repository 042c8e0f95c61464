// Command bareuser is the baseline of the signed-in read benchmark (docs/benchmarks.md,
// "Signed-in read"): GET /api/users/getUser answered by a bare chi router with one pgx query of
// the same rm_users.users row and rm_ledger.figures row that Clearvest serves (the same SQL),
// encoded as the same JSON, and nothing else: no authentication, logging, metrics, security
// headers or read-your-writes. The difference between the two is what Clearvest adds to a
// signed-in read.
//
// With -append it is also the baseline of the money commands over HTTP (scripts/cmdbench, impl
// bare-http): POST /bare/append decodes the request's JSON body and INSERTs one event-shaped
// row into a copy of the events table, one transaction, and answers with JSON.
//
//	bareuser -addr 127.0.0.1:8081 [-user USER_ID] [-append] DATABASE_URL
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/money"
)

// userQuery is the statement Clearvest's getUser sends (projections/users.GetWith joined with
// projections/ledger.JoinFigures): the user's row and their figures from the books, in one
// round trip.
const userQuery = `SELECT u.id, u.name, u.email, u.phone, u.country, u.bio, u.photo, u.role, u.status, u.is_verified,
	u.kyc_status, u.referral_code, u.referred_by, u.two_factor_enabled, u.created_at, u.updated_at, lf.available::text,
	lf.held::text, lf.invested::text, lf.returns::text, lf.fees::text, lf.adjustments::text, lf.referrals::text
	FROM rm_users.users u LEFT JOIN rm_ledger.figures lf ON lf.user_id = u.id
		WHERE u.id = $1 LIMIT 1`

// user has the field names of the API's User.
type user struct {
	ID                  string    `json:"_id"`
	Name                string    `json:"name"`
	Email               string    `json:"email"`
	Phone               string    `json:"phone"`
	Country             string    `json:"country"`
	Bio                 string    `json:"bio"`
	Photo               string    `json:"photo"`
	Role                string    `json:"role"`
	Status              string    `json:"status"`
	IsVerified          bool      `json:"isVerified"`
	KYCStatus           string    `json:"kycStatus"`
	Balance             string    `json:"balance"`
	InvestmentBalance   string    `json:"investmentBalance"`
	TotalMaturityAmount string    `json:"totalMaturityAmount"`
	Fees                string    `json:"fees"`
	HasFees             bool      `json:"hasFees"`
	ReferralCode        string    `json:"referralCode"`
	IsImpersonated      bool      `json:"isImpersonated"`
	TwoFactorEnabled    bool      `json:"twoFactorEnabled"`
	CreatedAt           time.Time `json:"createdAt"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "bareuser: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:8081", "address to listen on")
	userID := flag.String("user", "", "id of the user whose row every request reads")
	appendRoute := flag.Bool("append", false, "also serve POST /bare/append (the money commands' baseline) into a new bare_events table")
	flag.Parse()
	if flag.NArg() != 1 || (*userID == "" && !*appendRoute) {
		flag.Usage()
		return errors.New("want -user USER_ID (or -append) and one database URL")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cfg, err := pgxpool.ParseConfig(flag.Arg(0))
	if err != nil {
		return err
	}
	// As clearvest serve sizes its pool (cmd/clearvest/db.go).
	cfg.MaxConns, cfg.MinConns = 20, 2
	cfg.ConnConfig.RuntimeParams["application_name"] = "bareuser"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()

	r := chi.NewRouter()
	r.Get("/api/users/getUser", func(w http.ResponseWriter, r *http.Request) {
		var u user
		var referredBy string
		var updatedAt time.Time
		var f [7]*string // available, held, invested, returns, fees, adjustments, referrals
		err := pool.QueryRow(r.Context(), userQuery, *userID).Scan(&u.ID, &u.Name, &u.Email, &u.Phone, &u.Country,
			&u.Bio, &u.Photo, &u.Role, &u.Status, &u.IsVerified, &u.KYCStatus, &u.ReferralCode, &referredBy,
			&u.TwoFactorEnabled, &u.CreatedAt, &updatedAt, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6])
		if errors.Is(err, pgx.ErrNoRows) {
			http.Error(w, `{"message":"User not found"}`, http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, `{"message":"Something went wrong. Please try again."}`, http.StatusInternalServerError)
			return
		}
		// The figures as the API writes them: two decimals, zeros for a user with no posting.
		fig := func(p *string) string {
			if p == nil {
				return "0.00"
			}
			m, err := money.Parse(*p)
			if err != nil {
				return "0.00"
			}
			return m.String()
		}
		u.Balance, u.InvestmentBalance, u.TotalMaturityAmount, u.Fees = fig(f[0]), fig(f[2]), fig(f[3]), fig(f[4])
		u.HasFees = u.Fees != "0.00"
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(u)
	})
	if *appendRoute {
		if err := serveAppend(ctx, r, pool); err != nil {
			return err
		}
	}
	srv := &http.Server{Addr: *addr, Handler: r, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdownCtx)
	}
}

// serveAppend creates bare_events (the events table's columns, keys and indexes) and serves
// POST /bare/append into it: the floor under a money command over HTTP.
func serveAppend(ctx context.Context, r chi.Router, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS bare_events; CREATE TABLE bare_events (LIKE events INCLUDING ALL)`); err != nil {
		return err
	}
	var position atomic.Int64
	r.Post("/bare/append", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&body); err != nil {
			http.Error(w, `{"message":"bad JSON"}`, http.StatusBadRequest)
			return
		}
		data, _ := json.Marshal(body)
		pos := position.Add(1)
		id := uuid()
		meta := fmt.Sprintf(`{"correlationId":%q,"causationId":%q,"actorId":"bare","actorRole":"subscriber"}`, id, id)
		_, err := pool.Exec(r.Context(), `INSERT INTO bare_events (position, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
			VALUES ($1, $2, $3, 1, 'account.deposit_requested', 1, $4, $5, now())`, pos, id, fmt.Sprintf("account-bare-%d", pos), data, meta)
		if err != nil {
			http.Error(w, `{"message":"Something went wrong. Please try again."}`, http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Clearvest-Position", strconv.FormatInt(pos, 10))
		_ = json.NewEncoder(w).Encode(map[string]any{"position": pos, "data": body})
	})
	return nil
}

// uuid is a random (version 4) UUID.
func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Command bareuser is the baseline of the signed-in read benchmark (docs/benchmarks.md,
// "Signed-in read"): GET /api/users/getUser answered by a bare chi router with one pgx query of
// the same rm_users.users row and rm_ledger.figures row that Clearvest serves (the same SQL),
// encoded as the same JSON, and nothing else: no authentication, logging, metrics, security
// headers or read-your-writes. The difference between the two is what Clearvest adds to a
// signed-in read.
//
//	bareuser -addr 127.0.0.1:8081 -user USER_ID DATABASE_URL
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
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
	flag.Parse()
	if flag.NArg() != 1 || *userID == "" {
		flag.Usage()
		return errors.New("want -user USER_ID and one database URL")
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

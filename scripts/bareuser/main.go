// Command bareuser is the baseline of the signed-in read benchmark (docs/benchmarks.md,
// "Signed-in read"): GET /api/users/getUser answered by a bare chi router with one pgx query of
// the same rm_users.users row that Clearvest serves, encoded as the same JSON, and nothing
// else: no authentication, logging, metrics, security headers or read-your-writes. The
// difference between the two is what Clearvest adds to a signed-in read.
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
)

// user has the field names of the API's User; the money fields are the same placeholders.
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
		u := user{Balance: "0.00", InvestmentBalance: "0.00", TotalMaturityAmount: "0.00", Fees: "0.00"}
		err := pool.QueryRow(r.Context(), `SELECT id, name, email, phone, country, bio, photo, role, status,
			is_verified, kyc_status, referral_code, two_factor_enabled, created_at
			FROM rm_users.users WHERE id = $1`, *userID).Scan(&u.ID, &u.Name, &u.Email, &u.Phone, &u.Country,
			&u.Bio, &u.Photo, &u.Role, &u.Status, &u.IsVerified, &u.KYCStatus, &u.ReferralCode, &u.TwoFactorEnabled, &u.CreatedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			http.Error(w, `{"message":"User not found"}`, http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, `{"message":"Something went wrong. Please try again."}`, http.StatusInternalServerError)
			return
		}
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

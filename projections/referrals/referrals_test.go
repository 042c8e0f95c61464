package referrals_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/referrals"
)

func register(id, name, code, referredBy string) func(*identity.User) error {
	return func(u *identity.User) error {
		return u.Register(identity.RegisterParams{UserID: id, Name: name, Email: strings.ToLower(code) + "@example.com", Phone: "+447700900123",
			Country: "GB", ReferralCode: code, ReferredBy: referredBy})
	}
}

func snapshot(t *testing.T, a *apptest.IdentityApp) []string {
	t.Helper()
	rows, err := a.Pool.Query(context.Background(), `SELECT row_to_json(r)::text FROM rm_referrals.referred r ORDER BY user_id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReferralsReadModel: referred users only, their profile changes, qualification on the first
// confirmed deposit, the bonus on the referrer's stream, a closed account blanked (with its key
// destroyed), and a rebuild that yields the same rows.
func TestReferralsReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.NewIdentityApp(t)
	rita, bea, cal, dan := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	none := eventstore.Metadata{}
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	deposit := func(user, id string, confirm bool) {
		a.DoMoney(t, user, func(acc *account.Account) error {
			return acc.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: "DEP-" + id, Amount: money.MustParse("100"),
				Asset: "USDT", Network: "TRC20", OnChainAmount: "100", USDRate: "1"}, at)
		})
		a.DoMoney(t, user, func(acc *account.Account) error {
			if confirm {
				return acc.ConfirmDeposit(id, money.MustParse("100"), "", "staff", at.Add(time.Hour))
			}
			return acc.RejectDeposit(id, "nothing arrived", "staff", at.Add(time.Hour))
		})
	}

	a.Do(t, rita, none, register(rita, "Rita Referrer", "RITA42", ""))
	a.Do(t, bea, none, register(bea, "Bea Friend", "BEA123", rita))
	a.Do(t, cal, none, register(cal, "Cal Later", "CAL123", rita))
	a.Do(t, dan, none, register(dan, "Dan Alone", "DAN123", ""))
	a.Do(t, bea, none, func(u *identity.User) error {
		p := u.Profile()
		p.Name, p.Photo = "Bea Friendly", "/api/users/photo/bea"
		return u.UpdateProfile(p)
	})
	deposit(bea, "d1", true)
	deposit(bea, "d2", true)
	deposit(cal, "d3", false)
	deposit(dan, "d4", true)
	a.DoMoney(t, rita, func(acc *account.Account) error {
		return acc.CreditReferralBonus(bea, money.MustParse("5"), at.Add(2*time.Hour))
	})

	r := a.Runner(t, []projections.Projection{referrals.New(a.Codec)}, projections.WithBatchSize(3))
	a.CatchUp(t, r)
	list, err := referrals.List(ctx, a.Pool, rita)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(list))
	for i, x := range list {
		bonus := "-"
		if x.Bonus != nil {
			bonus = x.Bonus.String()
		}
		got[i] = fmt.Sprintf("%s %q %q qualified=%v bonus=%s closed=%v", x.UserID, x.Name, x.Photo, x.Qualified(), bonus, x.Closed)
	}
	want := []string{
		fmt.Sprintf("%s %q %q qualified=false bonus=- closed=false", cal, "Cal Later", ""),
		fmt.Sprintf("%s %q %q qualified=true bonus=5.00 closed=false", bea, "Bea Friendly", "/api/users/photo/bea"),
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rita's referrals (newest first):\n got %q\nwant %q", got, want)
	}
	if list[1].QualifiedAt == nil || !list[1].QualifiedAt.Equal(at.Add(time.Hour)) {
		t.Errorf("qualified at %v, want the first confirmation's time", list[1].QualifiedAt)
	}
	// Bea qualified, Cal's only deposit was rejected.
	if n, err := referrals.QualifiedCount(ctx, a.Pool, rita); err != nil || n != 1 {
		t.Errorf("rita's qualified referrals = %d, %v; want 1", n, err)
	}
	for _, who := range []string{bea, dan} {
		if other, err := referrals.List(ctx, a.Pool, who); err != nil || len(other) != 0 {
			t.Errorf("%s referred nobody, got %+v, %v", who, other, err)
		}
	}

	// Bea closes her account and her key is destroyed: her name and photo go, the bonus stays.
	a.Do(t, bea, none, func(u *identity.User) error { return u.Close(bea) })
	if err := a.Cipher.Erase(ctx, bea); err != nil {
		t.Fatal(err)
	}
	a.CatchUp(t, r)
	list, err = referrals.List(ctx, a.Pool, rita)
	if err != nil {
		t.Fatal(err)
	}
	if b := list[1]; b.UserID != bea || b.Name != "" || b.Photo != "" || !b.Closed || b.Bonus == nil || !b.Qualified() {
		t.Fatalf("after closing: %+v", b)
	}

	live := snapshot(t, a)
	if _, err := r.Rebuild(ctx, referrals.Name); err != nil {
		t.Fatal(err)
	}
	if rebuilt := snapshot(t, a); !slices.Equal(live, rebuilt) {
		t.Errorf("rebuild differs from live\nlive:    %v\nrebuilt: %v", live, rebuilt)
	}
	for _, row := range live {
		if strings.Contains(row, eventstore.ErasedValue) || strings.Contains(row, "Bea") {
			t.Errorf("the read model keeps a closed account's data: %s", row)
		}
	}
}

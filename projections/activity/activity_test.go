package activity_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/app/apptest"
	"clearvest/domain/account"
	"clearvest/domain/identity"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/activity"
)

func snapshot(t *testing.T, a *apptest.IdentityApp) []string {
	t.Helper()
	var out []string
	for _, table := range []string{"people", "plans", "items"} {
		rows, err := a.Pool.Query(context.Background(), `SELECT row_to_json(r)::text FROM rm_activity.`+table+` r ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got...)
	}
	return out
}

// TestActivityReadModel: deposits confirmed, investments started and completed become
// anonymised items with the country of the profile (changes included); rejected deposits,
// requests and pending investments are no activity; the counts; a closed account's items lose
// their country; a rebuild yields the same rows.
func TestActivityReadModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := apptest.NewIdentityApp(t)
	none := eventstore.Metadata{}
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	m := money.MustParse
	terms := account.Terms{PlanID: "p2", PlanVersion: 1, PlanName: "Standard", TermDays: 1, TermRate: "0.15", Min: m("300"), Max: m("500")}
	register := func(id, code, country string) {
		a.Do(t, id, none, func(u *identity.User) error {
			return u.Register(identity.RegisterParams{UserID: id, Name: "Name " + code, Email: code + "@example.com", Phone: "+447700900123",
				Country: country, ReferralCode: code})
		})
	}
	deposit := func(user, id string, confirm bool, when time.Time) {
		a.DoMoney(t, user, func(acc *account.Account) error {
			return acc.RequestDeposit(account.DepositRequest{DepositID: id, TransactionID: "DEP-" + id, Amount: m("400"),
				Asset: "USDT", Network: "TRC20", OnChainAmount: "400", USDRate: "1"}, when)
		})
		a.DoMoney(t, user, func(acc *account.Account) error {
			if confirm {
				return acc.ConfirmDeposit(id, m("400"), "", "staff", when)
			}
			return acc.RejectDeposit(id, "nothing arrived", "staff", when)
		})
	}
	de, unknown, fr := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	register(de, "de1", "DE")
	register(unknown, "xx1", "")
	register(fr, "fr1", "FR")
	deposit(de, "d1", true, at)
	deposit(unknown, "d2", true, at.Add(time.Minute))
	deposit(fr, "d3", false, at.Add(2*time.Minute)) // rejected: no activity, not an investor
	a.DoMoney(t, de, func(acc *account.Account) error {
		return acc.RequestInvestment("i1", terms, m("300"), at.Add(3*time.Minute))
	})
	a.DoMoney(t, de, func(acc *account.Account) error { return acc.ActivateInvestment("i1", "staff", at.Add(4*time.Minute)) })
	a.DoMoney(t, de, func(acc *account.Account) error { return acc.MatureInvestment("i1", at.Add(25*time.Hour)) })
	a.DoMoney(t, unknown, func(acc *account.Account) error {
		return acc.RequestInvestment("i2", terms, m("300"), at.Add(5*time.Minute))
	})

	r := a.Runner(t, []projections.Projection{activity.New(a.Codec)}, projections.WithBatchSize(4))
	a.CatchUp(t, r)
	words := func() []string {
		list, err := activity.Recent(ctx, a.Pool, 10)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(list))
		for i, it := range list {
			out[i] = fmt.Sprintf("%s %s %q %s", it.Kind, it.Plan, it.Country, it.At.Format(time.RFC3339))
		}
		return out
	}
	want := []string{
		`investment_matured Standard "DE" 2026-11-03T11:00:00Z`,
		`investment_started Standard "DE" 2026-11-02T10:04:00Z`,
		`deposit_confirmed  "" 2026-11-02T10:01:00Z`,
		`deposit_confirmed  "DE" 2026-11-02T10:00:00Z`,
	}
	if got := words(); !slices.Equal(got, want) {
		t.Fatalf("recent:\n got %q\nwant %q", got, want)
	}
	if c, err := activity.Totals(ctx, a.Pool); err != nil || c != (activity.Counts{Investors: 2, Countries: 1}) {
		t.Errorf("totals = %+v, %v; want 2 investors in 1 country", c, err)
	}
	for user, want := range map[string]bool{de: true, unknown: true, fr: false} {
		if got, err := activity.IsInvestor(ctx, a.Pool, user); err != nil || got != want {
			t.Errorf("IsInvestor(%s) = %v, %v; want %v", user, got, err, want)
		}
	}

	// The unknown one says where they live; the German one closes their account.
	a.Do(t, unknown, none, func(u *identity.User) error {
		p := u.Profile()
		p.Country = "JP"
		return u.UpdateProfile(p)
	})
	a.Do(t, de, none, func(u *identity.User) error { return u.Close(de) })
	a.CatchUp(t, r)
	want = []string{
		`investment_matured Standard "" 2026-11-03T11:00:00Z`,
		`investment_started Standard "" 2026-11-02T10:04:00Z`,
		`deposit_confirmed  "JP" 2026-11-02T10:01:00Z`,
		`deposit_confirmed  "" 2026-11-02T10:00:00Z`,
	}
	if got := words(); !slices.Equal(got, want) {
		t.Fatalf("after the changes:\n got %q\nwant %q", got, want)
	}
	if c, err := activity.Totals(ctx, a.Pool); err != nil || c != (activity.Counts{Investors: 2, Countries: 1}) {
		t.Errorf("totals = %+v, %v; want 2 investors (the closed one did invest) in 1 country", c, err)
	}

	live := snapshot(t, a)
	if _, err := r.Rebuild(ctx, activity.Name); err != nil {
		t.Fatal(err)
	}
	if rebuilt := snapshot(t, a); !slices.Equal(live, rebuilt) {
		t.Errorf("rebuild differs from live\nlive:    %v\nrebuilt: %v", live, rebuilt)
	}
}

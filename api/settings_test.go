package api_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/approvals"
	"clearvest/app/command"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/app/plans"
	appsettings "clearvest/app/settings"
	"clearvest/domain/clock"
	dm "clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/domain/settings"
	"clearvest/eventstore"
	"clearvest/platform/config"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/investments"
	"clearvest/projections/ledger"
	projplans "clearvest/projections/plans"
	"clearvest/projections/proposals"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// settingsApp is the API with the money service, the plan catalogue, the four-eyes rule and the
// admins' settings, as serve wires them: money reads the fee, the thresholds and the addresses
// from the settings service.
type settingsApp struct {
	*investApp
	env *kyctest.Env
}

// settingsDefaults are the first-start defaults of the tests: the default fee and thresholds, and
// the addresses of the money tests.
func settingsDefaults(t testing.TB) settings.Values {
	t.Helper()
	fee, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	return settings.Values{
		WithdrawalFee: settings.FromSchedule(fee),
		Referral:      settings.Referral{Bonus: dm.MustParse("5"), MinDeposit: dm.MustParse("100")},
		Approvals: settings.Approvals{DepositTolerancePercent: decimal.NewFromInt(1), DepositThreshold: dm.MustParse("10000"),
			WithdrawalThreshold: dm.MustParse("10000")},
		DepositAddresses: []settings.Address{{Asset: "BTC", Network: "BTC", Address: testBTCAddress}, {Asset: "USDT", Network: "TRC20", Address: testTRONAddress}},
	}
}

func newSettingsApp(t *testing.T) *settingsApp {
	t.Helper()
	var svc *money.Service
	env := kyctest.New(t, closeChecked(&svc), accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		plan.RegisterEvents(codec)
		settings.RegisterEvents(codec)
		return []projections.Projection{ledger.New(codec), wallets.New(codec), investments.New(codec), withdrawals.New(codec),
			history.New(codec), proposals.New(codec), projplans.New(codec)}
	}, money.Migrations, plans.Migrations, approvals.Migrations))
	planSvc, err := plans.New(plans.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Now())
	var a *app
	svc, a = serveSettings(t, env, env.Commands, planSvc, clk)
	ia := &investApp{app: a, money: svc, plans: planSvc, clock: clk}
	ia.staff, _ = a.member(t, "sam@example.com", "author")
	return &settingsApp{investApp: ia, env: env}
}

// serveSettings serves one more process on env's database: its own settings service (its own
// cache), money service and approvals on commands.
func serveSettings(t *testing.T, env *kyctest.Env, commands *command.Runner, planSvc *plans.Service, clk clock.Clock) (*money.Service, *app) {
	t.Helper()
	st, err := appsettings.New(settingsDefaults(t), appsettings.Deps{Pool: env.Pool, Store: env.Store, Codec: env.Codec, Commands: commands,
		Clock: clk, Logger: slog.New(slog.DiscardHandler), Ceiling: dm.MustParse("10000000")})
	if err != nil {
		t.Fatal(err)
	}
	svc := newMoneyService(t, env.Env, commands, planSvc, clk, func(c *money.Config) {
		c.Thresholds = money.Thresholds{DepositTolerance: decimal.RequireFromString("0.01"), DepositThreshold: dm.MustParse("10000"),
			WithdrawalThreshold: dm.MustParse("10000"), MaxAmount: dm.MustParse("10000000")}
	})
	svc.UseSettings(st)
	ap, err := approvals.New(approvals.Deps{Pool: env.Pool, Commands: commands, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	svc.RegisterExecutors(ap)
	env.Accounts.RegisterExecutors(ap)
	return svc, serve(t, env.Env, func(d *api.Deps) {
		d.Money, d.KYC, d.Plans, d.Approvals, d.Settings = svc, env.KYC, planSvc, ap, st
	})
}

// on returns a copy of c that sends its requests to another server of the same database.
func (c *client) on(other *app) *client {
	cp := *c
	cp.app = other
	cp.header = c.header.Clone()
	if cp.header.Get("Origin") != "" {
		cp.header.Set("Origin", other.srv.URL)
	}
	return &cp
}

type settingsJSON struct {
	WithdrawalFee struct{ Percent, Flat, Minimum, Cap string } `json:"withdrawalFee"`
	Approvals     struct {
		DepositTolerancePercent, DepositThreshold, WithdrawalThreshold string
	} `json:"approvals"`
	Support struct{ Email string } `json:"support"`
	History []struct {
		Section string
		Reason  string
		By      struct {
			ID   string `json:"_id"`
			Name string `json:"name"`
		} `json:"by"`
		Old, New map[string]any
	} `json:"history"`
	Plans []struct {
		ID      string `json:"_id"`
		Name    string
		Active  bool
		Version int
	} `json:"plans"`
}

func putFee(c *client, percent, flat, minimum, cap, reason string) response {
	return c.do(http.MethodPut, "/api/settings/withdrawalFee", map[string]any{"reason": reason,
		"withdrawalFee": map[string]string{"percent": percent, "flat": flat, "minimum": minimum, "cap": cap}})
}

func TestAFeeChangeIsInForceForTheNextQuoteInEveryProcess(t *testing.T) {
	t.Parallel()
	a := newSettingsApp(t)
	admin, adminUser := a.member(t, "ada@example.com", "admin")
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	fund(t, investor, a.staff, "1000")
	clearedToWithdraw(t, a.app, investor, a.staff)

	// A second process on the same database, with its own caches.
	peerCommands := command.NewRunner(a.env.Store, a.env.Codec)
	_, peer := serveSettings(t, a.env, peerCommands, a.plans, a.clock)
	investorOnPeer := investor.on(peer)

	// The peer decides a withdrawal on the settings from now on without reading them again.
	if w := withdraw(t, investorOnPeer, "100", "TRC20", testTRONAddress); w.Fee != "2.00" {
		t.Fatalf("withdrawal on the peer before the change: %+v", w)
	}

	body := map[string]string{"amount": "100", "network": "TRC20"}
	for _, c := range []*client{investor, investorOnPeer} {
		res := quote(c, body)
		expect(t, res, http.StatusOK)
		if q := decodeJSON[struct{ Fee string }](t, res); q.Fee != "2.00" {
			t.Fatalf("fee before the change = %s, want 2.00", q.Fee)
		}
	}

	res := putFee(admin, "2", "0.50", "20.00", "", "Network fees went up")
	expect(t, res, http.StatusOK)
	got := decodeJSON[settingsJSON](t, res)
	if got.WithdrawalFee.Percent != "2" || got.WithdrawalFee.Flat != "0.50" || got.WithdrawalFee.Minimum != "20.00" || got.WithdrawalFee.Cap != "0.00" {
		t.Fatalf("fee after the change: %+v", got.WithdrawalFee)
	}
	if len(got.History) != 1 || got.History[0].Section != "withdrawalFee" || got.History[0].Reason != "Network fees went up" ||
		got.History[0].By.ID != adminUser.ID || got.History[0].By.Name == "" {
		t.Fatalf("history: %+v", got.History)
	}

	// Both processes quote the new schedule at once: 2 % of 100 + 0.50.
	for i, c := range []*client{investor, investorOnPeer} {
		res := quote(c, body)
		expect(t, res, http.StatusOK)
		q := decodeJSON[struct{ Fee, Minimum, Schedule string }](t, res)
		if q.Fee != "2.50" || q.Minimum != "20.00" {
			t.Fatalf("process %d: quote after the change = %+v, want fee 2.50, minimum 20.00", i+1, q)
		}
	}
	expectMessage(t, quote(investorOnPeer, map[string]string{"amount": "15", "network": "TRC20"}), http.StatusUnprocessableEntity,
		"The minimum withdrawal is $20.00")

	// A withdrawal requested now is charged the new fee, in either process; one stating the old
	// fee is refused with the new figures.
	for i, c := range []*client{investor, investorOnPeer} {
		if w := withdraw(t, c, "100", "TRC20", testTRONAddress); w.Fee != "2.50" || w.Receives != "97.50" {
			t.Fatalf("process %d: withdrawal: %+v", i+1, w)
		}
	}
	stale := map[string]string{"amount": "100", "network": "TRC20", "walletAddress": testTRONAddress, "fee": "2.00"}
	expect(t, investorOnPeer.do(http.MethodPost, "/api/withDraw/create", stale), http.StatusConflict)
}

func TestSettingsAreCheckedFieldByField(t *testing.T) {
	t.Parallel()
	a := newSettingsApp(t)
	admin, _ := a.member(t, "ada@example.com", "admin")
	cases := []struct {
		section string
		body    map[string]any
		status  int
		field   string
	}{
		{"withdrawalFee", map[string]any{"reason": "why not", "withdrawalFee": map[string]string{"percent": "1", "flat": "-1", "minimum": "10", "cap": ""}}, 400, "flat"},
		{"withdrawalFee", map[string]any{"reason": "why not", "withdrawalFee": map[string]string{"percent": "-1", "flat": "1", "minimum": "10", "cap": ""}}, 400, "percent"},
		{"withdrawalFee", map[string]any{"reason": "why not", "withdrawalFee": map[string]string{"percent": "1", "flat": "5", "minimum": "10", "cap": "2"}}, 400, "cap"},
		{"withdrawalFee", map[string]any{"reason": "", "withdrawalFee": map[string]string{"percent": "1", "flat": "1", "minimum": "10", "cap": ""}}, 400, "reason"},
		{"referral", map[string]any{"reason": "why not", "referral": map[string]string{"bonus": "50", "minDeposit": "20"}}, 400, "bonus"},
		{"approvals", map[string]any{"reason": "why not", "approvals": map[string]string{"depositTolerancePercent": "1", "depositThreshold": "20000000", "withdrawalThreshold": "100"}}, 400, "depositThreshold"},
		{"depositAddresses", map[string]any{"reason": "why not", "depositAddresses": map[string]any{"addresses": []map[string]string{{"asset": "BTC", "network": "BTC", "address": "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5"}}}}, 400, "addresses.0"},
		{"support", map[string]any{"reason": "why not", "support": map[string]string{"email": "not an address"}}, 400, "email"},
	}
	for _, tc := range cases {
		res := admin.do(http.MethodPut, "/api/settings/"+tc.section, tc.body)
		if res.status != tc.status {
			t.Errorf("%s %v: status %d, want %d (%s)", tc.section, tc.body, res.status, tc.status, res.body)
			continue
		}
		if e := decodeError(t, res); e.Field != tc.field {
			t.Errorf("%s %v: field %q, want %q (%s)", tc.section, tc.body, e.Field, tc.field, e.Message)
		}
	}
	// Nothing was recorded.
	res := admin.do(http.MethodGet, "/api/settings", nil)
	expect(t, res, http.StatusOK)
	if h := decodeJSON[settingsJSON](t, res).History; len(h) != 0 {
		t.Fatalf("history after refusals: %+v", h)
	}
	// The same values as now are refused too.
	expect(t, putFee(admin, "1", "1.00", "10.00", "25.00", "No change"), http.StatusUnprocessableEntity)
}

func TestOnlyAdminsSeeAndChangeSettings(t *testing.T) {
	t.Parallel()
	a := newSettingsApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	for _, c := range []*client{a.staff, investor} {
		expect(t, c.do(http.MethodGet, "/api/settings", nil), http.StatusForbidden)
		expect(t, putFee(c, "2", "1", "10", "", "Network fees went up"), http.StatusForbidden)
		expect(t, c.do(http.MethodPost, "/api/settings/plans", map[string]any{"name": "X", "min": "10", "max": "20", "termDays": 30,
			"termRate": "0.01", "reason": "New plan"}), http.StatusForbidden)
	}
}

func TestASettingsChangeReplaysWithItsIdempotencyKey(t *testing.T) {
	t.Parallel()
	a := newSettingsApp(t)
	admin, _ := a.member(t, "ada@example.com", "admin")
	admin.header.Set("Idempotency-Key", "fee-change-1")
	first := putFee(admin, "2", "1.00", "10.00", "", "Network fees went up")
	expect(t, first, http.StatusOK)
	again := putFee(admin, "2", "1.00", "10.00", "", "Network fees went up")
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || !bytes.Equal(again.body, first.body) {
		t.Fatalf("replay: hit %q, same body %v", again.header.Get("Idempotency-Hit"), bytes.Equal(again.body, first.body))
	}
	expect(t, putFee(admin, "3", "1.00", "10.00", "", "Network fees went up"), http.StatusUnprocessableEntity)
	admin.header.Del("Idempotency-Key")
	res := admin.do(http.MethodGet, "/api/settings", nil)
	expect(t, res, http.StatusOK)
	if h := decodeJSON[settingsJSON](t, res).History; len(h) != 1 {
		t.Fatalf("history after a replay: %d changes, want 1", len(h))
	}
}

func TestThresholdChangesDecideWhichPayoutsNeedASecondAdmin(t *testing.T) {
	t.Parallel()
	a := newSettingsApp(t)
	admin, _ := a.member(t, "ada@example.com", "admin")
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	fund(t, investor, a.staff, "3000")
	clearedToWithdraw(t, a.app, investor, a.staff)

	// At the default $10,000.00, a $1,000.00 deposit is confirmed by one staff member...
	small := createUSDT(t, investor, "1000", "")
	a.staff.position = max(a.staff.position, investor.position)
	expect(t, confirm(a.staff, small.TransactionID, "1000", ""), http.StatusOK)

	// ...and after the deposit threshold drops to $500.00 the next one needs a second admin.
	expect(t, admin.do(http.MethodPut, "/api/settings/approvals", map[string]any{"reason": "Tighter control this quarter",
		"approvals": map[string]string{"depositTolerancePercent": "1", "depositThreshold": "500", "withdrawalThreshold": "500"}}), http.StatusOK)
	next := createUSDT(t, investor, "1000", "")
	a.staff.position = max(a.staff.position, investor.position)
	proposed(t, confirm(a.staff, next.TransactionID, "1000", "Seen on the explorer"))

	// A withdrawal above the new withdrawal threshold too.
	w := withdraw(t, investor, "600", "TRC20", testTRONAddress)
	a.staff.position = max(a.staff.position, investor.position)
	proposed(t, a.staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"reason": "Large payout"}))
}

func TestPlanVersionsAndRetirement(t *testing.T) {
	t.Parallel()
	a := newSettingsApp(t)
	admin, _ := a.member(t, "ada@example.com", "admin")
	ivy, _ := a.investor(t, "ivy@example.com", "1000")

	res := admin.do(http.MethodPost, "/api/settings/plans", map[string]any{"name": "Steady", "min": "100", "max": "5000",
		"termDays": 30, "termRate": "0.0040", "reason": "A plan for beginners"})
	expect(t, res, http.StatusCreated)
	id := decodeJSON[struct {
		ID string `json:"_id"`
	}](t, res).ID
	ivy.position = max(ivy.position, admin.position)
	first := a.start(t, ivy, "Steady", "100")
	if first.PlanVersion != 1 || first.TermRate != "0.0040" {
		t.Fatalf("first investment: %+v", first)
	}

	// New terms are version 2; the investment made before keeps version 1's.
	expect(t, admin.do(http.MethodPost, "/api/settings/plans/"+id+"/versions", map[string]any{"min": "100", "max": "5000",
		"termDays": 60, "termRate": "0.0100", "reason": "Longer term, better rate"}), http.StatusOK)
	ivy.position = max(ivy.position, admin.position)
	second := a.start(t, ivy, "Steady", "100")
	if second.PlanVersion != 2 || second.TermRate != "0.0100" || second.TermDays != 60 {
		t.Fatalf("second investment: %+v", second)
	}
	res = ivy.do(http.MethodGet, "/api/invest/investment/"+first.ID, nil)
	expect(t, res, http.StatusOK)
	if got := decodeJSON[investmentJSON](t, res); got.PlanVersion != 1 || got.TermRate != "0.0040" || got.TermDays != 30 {
		t.Fatalf("first investment after the new version: %+v", got)
	}

	// Retired: no new investments; the list of plans no longer offers it, the console still shows it.
	expect(t, admin.do(http.MethodPost, "/api/settings/plans/"+id+"/retire", map[string]any{"reason": "Replaced by a new plan"}), http.StatusOK)
	ivy.position = max(ivy.position, admin.position)
	res = ivy.do(http.MethodPost, "/api/invest/start-invest", map[string]any{"planName": "Steady", "amount": "100", "planVersion": 2})
	if res.status < 400 {
		t.Fatalf("investing in a retired plan: %d %s", res.status, res.body)
	}
	res = admin.do(http.MethodGet, "/api/settings", nil)
	expect(t, res, http.StatusOK)
	s := decodeJSON[settingsJSON](t, res)
	if len(s.Plans) != 1 || s.Plans[0].Active || s.Plans[0].Version != 2 {
		t.Fatalf("plans in the console: %+v", s.Plans)
	}
	expect(t, admin.do(http.MethodPost, "/api/settings/plans/"+id+"/retire", map[string]any{"reason": "Again"}), http.StatusUnprocessableEntity)
}

// A deposit request is decided on the settings this process last read, without reading them
// again, so the process that did not make the change must notice it when the request commits.
func TestANewDepositAddressIsTheOneTheNextDepositIsToldInEveryProcess(t *testing.T) {
	t.Parallel()
	a := newSettingsApp(t)
	admin, _ := a.member(t, "ada@example.com", "admin")
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	peerCommands := command.NewRunner(a.env.Store, a.env.Codec)
	_, peer := serveSettings(t, a.env, peerCommands, a.plans, a.clock)
	investorOnPeer := investor.on(peer)

	body := map[string]string{"amount": "25", "asset": "USDT", "network": "TRC20"}
	address := func(res response) string {
		t.Helper()
		expect(t, res, http.StatusOK)
		return decodeJSON[struct{ Address string }](t, res).Address
	}
	// The peer has the settings stream in its cache from now on.
	if got := address(investorOnPeer.do(http.MethodPost, "/api/payments/create", body)); got != testTRONAddress {
		t.Fatalf("address before the change = %q, want %q", got, testTRONAddress)
	}
	const moved = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8"
	expect(t, admin.do(http.MethodPut, "/api/settings/depositAddresses", map[string]any{"reason": "New wallet",
		"depositAddresses": map[string]any{"addresses": []map[string]string{
			{"asset": "BTC", "network": "BTC", "address": testBTCAddress}, {"asset": "USDT", "network": "TRC20", "address": moved}}}}), http.StatusOK)
	for i, c := range []*client{investor, investorOnPeer} {
		if got := address(c.do(http.MethodPost, "/api/payments/create", body)); got != moved {
			t.Fatalf("process %d: address after the change = %q, want %q", i+1, got, moved)
		}
	}
	// An address taken off the list is refused at once, in both processes.
	expect(t, admin.do(http.MethodPut, "/api/settings/depositAddresses", map[string]any{"reason": "TRON paused",
		"depositAddresses": map[string]any{"addresses": []map[string]string{{"asset": "BTC", "network": "BTC", "address": testBTCAddress}}}}), http.StatusOK)
	for _, c := range []*client{investor, investorOnPeer} {
		expectMessage(t, c.do(http.MethodPost, "/api/payments/create", body), http.StatusUnprocessableEntity, "Deposits of this asset on this network are not available. Please choose another.")
	}
}

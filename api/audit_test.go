package api_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	appaudit "clearvest/app/audit"
	"clearvest/app/command"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/app/plans"
	"clearvest/domain/account"
	"clearvest/domain/clock"
	dmoney "clearvest/domain/money"
	"clearvest/domain/plan"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/audit"
	"clearvest/projections/history"
	"clearvest/projections/investments"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// newAuditApp is the API with money, plans and the audit screens on one database.
func newAuditApp(t *testing.T) *investApp {
	t.Helper()
	var svc *money.Service
	env := kyctest.New(t, closeChecked(&svc), accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		plan.RegisterEvents(codec)
		return []projections.Projection{ledger.New(codec), wallets.New(codec), investments.New(codec), withdrawals.New(codec),
			history.New(codec), audit.New()}
	}, money.Migrations, plans.Migrations))
	planSvc, err := plans.New(plans.Deps{Pool: env.Pool, Commands: env.Commands})
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewManual(time.Now())
	svc = newMoneyService(t, env.Env, env.Commands, planSvc, clk)
	auditSvc, err := appaudit.New(appaudit.Deps{Pool: env.Pool, Store: env.Store, Codec: env.Codec})
	if err != nil {
		t.Fatal(err)
	}
	a := serve(t, env.Env, func(d *api.Deps) { d.Money, d.KYC, d.Plans, d.Audit = svc, env.KYC, planSvc, auditSvc })
	ia := &investApp{app: a, money: svc, plans: planSvc, clock: clk}
	ia.staff, _ = a.member(t, "sam@example.com", "author")
	return ia
}

type auditEntryJSON struct {
	Position    int64  `json:"position"`
	Kind        string `json:"kind"`
	Summary     string `json:"summary"`
	ActorID     string `json:"actorId"`
	ActorEmail  string `json:"actorEmail"`
	ActorRole   string `json:"actorRole"`
	TargetUser  string `json:"targetUser"`
	TargetEmail string `json:"targetEmail"`
	Reference   string `json:"reference"`
	Amount      string `json:"amount"`
	Reason      string `json:"reason"`
	ClientIP    string `json:"clientIp"`
}

type auditLogJSON struct {
	Entries []auditEntryJSON `json:"entries"`
	Next    *string          `json:"next"`
	Kinds   []string         `json:"kinds"`
}

type booksJSON struct {
	Position int64 `json:"position"`
	Head     int64 `json:"head"`
	Events   int   `json:"events"`
	Accounts []struct {
		Account, User, Book, Balance, Debit, Credit string
	} `json:"accounts"`
	TotalDebit     string   `json:"totalDebit"`
	TotalCredit    string   `json:"totalCredit"`
	Balanced       bool     `json:"balanced"`
	Unbalanced     []int64  `json:"unbalanced"`
	WentNegative   []string `json:"wentNegative"`
	Reconciliation struct {
		DepositsReceived, PayoutsSent, InvestorLiabilities, PlatformEquity, Difference string
	} `json:"reconciliation"`
	Users struct{ Available, Held, Invested string } `json:"users"`
}

func (b booksJSON) balance(account string) string {
	for _, a := range b.Accounts {
		if a.Account == account {
			return a.Balance
		}
	}
	return "absent"
}

func auditLog(t *testing.T, c *client, query string) auditLogJSON {
	t.Helper()
	res := c.do(http.MethodGet, "/api/audit/log"+query, nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[auditLogJSON](t, res)
}

func books(t *testing.T, c *client, query string) booksJSON {
	t.Helper()
	res := c.do(http.MethodGet, "/api/audit/books"+query, nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[booksJSON](t, res)
}

// staffCommand runs a money decision that has no screen yet straight through the command runner,
// with the metadata a staff request carries, and makes c wait for it.
func staffCommand(t *testing.T, a *app, c *client, userID, staffID, ip string, decide func(*account.Account) error) {
	t.Helper()
	res, err := command.Execute(context.Background(), a.Commands, eventstore.StreamID(account.Stream(userID)), account.NewFor(userID),
		eventstore.Metadata{ActorID: staffID, ActorRole: "admin", ClientIP: ip, CorrelationID: "corr-" + ip}, decide)
	if err != nil {
		t.Fatal(err)
	}
	c.position = max(c.position, res.Position)
}

func TestAuditLogEventsAndBooks(t *testing.T) {
	t.Parallel()
	a := newAuditApp(t)
	a.plan(t, "Basic", "100", "5000", 30, "0.02")
	admin, adminUser := a.member(t, "ada@example.com", "admin")
	investor, ivyID := a.investor(t, "ivy@example.com", "1000")
	sync := func() { admin.position = max(admin.position, investor.position, a.staff.position) }
	sync()

	// The books right after the first deposit, to be asked for again later.
	early := books(t, admin, "")
	if !early.Balanced || early.Reconciliation.DepositsReceived != "1000.00" || early.Reconciliation.InvestorLiabilities != "1000.00" ||
		early.Reconciliation.Difference != "0.00" || early.TotalDebit != "1000.00" || early.TotalCredit != "1000.00" {
		t.Fatalf("books after one deposit: %+v", early)
	}

	// A rejected deposit with a reason, an investment approved, a withdrawal approved with its
	// fee, part of the fee waived and a correction, each by staff.
	d := createUSDT(t, investor, "50", "")
	expect(t, a.staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d.TransactionID, "notes": "Nothing arrived"}), http.StatusOK)
	a.staff.position = max(a.staff.position, investor.position)
	inv := a.start(t, investor, "Basic", "300")
	a.staff.position = max(a.staff.position, investor.position)
	expect(t, a.staff.do(http.MethodPut, "/api/invest/"+inv.ID+"/approve", nil), http.StatusOK)
	stepUp(t, investor)
	w := withdraw(t, investor, "100", "TRC20", testTRONAddress)
	a.staff.position = max(a.staff.position, investor.position)
	expect(t, a.staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("audit-paid")}), http.StatusOK)
	staffCommand(t, a.app, admin, ivyID, adminUser.ID, "203.0.113.9", func(acc *account.Account) error {
		return acc.WaiveFee(w.ID, dmoney.MustParse("1.00"), "Goodwill", adminUser.ID, time.Now())
	})
	staffCommand(t, a.app, admin, ivyID, adminUser.ID, "203.0.113.9", func(acc *account.Account) error {
		return acc.PostAdjustment(account.Adjustment{AdjustmentID: "adj-audit", Amount: dmoney.MustParse("12.50"),
			Category: account.CategoryGoodwill, Reason: "Late payout"}, adminUser.ID, time.Now())
	})
	sync()

	// The audit log: every staff action, newest first, with actor, target, address and reason.
	log := auditLog(t, admin, "")
	kinds := map[string]auditEntryJSON{}
	for _, e := range log.Entries {
		if _, seen := kinds[e.Kind]; !seen {
			kinds[e.Kind] = e
		}
		if e.TargetUser == e.ActorID {
			t.Errorf("an action on the actor's own account is in the log: %+v", e)
		}
	}
	confirmed := kinds["account.deposit_confirmed"]
	if confirmed.ActorEmail != "sam@example.com" || confirmed.ActorRole != "author" || confirmed.TargetUser != ivyID ||
		confirmed.TargetEmail != "ivy@example.com" || confirmed.ClientIP != "127.0.0.1" || confirmed.Amount != "1000.00" ||
		!strings.HasPrefix(confirmed.Reference, "DEP-") || confirmed.Summary != "Confirmed deposit "+confirmed.Reference {
		t.Errorf("confirmation: %+v", confirmed)
	}
	if r := kinds["account.deposit_rejected"]; r.Reason != "Nothing arrived" || !strings.HasPrefix(r.Reference, "DEP-") || r.Reference == confirmed.Reference {
		t.Errorf("rejection: %+v", r)
	}
	if w := kinds["account.fee_waived"]; w.ActorEmail != "ada@example.com" || w.ActorRole != "admin" || w.ClientIP != "203.0.113.9" ||
		w.Reason != "Goodwill" || w.Amount != "1.00" || !strings.HasPrefix(w.Reference, "WDR-") {
		t.Errorf("waiver: %+v", w)
	}
	for _, k := range []string{"kyc.approved", "account.investment_activated", "account.withdrawal_approved", "account.adjustment_posted"} {
		if _, ok := kinds[k]; !ok {
			t.Errorf("no %s in the log: %v", k, log.Entries)
		}
	}
	for k := range kinds {
		if k == "account.deposit_requested" || k == "account.withdrawal_requested" {
			t.Errorf("the investor's own request %s is in the log", k)
		}
	}

	// Filters: by actor (id or e-mail), target, kind and time, and pages that join up.
	if l := auditLog(t, admin, "?actor=ADA@example.com"); len(l.Entries) != 2 {
		t.Errorf("by the admin's e-mail: %d entries, want 2", len(l.Entries))
	}
	if l := auditLog(t, admin, "?actor="+adminUser.ID+"&kind=account.adjustment_posted"); len(l.Entries) != 1 || l.Entries[0].Reason != "Late payout" {
		t.Errorf("by actor and kind: %+v", l.Entries)
	}
	if l := auditLog(t, admin, "?target=ivy@example.com"); len(l.Entries) != len(log.Entries) {
		t.Errorf("by target: %d entries, want %d", len(l.Entries), len(log.Entries))
	}
	future := url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	if l := auditLog(t, admin, "?from="+future); len(l.Entries) != 0 {
		t.Errorf("from the future: %+v", l.Entries)
	}
	if l := auditLog(t, admin, "?to="+future); len(l.Entries) != len(log.Entries) {
		t.Errorf("until the future: %d entries", len(l.Entries))
	}
	var paged []auditEntryJSON
	for q := "?limit=2"; ; {
		page := auditLog(t, admin, q)
		paged = append(paged, page.Entries...)
		if page.Next == nil {
			break
		}
		q = "?limit=2&before=" + *page.Next
	}
	if len(paged) != len(log.Entries) || paged[0].Position != log.Entries[0].Position {
		t.Errorf("pages of 2 give %d entries, want %d", len(paged), len(log.Entries))
	}
	expect(t, admin.do(http.MethodGet, "/api/audit/log?before=nope", nil), http.StatusBadRequest)
	expect(t, admin.do(http.MethodGet, "/api/audit/log?before=12abc", nil), http.StatusBadRequest)
	expect(t, admin.do(http.MethodGet, "/api/audit/log?limit=0", nil), http.StatusBadRequest)
	expect(t, admin.do(http.MethodGet, "/api/audit/log?from=yesterday", nil), http.StatusBadRequest)

	// The CSV: the same entries with the same filters.
	res := admin.do(http.MethodGet, "/api/audit/log.csv?actor="+adminUser.ID, nil)
	expect(t, res, http.StatusOK)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") || !strings.Contains(res.header.Get("Content-Disposition"), "attachment") {
		t.Errorf("csv headers: %v", res.header)
	}
	rows, err := csv.NewReader(strings.NewReader(string(res.body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0][0] != "Time (UTC)" || rows[1][2] != "ada@example.com" || rows[1][11] != "Late payout" || rows[1][12] != "203.0.113.9" {
		t.Errorf("csv: %q", rows)
	}

	// The event browser: the account's stream with its metadata, as stored.
	res = admin.do(http.MethodGet, "/api/audit/events?stream="+account.Stream(ivyID), nil)
	expect(t, res, http.StatusOK)
	page := decodeJSON[struct {
		Events []struct {
			Position int64          `json:"position"`
			Version  int64          `json:"version"`
			Type     string         `json:"type"`
			Data     map[string]any `json:"data"`
			Metadata struct {
				ActorID, ActorRole, ClientIP, CorrelationID string
			} `json:"metadata"`
		} `json:"events"`
	}](t, res)
	found := false
	for i, e := range page.Events {
		if e.Version != int64(i+1) || e.Position == 0 {
			t.Errorf("event %d: version %d position %d", i, e.Version, e.Position)
		}
		if e.Type == "account.fee_waived" {
			found = true
			if e.Metadata.ActorID != adminUser.ID || e.Metadata.ActorRole != "admin" || e.Metadata.CorrelationID != "corr-203.0.113.9" ||
				!strings.HasPrefix(e.Metadata.ClientIP, eventstore.SealedPrefix) || e.Data["reason"] != "Goodwill" {
				t.Errorf("waiver as stored: %+v", e)
			}
		}
	}
	if !found {
		t.Errorf("no waiver in the stream: %+v", page.Events)
	}
	// A user stream's personal fields stay sealed.
	res = admin.do(http.MethodGet, "/api/audit/events?stream=user-"+ivyID+"&type=user.registered", nil)
	expect(t, res, http.StatusOK)
	if body := string(res.body); !strings.Contains(body, `"email":"`+eventstore.SealedPrefix) || strings.Contains(body, "ivy@example.com") {
		t.Errorf("a registration shows personal data: %s", body)
	}
	expect(t, admin.do(http.MethodGet, "/api/audit/events?stream=nodash", nil), http.StatusBadRequest)

	// The books: every account, debits equal credits, the reconciliation is zero.
	b := books(t, admin, "")
	// 1000 deposited; 100 withdrawn of which 98 paid out and 2 fee, 1 of it waived; 12.50 corrected.
	if !b.Balanced || b.TotalDebit != b.TotalCredit || b.Reconciliation.Difference != "0.00" || len(b.Unbalanced) != 0 || len(b.WentNegative) != 0 ||
		b.Reconciliation.DepositsReceived != "1000.00" || b.Reconciliation.PayoutsSent != "98.00" ||
		b.Reconciliation.InvestorLiabilities != "913.50" || b.Reconciliation.PlatformEquity != "-11.50" ||
		b.balance("platform:fee_income") != "1.00" || b.balance("user:"+ivyID+":invested") != "300.00" ||
		b.balance("user:"+ivyID+":available") != "613.50" || b.Users.Invested != "300.00" {
		t.Fatalf("books: %+v", b)
	}
	// At the earlier position: the earlier figures.
	again := books(t, admin, fmt.Sprintf("?position=%d", early.Position))
	if again.Position != early.Position || again.Reconciliation != early.Reconciliation || again.Events != early.Events ||
		again.balance("user:"+ivyID+":available") != "1000.00" {
		t.Errorf("books at %d: %+v, want %+v", early.Position, again, early)
	}
	expect(t, admin.do(http.MethodGet, "/api/audit/books?position=-1", nil), http.StatusBadRequest)

	// Only admins.
	for _, c := range []*client{a.staff, investor} {
		for _, p := range []string{"/api/audit/log", "/api/audit/log.csv", "/api/audit/events", "/api/audit/books"} {
			expect(t, c.do(http.MethodGet, p, nil), http.StatusForbidden)
		}
	}
	expect(t, a.browser(t).do(http.MethodGet, "/api/audit/books", nil), http.StatusUnauthorized)
}

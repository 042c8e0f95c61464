package api_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/money"
	"clearvest/domain/clock"
	"clearvest/eventstore"
	"clearvest/platform/auth/ratelimit"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// newLimitedMoneyApp is newMoneyApp with the request limits on, counted on limits (a clock of
// their own, so a test can move past a window without expiring anyone's session).
func newLimitedMoneyApp(t *testing.T, limits clock.Clock) *app {
	t.Helper()
	env := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		return []projections.Projection{ledger.New(codec), wallets.New(codec), withdrawals.New(codec), history.New(codec)}
	}, money.Migrations))
	svc := newMoneyService(t, env, env.Commands, nil, env.Clock)
	return serve(t, env, func(d *api.Deps) { d.Money = svc; d.RequestLimiter = ratelimit.New(env.Pool, limits) })
}

func TestMoneyRequestsAreLimitedPerUserWithRetryAfter(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	a := newLimitedMoneyApp(t, clk)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	other, _ := a.member(t, "oscar@example.com", "subscriber")
	deposit := map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}

	// 30 money requests in ten minutes are allowed, whatever their answer: five deposits are
	// accepted, the quota refuses the rest, and every one counts.
	for i := range 30 {
		res := investor.do(http.MethodPost, "/api/payments/create", deposit)
		if want := map[bool]int{true: http.StatusOK, false: http.StatusUnprocessableEntity}[i < 5]; res.status != want {
			t.Fatalf("request %d: status %d, want %d; body %s", i+1, res.status, want, res.body)
		}
	}
	clk.Advance(4 * time.Minute)
	// The 31st is refused, a withdrawal as much as a deposit (they are counted together), with
	// the time left in the window.
	for _, res := range []response{
		investor.do(http.MethodPost, "/api/payments/create", deposit),
		investor.do(http.MethodPost, "/api/withDraw/create", map[string]string{"amount": "50", "network": "TRC20", "walletAddress": testTRONAddress}),
	} {
		expectMessage(t, res, http.StatusTooManyRequests, "Too many money requests in a short time. Please try again in 6 minutes.")
		if s, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || s < 300 || s > 360 {
			t.Fatalf("Retry-After %q, want the rest of the window", res.header.Get("Retry-After"))
		}
	}
	// Another user at the same address is not held back by this one.
	createUSDT(t, other, "100", "")
	// After the window the investor may ask again.
	clk.Advance(6 * time.Minute)
	expect(t, investor.do(http.MethodPost, "/api/payments/create", deposit), http.StatusUnprocessableEntity)
}

func TestMoneyRequestsAreLimitedPerClientAddress(t *testing.T) {
	t.Parallel()
	a := newLimitedMoneyApp(t, clock.NewManual(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)))
	deposit := map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}
	// Ten users at one address use up its 300 money requests in ten minutes.
	for u := range 10 {
		c, _ := a.member(t, fmt.Sprintf("user%d@example.com", u), "subscriber")
		for i := range 30 {
			if res := c.do(http.MethodPost, "/api/payments/create", deposit); res.status == http.StatusTooManyRequests {
				t.Fatalf("user %d, request %d: refused before the address's limit: %s", u, i+1, res.body)
			}
		}
	}
	// An eleventh, who has asked nothing yet, is refused at that address.
	late, _ := a.member(t, "late@example.com", "subscriber")
	res := late.do(http.MethodPost, "/api/payments/create", deposit)
	expectMessage(t, res, http.StatusTooManyRequests, "Too many money requests in a short time. Please try again in 10 minutes.")
	if res.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

func TestASixthOpenDepositIsRefusedUntilStaffDecideOne(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	other, _ := a.member(t, "oscar@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")

	var open []depositJSON
	for range 5 {
		open = append(open, createUSDT(t, investor, "100", ""))
	}
	const refused = "You have 5 deposits waiting for confirmation. Please wait until our team has confirmed or rejected one of them before declaring another."
	sixth := map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20", "txHash": testHash("sixth")}
	expectMessage(t, investor.do(http.MethodPost, "/api/payments/create", sixth), http.StatusUnprocessableEntity, refused)

	// The refusal left nothing behind: the hash it carried is still free, and staff see five.
	a.CatchUp(t)
	staff.position = max(staff.position, investor.position)
	res := staff.do(http.MethodGet, "/api/payments/pending-deposit", nil)
	expect(t, res, http.StatusOK)
	if q := decodeJSON[depositQueueJSON](t, res); len(q.Deposits) != 5 {
		t.Fatalf("staff see %d deposits waiting, want 5", len(q.Deposits))
	}
	// Another investor's quota is their own.
	createUSDT(t, other, "100", "")

	// Once staff decide one, there is room for one more, and only one.
	expect(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": open[0].TransactionID, "notes": "Nothing arrived"}), http.StatusOK)
	investor.position = max(investor.position, staff.position)
	createUSDT(t, investor, "100", testHash("sixth"))
	expectMessage(t, investor.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}),
		http.StatusUnprocessableEntity, refused)
}

func TestRacingDepositRequestsDoNotPassTheQuota(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	for range 3 {
		createUSDT(t, investor, "100", "")
	}
	// Six requests race for the last two places: exactly two are accepted.
	statuses := make([]int, 6)
	var wg sync.WaitGroup
	for i := range statuses {
		// One copy of the signed-in browser per request, so that each keeps its own position.
		c := *investor
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = c.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}).status
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusUnprocessableEntity:
			refused++
		}
	}
	if ok != 2 || refused != 4 {
		t.Fatalf("statuses %v: %d accepted and %d refused, want 2 and 4", statuses, ok, refused)
	}
}

type depositPageJSON struct {
	Deposits []struct {
		Deposit depositJSON `json:"deposit"`
	} `json:"deposits"`
}

func TestTheDepositQueuePagesByKeyWhileMoreArrive(t *testing.T) {
	t.Parallel()
	// No open deposit quota here: a few investors fill the queue quickly.
	a := newMoneyAppQuota(t, nil, -1)
	staff, _ := a.member(t, "sam@example.com", "author")
	var investors []*client
	for i := range 3 {
		c, _ := a.member(t, fmt.Sprintf("inv%d@example.com", i), "subscriber")
		investors = append(investors, c)
	}
	create := func(n int) []string {
		var ids []string
		for i := range n {
			c := investors[i%len(investors)]
			ids = append(ids, createUSDT(t, c, strconv.Itoa(10+i%90), "").TransactionID)
			staff.position = max(staff.position, c.position)
		}
		return ids
	}
	// One more than the default page, so that the default page is seen to hold 50.
	original := create(51)
	depositIDs := func(r response) []string {
		var ids []string
		for _, d := range decodeJSON[depositPageJSON](t, r).Deposits {
			ids = append(ids, d.Deposit.TransactionID)
		}
		return ids
	}

	// While staff page through, investors keep declaring deposits and staff decide one they
	// already saw: the pages after are not shifted by either.
	var added []string
	order, last, pages := walkQueue(t, staff, "/api/payments/pending-deposit", 20, depositIDs, func(seen []string) {
		added = append(added, create(7)...)
		expect(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": seen[len(seen)-1], "notes": "Nothing arrived"}), http.StatusOK)
	})
	if last.Total != 51+len(added)-(pages-1) {
		t.Fatalf("last page: total %d, want %d", last.Total, 51+len(added)-(pages-1))
	}
	// Every original deposit was reachable, in the order they were declared, and so was every
	// deposit declared while paging (after them: they are newer).
	want := append(append([]string{}, original...), added...)
	if pages < 3 || !slices.Equal(order, want) {
		t.Fatalf("%d pages showed %v, want %v", pages, order, want)
	}

	// The default page is 50; a page size outside 1..100 or a cursor the server did not make is a 400.
	res := staff.do(http.MethodGet, "/api/payments/pending-deposit", nil)
	expect(t, res, http.StatusOK)
	if p := decodeJSON[depositPageJSON](t, res); len(p.Deposits) != 50 {
		t.Fatalf("the default page has %d", len(p.Deposits))
	}
	expectQueueRefusals(t, staff, "/api/payments/pending-deposit")
	// Investors do not see the queue.
	expect(t, investors[0].do(http.MethodGet, "/api/payments/pending-deposit", nil), http.StatusForbidden)
}

func TestTheWithdrawalQueuePagesByKeyWhileMoreArrive(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, investor, staff, "5000")
	clearedToWithdraw(t, a, investor, staff)
	body := withdrawalBody(t, investor, "20", "TRC20", testTRONAddress)
	create := func(n int) []string {
		var ids []string
		for range n {
			res := investor.do(http.MethodPost, "/api/withDraw/create", body)
			expect(t, res, http.StatusOK)
			ids = append(ids, decodeJSON[withdrawalJSON](t, res).ID)
		}
		staff.position = max(staff.position, investor.position)
		return ids
	}
	want := create(12)
	order, last, pages := walkQueue(t, staff, "/api/withDraw/pending", 5, func(r response) []string {
		var ids []string
		for _, w := range decodeJSON[struct {
			Withdrawals []struct {
				Withdrawal withdrawalJSON `json:"withdrawal"`
			} `json:"withdrawals"`
		}](t, r).Withdrawals {
			ids = append(ids, w.Withdrawal.ID)
		}
		return ids
	}, func(seen []string) {
		// One more is requested and the last one seen is decided before the next page.
		want = append(want, create(1)...)
		expect(t, staff.do(http.MethodPut, "/api/withDraw/reject/"+seen[len(seen)-1], map[string]string{"reason": "Address under review"}), http.StatusOK)
	})
	if !slices.Equal(order, want) {
		t.Fatalf("%d pages showed %v, want %v (oldest first)", pages, order, want)
	}
	if last.Total != 12 {
		t.Fatalf("last page: total %d, want 12 (12 + %d requested - %d decided)", last.Total, pages-1, pages-1)
	}
	expectQueueRefusals(t, staff, "/api/withDraw/pending")
}

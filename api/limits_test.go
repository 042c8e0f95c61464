package api_test

import (
	"fmt"
	"net/http"
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
	Total      int     `json:"total"`
	NextCursor *string `json:"nextCursor"`
}

func TestTheDepositQueuePagesThroughSixHundredDepositsWhileMoreArrive(t *testing.T) {
	t.Parallel()
	// No open deposit quota here: six investors fill the queue quickly.
	a := newMoneyAppQuota(t, nil, -1)
	staff, _ := a.member(t, "sam@example.com", "author")
	var investors []*client
	for i := range 6 {
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
	original := create(600)
	page := func(cursor string, limit int) depositPageJSON {
		t.Helper()
		path := "/api/payments/pending-deposit?limit=" + strconv.Itoa(limit)
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := staff.do(http.MethodGet, path, nil)
		expect(t, res, http.StatusOK)
		return decodeJSON[depositPageJSON](t, res)
	}

	first := page("", 100)
	if first.Total != 600 || len(first.Deposits) != 100 || first.NextCursor == nil {
		t.Fatalf("first page: total %d, %d deposits, next %v", first.Total, len(first.Deposits), first.NextCursor)
	}
	seen := map[string]int{}
	var order []string
	add := func(p depositPageJSON) {
		for _, d := range p.Deposits {
			seen[d.Deposit.TransactionID]++
			order = append(order, d.Deposit.TransactionID)
		}
	}
	add(first)
	// While staff page through, investors keep declaring deposits and staff decide some they
	// already saw: the pages after are not shifted by either.
	var added []string
	cursor := *first.NextCursor
	pages := 1
	for {
		added = append(added, create(7)...)
		decided := order[len(order)-1]
		expect(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": decided, "notes": "Nothing arrived"}), http.StatusOK)
		p := page(cursor, 100)
		pages++
		add(p)
		if p.NextCursor == nil {
			if p.Total != 600+len(added)-pages+1 {
				t.Fatalf("last page: total %d, want %d", p.Total, 600+len(added)-pages+1)
			}
			break
		}
		cursor = *p.NextCursor
		if pages > 20 {
			t.Fatal("the pages do not end")
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s shown %d times", id, n)
		}
	}
	// Every original deposit was reachable, in the order they were declared, and so was every
	// deposit declared while paging (after them: they are newer).
	want := append(append([]string{}, original...), added...)
	if len(order) != len(want) {
		t.Fatalf("%d deposits over %d pages, want %d", len(order), pages, len(want))
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("item %d is %s, want %s (oldest first)", i, order[i], want[i])
		}
	}

	// The default page is 50; a page size outside 1..100 or a cursor the server did not make is a 400.
	if p := page("", 50); len(p.Deposits) != 50 {
		t.Fatalf("a page of 50 has %d", len(p.Deposits))
	}
	res := staff.do(http.MethodGet, "/api/payments/pending-deposit", nil)
	expect(t, res, http.StatusOK)
	if p := decodeJSON[depositPageJSON](t, res); len(p.Deposits) != 50 {
		t.Fatalf("the default page has %d", len(p.Deposits))
	}
	for _, q := range []string{"limit=0", "limit=101", "cursor=not-a-cursor"} {
		expectMessage(t, staff.do(http.MethodGet, "/api/payments/pending-deposit?"+q, nil), http.StatusBadRequest,
			map[bool]string{true: "This page of the queue cannot be found. Please reload the queue from the start.", false: "A page holds from 1 to 100 items."}[q == "cursor=not-a-cursor"])
	}
	// Investors do not see the queue.
	expect(t, investors[0].do(http.MethodGet, "/api/payments/pending-deposit", nil), http.StatusForbidden)
}

type withdrawalPageJSON struct {
	Withdrawals []struct {
		Withdrawal withdrawalJSON `json:"withdrawal"`
	} `json:"withdrawals"`
	Total      int     `json:"total"`
	NextCursor *string `json:"nextCursor"`
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
	seen := map[string]bool{}
	var order []string
	cursor, pages := "", 0
	for {
		path := "/api/withDraw/pending?limit=5"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := staff.do(http.MethodGet, path, nil)
		expect(t, res, http.StatusOK)
		p := decodeJSON[withdrawalPageJSON](t, res)
		pages++
		if pages == 1 && p.Total != 12 {
			t.Fatalf("total %d, want 12", p.Total)
		}
		for _, w := range p.Withdrawals {
			if seen[w.Withdrawal.ID] {
				t.Fatalf("%s shown twice", w.Withdrawal.ID)
			}
			seen[w.Withdrawal.ID] = true
			order = append(order, w.Withdrawal.ID)
		}
		if p.NextCursor == nil || pages > 10 {
			break
		}
		cursor = *p.NextCursor
		// One more is requested and the last one seen is decided before the next page.
		want = append(want, create(1)...)
		expect(t, staff.do(http.MethodPut, "/api/withDraw/reject/"+order[len(order)-1], map[string]string{"reason": "Address under review"}), http.StatusOK)
	}
	if len(order) != len(want) {
		t.Fatalf("%d withdrawals over %d pages, want %d", len(order), pages, len(want))
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("item %d is %s, want %s (oldest first)", i, order[i], want[i])
		}
	}
	expect(t, staff.do(http.MethodGet, "/api/withDraw/pending?limit=101", nil), http.StatusBadRequest)
}

package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/platform/config"
	"clearvest/projections/ledger"
)

// moneyRequest is one money command of the mixed workload, with the key it is sent under.
type moneyRequest struct {
	kind   string // create, confirm, reject (deposits); withdraw, wapprove, wreject (withdrawals)
	user   int    // index of the investor (create) or of the deposit's owner (decisions)
	token  string
	method string
	path   string
	body   map[string]string
	key    string
}

// withdrawalIDOf is the withdrawal id at the end of a decision's path.
func withdrawalIDOf(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// sendKeyed sends r with its Idempotency-Key over a shared client (safe for goroutines, unlike
// the test client, which tracks one caller's position).
func sendKeyed(t *testing.T, a *app, hc *http.Client, r moneyRequest) response {
	b, _ := json.Marshal(r.body)
	req, err := http.NewRequest(r.method, a.srv.URL+r.path, bytes.NewReader(b))
	if err != nil {
		t.Error(err)
		return response{}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.token)
	req.Header.Set("Idempotency-Key", r.key)
	res, err := hc.Do(req)
	if err != nil {
		t.Error(err)
		return response{}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: body}
}

// TestConcurrentMoneyCommandsKeepTheBooks sends 1,000 money commands at once over HTTP, from 50
// investors and two staff members: deposit requests, confirmations and rejections of random
// pending deposits, withdrawal requests (some refused for want of balance) and approvals and
// rejections of random pending withdrawals (two staff members sometimes decide the same one),
// a fifth of them sent again with the same Idempotency-Key (at the same moment, or after the
// first answer). Then nothing went missing or doubled: every accepted command left exactly one
// event and every replay none, each replay that was answered got the first answer, the books
// balance, and each investor's figures equal a fresh replay of their stream and what was
// confirmed less what they asked to withdraw and was not refused.
func TestConcurrentMoneyCommandsKeepTheBooks(t *testing.T) {
	t.Parallel()
	const investors, commands, workers = 50, 1000, 16
	a := newMoneyApp(t)
	_, sam := a.member(t, "sam@example.com", "author")
	_, ada := a.member(t, "ada@example.com", "admin")
	staff := []string{sam.Token, ada.Token}
	tokens := make([]string, investors)
	ids := make([]string, investors)
	samClient := a.apiClient(t, sam.Token)
	for i := range tokens {
		tokens[i] = verifiedInvestor(t, a, i)
		clearedToWithdraw(t, a, a.apiClient(t, tokens[i]), samClient)
	}
	schedule, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers * 2}}
	t.Cleanup(hc.CloseIdleConnections)
	for i, tok := range tokens {
		req, _ := http.NewRequest(http.MethodGet, a.srv.URL+"/api/users/getUser", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		r, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var u struct {
			ID string `json:"_id"`
		}
		err = json.NewDecoder(r.Body).Decode(&u)
		r.Body.Close()
		if err != nil || u.ID == "" {
			t.Fatalf("getUser: %v", err)
		}
		ids[i] = u.ID
	}

	var (
		mu        sync.Mutex
		pending   []depositJSON // created, maybe not decided yet
		owner     = map[string]int{}
		accepted  = map[string]int{} // kind → commands answered 200 (first answers only)
		confirmed = make([]money.Money, investors)
		decided   = map[string]string{} // transaction or withdrawal id → the decision that won
		replays   int
		refused   int                // withdrawals refused for want of balance (422)
		waiting   []withdrawalJSON   // withdrawals requested, maybe not decided yet
		wOwner    = map[string]int{} // withdrawal id → investor
		withdrawn = make([]money.Money, investors)
	)
	rng := rand.New(rand.NewPCG(1, 2))
	var rngMu sync.Mutex
	pick := func(n int) int {
		rngMu.Lock()
		defer rngMu.Unlock()
		return rng.IntN(n)
	}

	// next builds the i-th command: a deposit request, a withdrawal request, or a staff
	// decision on a random pending deposit or withdrawal (a request when none is pending).
	next := func(i int) moneyRequest {
		key := fmt.Sprintf("cmd-%d", i)
		mu.Lock()
		nd, nw := len(pending), len(waiting)
		mu.Unlock()
		switch roll := pick(10); {
		case roll < 2 && nw > 0:
			mu.Lock()
			w := waiting[pick(len(waiting))]
			u := wOwner[w.ID]
			mu.Unlock()
			s := staff[pick(len(staff))]
			if pick(3) == 0 {
				return moneyRequest{kind: "wreject", user: u, token: s, method: http.MethodPut, path: "/api/withDraw/reject/" + w.ID,
					body: map[string]string{"reason": "Address under review"}, key: key}
			}
			return moneyRequest{kind: "wapprove", user: u, token: s, method: http.MethodPut, path: "/api/withDraw/approve/" + w.ID,
				body: map[string]string{"txHash": testHash("paid-" + w.ID)}, key: key}
		case roll < 4:
			u := pick(investors)
			amount := fmt.Sprintf("%d.%02d", 10+pick(200), pick(100))
			q, err := schedule.Quote(money.MustParse(amount))
			if err != nil {
				panic(err)
			}
			return moneyRequest{kind: "withdraw", user: u, token: tokens[u], method: http.MethodPost, path: "/api/withDraw/create",
				body: map[string]string{"amount": amount, "walletAddress": testTRONAddress, "network": "TRC20", "fee": q.Fee.String()},
				key:  key}
		case roll < 7 && nd > 0:
			mu.Lock()
			d := pending[pick(len(pending))]
			u := owner[d.TransactionID]
			mu.Unlock()
			s := staff[pick(len(staff))]
			if pick(4) == 0 {
				return moneyRequest{kind: "reject", user: u, token: s, method: http.MethodPatch, path: "/api/payments/rejectPayment",
					body: map[string]string{"transactionId": d.TransactionID, "notes": "Nothing arrived"}, key: key}
			}
			return moneyRequest{kind: "confirm", user: u, token: s, method: http.MethodPatch, path: "/api/payments/confirmPayment",
				body: map[string]string{"transactionId": d.TransactionID, "amount": d.Amount}, key: key}
		default:
			u := pick(investors)
			return moneyRequest{kind: "create", user: u, token: tokens[u], method: http.MethodPost, path: "/api/payments/create",
				// At least the minimum deposit ($10.00 by default).
				body: map[string]string{"amount": fmt.Sprintf("%d.%02d", 10+pick(500), pick(100)), "asset": "USDT", "network": "TRC20"},
				key:  key}
		}
	}

	// record counts a first answer; a decision that lost to another is a 409 and counts nothing.
	record := func(r moneyRequest, res response) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case res.status == http.StatusOK:
			accepted[r.kind]++
		case res.status == http.StatusConflict && r.kind != "create" && r.kind != "withdraw":
			return
		case res.status == http.StatusUnprocessableEntity && r.kind == "withdraw" && bytes.Contains(res.body, []byte("Insufficient balance")):
			refused++
			return
		case res.status == http.StatusUnprocessableEntity && r.kind == "create" && bytes.Contains(res.body, []byte("waiting for confirmation")):
			// The investor's open deposit quota is full until staff decide one.
			return
		default:
			t.Errorf("%s %s: status %d: %s", r.method, r.path, res.status, res.body)
			return
		}
		switch r.kind {
		case "create":
			var d depositJSON
			if err := json.Unmarshal(res.body, &d); err != nil || d.TransactionID == "" {
				t.Errorf("create: %s", res.body)
				return
			}
			pending = append(pending, d)
			owner[d.TransactionID] = r.user
		case "withdraw":
			var w withdrawalJSON
			if err := json.Unmarshal(res.body, &w); err != nil || w.ID == "" {
				t.Errorf("withdraw: %s", res.body)
				return
			}
			waiting = append(waiting, w)
			wOwner[w.ID] = r.user
			withdrawn[r.user] = withdrawn[r.user].Add(money.MustParse(w.Amount))
		case "wapprove", "wreject":
			id := withdrawalIDOf(r.path)
			if prev, ok := decided[id]; ok {
				t.Errorf("withdrawal %s decided twice: %s, then %s", id, prev, r.kind)
			}
			decided[id] = r.kind
			for j, w := range waiting {
				if w.ID == id {
					if r.kind == "wreject" {
						withdrawn[r.user] = withdrawn[r.user].Sub(money.MustParse(w.Amount))
					}
					waiting = append(waiting[:j], waiting[j+1:]...)
					break
				}
			}
		default:
			id := r.body["transactionId"]
			if prev, ok := decided[id]; ok {
				t.Errorf("deposit %s decided twice: %s, then %s", id, prev, r.kind)
			}
			decided[id] = r.kind
			for j, d := range pending {
				if d.TransactionID == id {
					pending = append(pending[:j], pending[j+1:]...)
					break
				}
			}
			if r.kind == "confirm" {
				m, err := money.Parse(r.body["amount"])
				if err != nil {
					t.Error(err)
				}
				confirmed[r.user] = confirmed[r.user].Add(m)
			}
		}
	}

	// inProgress is the answer to a request sent while another with its key still runs.
	inProgress := func(res response) bool {
		return res.status == http.StatusConflict && bytes.Contains(res.body, []byte("still being processed"))
	}
	// A replay of an answered key gets the same answer again, marked as a hit, and runs nothing.
	checkReplay := func(r moneyRequest, first, again response) {
		mu.Lock()
		replays++
		mu.Unlock()
		if again.status != first.status || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotency-Hit") != "true" {
			t.Errorf("replay of %s %s (%s): %d %s (hit %q), first %d %s", r.method, r.path, r.key, again.status, again.body,
				again.header.Get("Idempotency-Hit"), first.status, first.body)
		}
	}

	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range work {
				r := next(i)
				switch pick(10) {
				case 0: // the same request twice at once (a client retrying a timed-out request)
					var x, y response
					var both sync.WaitGroup
					both.Go(func() { x = sendKeyed(t, a, hc, r) })
					both.Go(func() { y = sendKeyed(t, a, hc, r) })
					both.Wait()
					// One of them ran; the other was told the key is busy, or (if it came in
					// after the answer was stored) got that answer again.
					if y.header.Get("Idempotency-Hit") == "true" || inProgress(y) {
						x, y = y, x
					}
					ran, other := y, x
					if inProgress(ran) || ran.header.Get("Idempotency-Hit") == "true" {
						t.Errorf("%s sent twice at once: neither ran: %d %s / %d %s", r.key, x.status, x.body, y.status, y.body)
						continue
					}
					record(r, ran)
					if inProgress(other) {
						mu.Lock()
						replays++
						mu.Unlock()
					} else {
						checkReplay(r, ran, other)
					}
				case 1: // again after the answer
					first := sendKeyed(t, a, hc, r)
					record(r, first)
					checkReplay(r, first, sendKeyed(t, a, hc, r))
				default:
					record(r, sendKeyed(t, a, hc, r))
				}
			}
		})
	}
	for i := range commands {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("accepted %v, %d replays, %d withdrawals refused for want of balance, %d deposits and %d withdrawals still pending",
		accepted, replays, refused, len(pending), len(waiting))
	if accepted["confirm"] == 0 || accepted["reject"] == 0 || accepted["withdraw"] == 0 || accepted["wapprove"] == 0 ||
		accepted["wreject"] == 0 || replays == 0 {
		t.Fatalf("the workload did not mix: accepted %v, %d replays", accepted, replays)
	}

	// No lost or duplicated event: one per accepted command, none for a replay or a refusal.
	types := map[string]int{}
	rows, err := a.Pool.Query(context.Background(), `SELECT type, count(*) FROM events WHERE stream_id LIKE 'account-%' GROUP BY type`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var typ string
		var n int
		if err := rows.Scan(&typ, &n); err != nil {
			t.Fatal(err)
		}
		types[typ] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"account.deposit_requested": accepted["create"], "account.deposit_confirmed": accepted["confirm"],
		"account.deposit_rejected": accepted["reject"], "account.withdrawal_requested": accepted["withdraw"],
		"account.withdrawal_approved": accepted["wapprove"], "account.withdrawal_rejected": accepted["wreject"]}
	for typ, n := range want {
		if types[typ] != n {
			t.Errorf("%d %s events, want %d (one per accepted command)", types[typ], typ, n)
		}
	}
	if len(types) != len(want) {
		t.Errorf("event types %v, want only %v", types, want)
	}
	if n := a.count(t, `SELECT count(*) FROM money_deposit_refs`); n != accepted["create"] {
		t.Errorf("%d deposit references, want %d", n, accepted["create"])
	}

	// The books, once the projections have caught up.
	a.CatchUp(t)
	ctx := context.Background()
	tb, err := ledger.ReadTrialBalance(ctx, a.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if !tb.Balanced() {
		t.Errorf("trial balance: total %s, unbalanced events %v", tb.Total, tb.Unbalanced)
	}
	if neg, err := ledger.WentNegative(ctx, a.Pool); err != nil || len(neg) > 0 {
		t.Errorf("accounts below zero: %v %v", neg, err)
	}
	for i, id := range ids {
		got, err := ledger.Figures(ctx, a.Pool, id)
		if err != nil && !errors.Is(err, ledger.ErrNotFound) {
			t.Fatal(err)
		}
		acc := account.New(id)
		envs, err := a.Store.ReadStream(ctx, eventstore.StreamID(account.Stream(id)), 1, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range envs {
			ev, err := a.Codec.Decode(env)
			if err != nil {
				t.Fatal(err)
			}
			acc.Apply(ev)
		}
		if want := acc.Balances(); !got.Equal(want) {
			t.Errorf("investor %d: figures %+v, replay %+v", i, got, want)
		}
		if want := confirmed[i].Sub(withdrawn[i]); got.Available.String() != want.String() {
			t.Errorf("investor %d: available %s, want %s (confirmed %s less withdrawals asked for and not refused %s)",
				i, got.Available, want, confirmed[i], withdrawn[i])
		}
	}
}

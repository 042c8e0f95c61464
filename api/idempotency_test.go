package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/api"
	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/proposal"
	"clearvest/eventstore/postgres"
)

// withKey sends one request with an Idempotency-Key.
func (c *client) withKey(key, method, path string, body any) response {
	c.t.Helper()
	c.header.Set("Idempotency-Key", key)
	defer c.header.Del("Idempotency-Key")
	return c.do(method, path, body)
}

func (a *app) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := a.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIdempotencyKeyReplaysTheFirstAnswer(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b, u := a.member(t, "ada@example.com", "subscriber")
	profileEvents := func() int {
		return a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'user.profile_updated'`, "user-"+u.ID)
	}

	first := b.withKey("k-1", http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "first"})
	expect(t, first, http.StatusOK)
	if first.header.Get("Idempotency-Hit") != "" || first.header.Get("X-Clearvest-Position") == "" {
		t.Fatalf("first answer headers: %v", first.header)
	}
	again := b.withKey("k-1", http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "first"})
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) ||
		again.header.Get("X-Clearvest-Position") != first.header.Get("X-Clearvest-Position") ||
		again.header.Get("Content-Type") != first.header.Get("Content-Type") {
		t.Fatalf("repeat = %v %s, want the first answer %v %s with Idempotency-Hit", again.header, again.body, first.header, first.body)
	}
	if n := profileEvents(); n != 1 {
		t.Fatalf("%d profile events after a repeated request, want 1", n)
	}

	other := b.withKey("k-1", http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "second"})
	expect(t, other, http.StatusUnprocessableEntity)
	if e := decodeError(t, other); e.Message != "This Idempotency-Key was already used with a different request." {
		t.Errorf("message = %q", e.Message)
	}
	if n := profileEvents(); n != 1 {
		t.Fatalf("%d profile events after a refused reuse, want 1", n)
	}

	// Keys are per caller: another user's request with the same key is a request of its own.
	c, v := a.member(t, "grace@example.com", "subscriber")
	theirs := c.withKey("k-1", http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "first"})
	expect(t, theirs, http.StatusOK)
	if theirs.header.Get("Idempotency-Hit") != "" || decodeUser(t, theirs).ID != v.ID {
		t.Errorf("another user's key answered with %v %s", theirs.header, theirs.body)
	}

	// A request without a key is never remembered.
	expect(t, b.do(http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "third"}), http.StatusOK)
	if n := profileEvents(); n != 2 {
		t.Errorf("%d profile events, want 2", n)
	}
}

// A repeated sign-in gets the first sign-in's answer, cookies included, and opens no second
// session; what is stored for it is sealed (see the idempotency package's tests).
func TestIdempotencyKeyOnASignIn(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b, u := a.member(t, "ada@example.com", "subscriber")
	sessions := func() int { return a.count(t, `SELECT count(*) FROM sessions WHERE user_id = $1`, u.ID) }
	before := sessions()
	login := map[string]string{"email": "ada@example.com", "password": testPassword}
	first := b.withKey("login-1", http.MethodPost, "/api/users/login", login)
	expect(t, first, http.StatusOK)
	again := b.withKey("login-1", http.MethodPost, "/api/users/login", login)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || decodeUser(t, again).Token != decodeUser(t, first).Token ||
		len(again.header.Values("Set-Cookie")) != len(first.header.Values("Set-Cookie")) {
		t.Fatalf("repeat = %v, want the first answer's token and cookies", again.header)
	}
	if n := sessions(); n != before+1 {
		t.Errorf("%d sessions after two identical sign-ins, want %d", n, before+1)
	}
}

// Two server processes share the keys through the database: a repeat sent to the other one
// while the first request runs is refused with 409, and once it has finished gets its answer.
func TestIdempotencyKeyAcrossTwoServers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	one := newApp(t)
	two := newAppWith(t, one, "development")
	_, admin := one.member(t, "admin@example.com", "admin")
	_, target := one.member(t, "ada@example.com", "subscriber")
	path := "/api/users/suspend/" + target.ID
	body := map[string]string{"reason": "testing"}

	// Hold the first request inside its transaction: suspending writes the principal row.
	hold, err := one.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx) //nolint:errcheck // released below
	if _, err := hold.Exec(ctx, `SELECT 1 FROM principals WHERE user_id = $1 FOR UPDATE`, target.ID); err != nil {
		t.Fatal(err)
	}
	done := make(chan response, 1)
	go func() { done <- one.apiClient(t, admin.Token).withKey("suspend-1", http.MethodPost, path, body) }()
	waitFor(t, "the first request to claim its key", func() bool {
		return one.count(t, `SELECT count(*) FROM idempotency_keys WHERE response IS NULL`) == 1
	})

	repeat := make(chan response, 1)
	go func() { repeat <- two.apiClient(t, admin.Token).withKey("suspend-1", http.MethodPost, path, body) }()
	var busy response
	select {
	case busy = <-repeat:
	case <-time.After(30 * time.Second):
		_ = hold.Rollback(ctx)
		t.Fatal("the repeat waited for the first request instead of answering at once")
	}
	expect(t, busy, http.StatusConflict)
	if e := decodeError(t, busy); e.Message == "" {
		t.Error("409 without a message")
	}
	if err := hold.Rollback(ctx); err != nil && err != pgx.ErrTxClosed {
		t.Fatal(err)
	}
	first := <-done
	expect(t, first, http.StatusOK)

	again := two.apiClient(t, admin.Token).withKey("suspend-1", http.MethodPost, path, body)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) {
		t.Fatalf("repeat on the other server = %v %s, want the first answer", again.header, again.body)
	}
	if n := one.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'user.suspended'`, "user-"+target.ID); n != 1 {
		t.Errorf("%d suspensions stored, want 1", n)
	}
}

// waitFor polls a condition until it holds, failing after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Kept answers may hold a user's profile and sign-in tokens, so closing the account deletes
// every answer about them: those of their own requests, and those of anonymous sign-ins that
// signed them in. Another user's kept answers stay.
func TestClosingAnAccountDeletesItsKeptAnswers(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	admin, _ := a.member(t, "admin@example.com", "admin")
	b, u := a.member(t, "leaving@example.com", "subscriber")
	c, _ := a.member(t, "staying@example.com", "subscriber")
	expect(t, b.withKey("profile", http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "mine"}), http.StatusOK)
	// A sign-in on another browser: anonymous until it succeeds.
	d := a.browser(t)
	expect(t, d.do(http.MethodPost, "/api/users/login", map[string]string{"email": "leaving@example.com", "password": testPassword}), http.StatusAccepted)
	code := a.LatestCode(t, "leaving@example.com", "sign-in code")
	expect(t, d.withKey("sign-in", http.MethodPost, "/api/users/loginWithCode/leaving@example.com", map[string]string{"loginCode": code}), http.StatusOK)
	expect(t, c.withKey("profile", http.MethodPatch, "/api/users/updateUser", map[string]string{"bio": "theirs"}), http.StatusOK)
	kept := func() int { return a.count(t, `SELECT count(*) FROM idempotency_keys WHERE owner = $1`, u.ID) }
	if n := kept(); n != 2 {
		t.Fatalf("%d kept answers about the user before closing, want their update and their sign-in", n)
	}
	all := a.count(t, `SELECT count(*) FROM idempotency_keys`)

	expect(t, admin.do(http.MethodDelete, "/api/users/"+u.ID, nil), http.StatusOK)
	if n := kept(); n != 0 {
		t.Errorf("%d kept answers about the closed account remain", n)
	}
	if n := a.count(t, `SELECT count(*) FROM idempotency_keys`); n != all-2 {
		t.Errorf("%d kept answers left, want the other user's %d", n, all-2)
	}
}

// A deposit request's key is claimed by its command, in the command's transaction: a repeat gets
// the first answer, another request with the key a 422, and a refused request's answer is kept
// like any other.
func TestIdempotencyKeyOnADepositIsClaimedByItsCommand(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	c, u := a.member(t, "ivy@example.com", "subscriber")
	deposits := func() int {
		return a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'account.deposit_requested'`, "account-"+u.ID)
	}
	body := map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}

	first := c.withKey("dep-1", http.MethodPost, "/api/payments/create", body)
	expect(t, first, http.StatusOK)
	if first.header.Get("Idempotency-Hit") != "" || first.header.Get("X-Clearvest-Position") == "" {
		t.Fatalf("first answer headers: %v", first.header)
	}
	// The key's record commits with the deposit and holds no response: the deposit's event
	// carries the key, and a repeat is answered from it.
	if n := a.count(t, `SELECT count(*) FROM idempotency_keys WHERE response IS NULL AND locked_until IS NULL`); n != 1 {
		t.Fatalf("%d claimed keys after the first request, want 1", n)
	}
	again := c.withKey("dep-1", http.MethodPost, "/api/payments/create", body)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) ||
		again.header.Get("X-Clearvest-Position") != first.header.Get("X-Clearvest-Position") {
		t.Fatalf("repeat = %v %s, want the first answer %s with Idempotency-Hit", again.header, again.body, first.body)
	}
	expect(t, c.withKey("dep-1", http.MethodPost, "/api/payments/create", map[string]string{"amount": "200", "asset": "USDT", "network": "TRC20"}),
		http.StatusUnprocessableEntity)
	if n := deposits(); n != 1 {
		t.Fatalf("%d deposits after a repeat and a reuse, want 1", n)
	}
	// Once staff have decided, a repeat still gets the answer the request got: the deposit as
	// it was created.
	staff, _ := a.member(t, "sam@example.com", "author")
	expect(t, staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": decodeJSON[depositJSON](t, first).TransactionID, "amount": "100"}), http.StatusOK)
	later := c.withKey("dep-1", http.MethodPost, "/api/payments/create", body)
	if later.header.Get("Idempotency-Hit") != "true" || string(later.body) != string(first.body) {
		t.Fatalf("repeat after the decision = %v %s, want the first answer %s", later.header, later.body, first.body)
	}

	bad := map[string]string{"amount": "-5", "asset": "USDT", "network": "TRC20"}
	refused := c.withKey("dep-2", http.MethodPost, "/api/payments/create", bad)
	if refused.status < 400 || refused.status >= 500 {
		t.Fatalf("a negative amount: %d, want a 4xx", refused.status)
	}
	repeat := c.withKey("dep-2", http.MethodPost, "/api/payments/create", bad)
	if repeat.status != refused.status || repeat.header.Get("Idempotency-Hit") != "true" || string(repeat.body) != string(refused.body) {
		t.Fatalf("repeat of a refusal = %d %v %s, want the refusal kept", repeat.status, repeat.header, repeat.body)
	}
	if n := deposits(); n != 1 {
		t.Fatalf("%d deposits, want 1", n)
	}
}

// The command's claim is what keeps a key once across processes: a repeat sent to another
// process (its own command runner and key store) while the first request's transaction waits is
// decided there too, finds the key taken when the first commits, and stores nothing; a repeat to
// the first process meanwhile is refused at once.
func TestIdempotencyKeyOnADepositAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	one := newMoneyApp(t)
	// The other process has its own connections, store and command runner.
	pool, err := pgxpool.NewWithConfig(ctx, one.Pool.Config().Copy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	otherRunner := command.NewRunner(store, one.Codec)
	two := serve(t, one.Env, func(d *api.Deps) { d.Money = newMoneyService(t, one.Env, otherRunner, nil, one.Clock) })
	_, u := one.member(t, "ivy@example.com", "subscriber")
	body := map[string]string{"amount": "100", "asset": "USDT", "network": "TRC20"}
	stream := "account-" + u.ID

	// Hold the account stream's append lock on a connection of the test's own, so that the first
	// request waits inside its transaction.
	conn, err := pgx.ConnectConfig(ctx, one.Pool.Config().ConnConfig.Copy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	hold, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx) //nolint:errcheck // released below
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_xact_lock(1129727315, hashtext($1))`, stream); err != nil {
		t.Fatal(err)
	}
	waiting := func(n int) func() bool {
		return func() bool {
			var waiters int
			if err := hold.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`).Scan(&waiters); err != nil {
				t.Fatal(err)
			}
			return waiters == n
		}
	}
	firstDone := make(chan response, 1)
	go func() {
		firstDone <- one.apiClient(t, u.Token).withKey("dep-x", http.MethodPost, "/api/payments/create", body)
	}()
	waitFor(t, "the first request to wait for the stream", waiting(1))

	busy := one.apiClient(t, u.Token).withKey("dep-x", http.MethodPost, "/api/payments/create", body)
	expect(t, busy, http.StatusConflict)

	secondDone := make(chan response, 1)
	go func() {
		secondDone <- two.apiClient(t, u.Token).withKey("dep-x", http.MethodPost, "/api/payments/create", body)
	}()
	waitFor(t, "the other process's request to wait for the stream", waiting(2))
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	first, second := <-firstDone, <-secondDone
	expect(t, first, http.StatusOK)
	switch {
	case second.status == http.StatusConflict:
	case second.status == http.StatusOK && second.header.Get("Idempotency-Hit") == "true" && string(second.body) == string(first.body):
	default:
		t.Fatalf("the other process answered %d %v %s; want 409, or the first answer replayed", second.status, second.header, second.body)
	}
	if n := one.count(t, `SELECT count(*) FROM events WHERE stream_id = $1`, stream); n != 1 {
		t.Fatalf("%d events on the account, want the one deposit", n)
	}
	again := two.apiClient(t, u.Token).withKey("dep-x", http.MethodPost, "/api/payments/create", body)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) {
		t.Fatalf("later repeat on the other process = %v %s, want the first answer", again.header, again.body)
	}
}

// A withdrawal request's key is claimed by its command too: a repeat, even after staff have
// paid it out, gets the request's own answer, and holds, mails and pays nothing more.
func TestIdempotencyKeyOnAWithdrawalIsAnsweredFromItsEvents(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	c, u := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, c, staff, "300")
	clearedToWithdraw(t, a, c, staff)
	body := map[string]string{"amount": "100", "network": "ERC20", "walletAddress": testETHAddress, "fee": "2.00"}

	first := c.withKey("wd-1", http.MethodPost, "/api/withDraw/create", body)
	expect(t, first, http.StatusOK)
	w := decodeJSON[withdrawalJSON](t, first)
	expect(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": "0x" + strings.Repeat("ab", 32)}), http.StatusOK)
	again := c.withKey("wd-1", http.MethodPost, "/api/withDraw/create", body)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) ||
		again.header.Get("X-Clearvest-Position") != first.header.Get("X-Clearvest-Position") {
		t.Fatalf("repeat = %v %s, want the first answer %v %s", again.header, again.body, first.header, first.body)
	}
	expect(t, c.withKey("wd-1", http.MethodPost, "/api/withDraw/create", map[string]string{"amount": "50", "network": "ERC20", "walletAddress": testETHAddress, "fee": "1.50"}),
		http.StatusUnprocessableEntity)
	if n := a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = 'account.withdrawal_requested'`, "account-"+u.ID); n != 1 {
		t.Fatalf("%d withdrawal requests stored, want 1", n)
	}
	if m := a.MailsTo(t, "ivy@example.com", "We received your withdrawal request of $100.00"); len(m) != 1 {
		t.Fatalf("%d request e-mails, want 1", len(m))
	}
	// The answer came from the request's event: its record holds no response.
	if n := a.count(t, `SELECT count(*) FROM idempotency_keys WHERE response IS NOT NULL`); n != 0 {
		t.Fatalf("%d stored responses, want none", n)
	}
}

// A staff decision's key is claimed by its command too, and a repeat gets the first answer from
// the decision's events, even where the checks before the command would refuse it: an identity
// check's approval, a confirmation that went through (not "already decided"), one that became a proposal (the same
// proposal, not "waiting for a second staff member"), the second admin's approval of it, and a
// payout and a large withdrawal's proposal likewise, even once that proposal was rejected.
// Another request with a key is a 422, and nothing is credited, proposed or paid twice.
func TestStaffDecisionsAreAnsweredFromTheirEvents(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, u := a.member(t, "ivy@example.com", "subscriber")
	author, _ := a.member(t, "ann@example.com", "author")
	admin, _ := a.member(t, "ada@example.com", "admin")
	events := func(typ string) int {
		return a.count(t, `SELECT count(*) FROM events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE 'proposal-%')`, typ, "account-"+u.ID)
	}
	// decided sends a decision with key and its repeat, and checks that the repeat got the
	// first answer.
	decided := func(c *client, key, method, path string, body any, status int) response {
		t.Helper()
		first := c.withKey(key, method, path, body)
		expect(t, first, status)
		again := c.withKey(key, method, path, body)
		if again.status != first.status || again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) ||
			again.header.Get("X-Clearvest-Position") != first.header.Get("X-Clearvest-Position") {
			t.Fatalf("repeat of %s %s = %d %v %s, want the first answer %d %v %s", method, path,
				again.status, again.header, again.body, first.status, first.header, first.body)
		}
		return first
	}
	const confirmPath = "/api/payments/confirmPayment"

	small := createUSDT(t, investor, "500", "")
	author.position = investor.position
	decided(author, "confirm-1", http.MethodPatch, confirmPath, map[string]string{"transactionId": small.TransactionID, "amount": "500"}, http.StatusOK)
	expect(t, author.withKey("confirm-1", http.MethodPatch, confirmPath, map[string]string{"transactionId": small.TransactionID, "amount": "400"}),
		http.StatusUnprocessableEntity)

	large := createUSDT(t, investor, "20000", "")
	author.position = investor.position
	id := proposed(t, decided(author, "confirm-2", http.MethodPatch, confirmPath,
		map[string]string{"transactionId": large.TransactionID, "amount": "20000", "notes": "Seen on the explorer"}, http.StatusAccepted))
	admin = steppedUp(t, admin)
	admin.position = author.position
	decided(admin, "approve-1", http.MethodPost, "/api/proposals/"+id+"/approve", map[string]string{"reason": "Matches the chain"}, http.StatusOK)
	if n, p := events(account.TypeDepositConfirmed), events(proposal.TypeOpened); n != 2 || p != 1 {
		t.Fatalf("%d deposit confirmations and %d proposals, want 2 and 1", n, p)
	}
	investor.position = admin.position
	if got := balances(t, investor).Balance; got != "20500.00" {
		t.Fatalf("balance = %s, want 20500.00", got)
	}

	jpg := jpegFile(t)
	expect(t, uploadKYC(t, investor, nil, front(jpg), back(jpg)), http.StatusOK)
	author.position = investor.position
	decided(author, "kyc-1", http.MethodPatch, "/api/users/kyc/"+u.ID+"/approve", map[string]any{}, http.StatusOK)
	investor.position = author.position
	stepUp(t, investor)
	w := withdraw(t, investor, "100", "ERC20", testETHAddress)
	author.position = investor.position
	decided(author, "pay-1", http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": "0x" + strings.Repeat("cd", 32)}, http.StatusOK)
	big := withdraw(t, investor, "15000", "ERC20", testETHAddress)
	author.position = investor.position
	payBig := map[string]string{"reason": "A known customer"}
	proposal2 := decided(author, "pay-2", http.MethodPut, "/api/withDraw/approve/"+big.ID, payBig, http.StatusAccepted)
	// Once that proposal is rejected, the checks let a repeat through: it still gets its answer,
	// the proposal it opened, and opens none.
	admin.position = author.position
	expect(t, admin.do(http.MethodPost, "/api/proposals/"+proposed(t, proposal2)+"/reject", map[string]string{"reason": "Not known"}), http.StatusOK)
	author.position = admin.position
	if again := author.withKey("pay-2", http.MethodPut, "/api/withDraw/approve/"+big.ID, payBig); again.header.Get("Idempotency-Hit") != "true" ||
		string(again.body) != string(proposal2.body) {
		t.Fatalf("repeat after the rejection = %d %s, want the first answer %s", again.status, again.body, proposal2.body)
	}
	if n, p := events(account.TypeWithdrawalApproved), events(proposal.TypeOpened); n != 1 || p != 2 {
		t.Fatalf("%d payouts and %d proposals, want 1 and 2", n, p)
	}
	// Every answer came from the events: no key's record holds a response.
	if n := a.count(t, `SELECT count(*) FROM idempotency_keys WHERE response IS NOT NULL`); n != 0 {
		t.Fatalf("%d stored responses, want none", n)
	}
}

package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"clearvest/app/accounts"
	"clearvest/projections/ledger"
)

const testETHAddress = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"

type withdrawalJSON struct {
	ID               string  `json:"_id"`
	Amount           string  `json:"amount"`
	Fee              string  `json:"fee"`
	Receives         string  `json:"receives"`
	WalletAddress    string  `json:"walletAddress"`
	Network          string  `json:"network"`
	Asset            string  `json:"asset"`
	Status           string  `json:"status"`
	TxHash           string  `json:"txHash"`
	Reason           string  `json:"reason"`
	RequestDate      string  `json:"requestDate"`
	AvailableBalance *string `json:"availableBalance"`
	User             *struct {
		ID    string `json:"_id"`
		Email string `json:"email"`
	} `json:"user"`
}

type withdrawalQueueJSON struct {
	Withdrawals []struct {
		Withdrawal withdrawalJSON `json:"withdrawal"`
		AgeSeconds int64          `json:"ageSeconds"`
	} `json:"withdrawals"`
}

// fund credits amount to the investor's available balance: a USDT deposit staff confirm in full.
func fund(t *testing.T, investor, staff *client, amount string) {
	t.Helper()
	d := createUSDT(t, investor, amount, "")
	expect(t, staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": amount}), http.StatusOK)
	investor.position = max(investor.position, staff.position)
}

// withdraw asks for a withdrawal as the withdrawal page does: the quote first, then the request
// with the fee it showed. The investor must be cleared to withdraw (clearedToWithdraw).
func withdraw(t *testing.T, c *client, amount, network, address string) withdrawalJSON {
	t.Helper()
	res := c.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, c, amount, network, address))
	expect(t, res, http.StatusOK)
	return decodeJSON[withdrawalJSON](t, res)
}

// withdrawalBody is a withdrawal request carrying the fee the quote shows for amount ("" when the
// quote refuses the amount: the request is then refused before its fee is looked at, or for the
// reason the quote gave).
func withdrawalBody(t *testing.T, c *client, amount, network, address string) map[string]string {
	t.Helper()
	fee := ""
	if res := c.do(http.MethodPost, "/api/withDraw/quote", map[string]string{"network": "TRC20", "amount": amount}); res.status == http.StatusOK {
		fee = decodeJSON[struct{ Fee string }](t, res).Fee
	}
	return map[string]string{"amount": amount, "network": network, "walletAddress": address, "fee": fee}
}

// quote asks for a withdrawal quote as the withdrawal page does.
func quote(c *client, body map[string]string) response {
	return c.do(http.MethodPost, "/api/withDraw/quote", body)
}

// clearedToWithdraw makes investor someone who may withdraw now: staff approve their identity
// check, and they confirm it's them (step-up with their password) on their session.
func clearedToWithdraw(t *testing.T, a *app, investor, staff *client) {
	t.Helper()
	identityApproved(t, a, investor, staff)
	stepUp(t, investor)
}

// identityApproved has staff approve investor's identity check.
func identityApproved(t *testing.T, a *app, investor, staff *client) {
	t.Helper()
	id := investorID(t, a, investor)
	jpg := jpegFile(t)
	expect(t, uploadKYC(t, investor, nil, front(jpg), back(jpg)), http.StatusOK)
	staff.position = max(staff.position, investor.position)
	expect(t, staff.do(http.MethodPatch, "/api/users/kyc/"+id+"/approve", map[string]any{}), http.StatusOK)
	investor.position = max(investor.position, staff.position)
}

// stepUp confirms it's the person on c's session, with the password.
func stepUp(t *testing.T, c *client) {
	t.Helper()
	expect(t, c.do(http.MethodPost, "/api/users/step-up", map[string]string{"password": testPassword}), http.StatusOK)
}

func TestWithdrawalFlowPaysOutLessTheFeeAndMailsTheInvestor(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	other, _ := a.member(t, "oscar@example.com", "subscriber")
	fund(t, investor, staff, "1000")
	clearedToWithdraw(t, a, investor, staff)

	// The preview shows the schedule's fee before anything is held; the minimum is its own figure,
	// never part of the fee's words.
	res := quote(investor, map[string]string{"amount": "100", "network": "TRC20"})
	expect(t, res, http.StatusOK)
	q := decodeJSON[struct{ Amount, Fee, Receives, Minimum, Schedule string }](t, res)
	if q.Amount != "100.00" || q.Fee != "2.00" || q.Receives != "98.00" || q.Minimum != "10.00" ||
		q.Schedule != "1% + $1.00 (at most $25.00)" {
		t.Fatalf("quote: %+v", q)
	}

	w := withdraw(t, investor, "100", "TRC20", "  "+testTRONAddress+"\n")
	if w.ID == "" || w.Status != "Pending" || w.Amount != "100.00" || w.Fee != "2.00" || w.Receives != "98.00" ||
		w.WalletAddress != testTRONAddress || w.Network != "TRC20" || w.Asset != "USDT" || w.User != nil {
		t.Fatalf("created: %+v", w)
	}
	if b := balances(t, investor); b.Balance != "900.00" || b.Fees != "0.00" {
		t.Fatalf("figures while pending: %+v", b)
	}
	mails := a.MailsTo(t, "ivy@example.com", "We received your withdrawal request of $100.00")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "you will receive $98.00") || !strings.Contains(mails[0].Text, "$2.00") ||
		!strings.Contains(mails[0].Text, testTRONAddress) || !strings.Contains(mails[0].Text, "/withdrawal/"+w.ID) {
		t.Fatalf("request mails: %+v", mails)
	}

	// Only the owner and staff see it; a subscriber may not decide nor see the queue.
	expect(t, investor.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w.ID, nil), http.StatusOK)
	expect(t, other.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w.ID, nil), http.StatusNotFound)
	expect(t, other.do(http.MethodGet, "/api/withDraw/get-withdrawal/not-an-id", nil), http.StatusNotFound)
	expect(t, other.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("paid")}), http.StatusForbidden)
	expect(t, other.do(http.MethodPut, "/api/withDraw/reject/"+w.ID, map[string]string{"reason": "no"}), http.StatusForbidden)
	expect(t, other.do(http.MethodGet, "/api/withDraw/pending", nil), http.StatusForbidden)
	res = other.do(http.MethodGet, "/api/withDraw/history", nil)
	expect(t, res, http.StatusOK)
	if l := decodeJSON[struct{ Withdrawals []withdrawalJSON }](t, res); len(l.Withdrawals) != 0 {
		t.Fatalf("another user's history: %s", res.body)
	}

	staff.position = max(staff.position, investor.position)
	res = staff.do(http.MethodGet, "/api/withDraw/pending", nil)
	expect(t, res, http.StatusOK)
	queue := decodeJSON[withdrawalQueueJSON](t, res)
	if len(queue.Withdrawals) != 1 || queue.Withdrawals[0].Withdrawal.ID != w.ID || queue.Withdrawals[0].AgeSeconds < 0 ||
		queue.Withdrawals[0].Withdrawal.User == nil || queue.Withdrawals[0].Withdrawal.User.Email != "ivy@example.com" {
		t.Fatalf("queue: %s", res.body)
	}
	res = staff.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w.ID, nil)
	expect(t, res, http.StatusOK)
	if got := decodeJSON[withdrawalJSON](t, res); got.AvailableBalance == nil || *got.AvailableBalance != "900.00" || got.User == nil {
		t.Fatalf("staff view: %s", res.body)
	}

	expectMessage(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": " "}), http.StatusBadRequest,
		"Please enter the payout transaction hash")
	res = staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("paid42"), "onChainAmount": "98"})
	expect(t, res, http.StatusOK)
	if m := decodeJSON[struct{ Message string }](t, res); m.Message != "Withdrawal approved!" {
		t.Fatalf("approve: %s", res.body)
	}
	expectMessage(t, staff.do(http.MethodPut, "/api/withDraw/reject/"+w.ID, map[string]string{"reason": "late"}), http.StatusConflict,
		"This withdrawal was already decided")
	expectMessage(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("again")}), http.StatusConflict,
		"This withdrawal was already decided")

	mails = a.MailsTo(t, "ivy@example.com", "Your withdrawal of $100.00 was approved")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, testHash("paid42")) || !strings.Contains(mails[0].Text, "$98.00 was sent") {
		t.Fatalf("approval mails: %+v", mails)
	}

	investor.position = max(investor.position, staff.position)
	if b := balances(t, investor); b.Balance != "900.00" || b.Fees != "2.00" || !b.HasFees {
		t.Fatalf("figures after the payout: %+v", b)
	}
	res = investor.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w.ID, nil)
	if got := decodeJSON[withdrawalJSON](t, res); got.Status != "Approved" || got.TxHash != testHash("paid42") || got.User != nil || got.AvailableBalance != nil {
		t.Fatalf("owner's view after approval: %s", res.body)
	}
	second := withdraw(t, investor, "20", "BTC", testBTCAddress)
	if second.Asset != "BTC" || second.Fee != "1.20" || second.Receives != "18.80" {
		t.Fatalf("BTC withdrawal: %+v", second)
	}
	res = investor.do(http.MethodGet, "/api/withDraw/history", nil)
	expect(t, res, http.StatusOK)
	if l := decodeJSON[struct{ Withdrawals []withdrawalJSON }](t, res); len(l.Withdrawals) != 2 ||
		l.Withdrawals[0].ID != second.ID || l.Withdrawals[1].ID != w.ID {
		t.Fatalf("history, newest first: %s", res.body)
	}
	staff.position = max(staff.position, investor.position)
	res = staff.do(http.MethodGet, "/api/withDraw/pending", nil)
	if q := decodeJSON[withdrawalQueueJSON](t, res); len(q.Withdrawals) != 1 || q.Withdrawals[0].Withdrawal.ID != second.ID {
		t.Fatalf("queue after the decision holds only the new request: %s", res.body)
	}
}

func TestWithdrawalRejectionReturnsTheAmountAndMailsTheReason(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "ada@example.com", "admin")
	fund(t, investor, staff, "50")
	clearedToWithdraw(t, a, investor, staff)
	w := withdraw(t, investor, "50", "ERC20", testETHAddress)
	if w.WalletAddress != testETHAddress || w.Fee != "1.50" || w.Receives != "48.50" {
		t.Fatalf("created: %+v", w)
	}
	expectMessage(t, staff.do(http.MethodPut, "/api/withDraw/reject/"+w.ID, map[string]string{"reason": "  "}), http.StatusBadRequest, "Please enter a reason")
	res := staff.do(http.MethodPut, "/api/withDraw/reject/"+w.ID, map[string]string{"reason": "The address belongs to an exchange that refuses deposits"})
	expect(t, res, http.StatusOK)
	if m := decodeJSON[struct{ Message string }](t, res); m.Message != "Withdrawal rejected!" {
		t.Fatalf("reject: %s", res.body)
	}
	expectMessage(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("1")}), http.StatusConflict,
		"This withdrawal was already decided")
	mails := a.MailsTo(t, "ivy@example.com", "Your withdrawal of $50.00 was not approved")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "refuses deposits") || !strings.Contains(mails[0].Text, "no fee was charged") {
		t.Fatalf("rejection mails: %+v", mails)
	}
	investor.position = max(investor.position, staff.position)
	if b := balances(t, investor); b.Balance != "50.00" || b.Fees != "0.00" {
		t.Fatalf("figures after a rejection: %+v", b)
	}
	res = investor.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w.ID, nil)
	if got := decodeJSON[withdrawalJSON](t, res); got.Status != "Rejected" || got.Reason != "The address belongs to an exchange that refuses deposits" {
		t.Fatalf("after rejection: %s", res.body)
	}
	expect(t, staff.do(http.MethodPut, "/api/withDraw/approve/00000000-0000-4000-8000-000000000000", map[string]string{"txHash": testHash("1")}), http.StatusNotFound)
}

func TestWithdrawalInputIsChecked(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, investor, staff, "100")
	clearedToWithdraw(t, a, investor, staff)
	cases := []struct {
		amount, network, address string
		status                   int
		field, message           string
	}{
		{"50", "BTC", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5", http.StatusBadRequest, "walletAddress", "Please enter a valid Bitcoin address"},
		{"50", "BTC", "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", http.StatusBadRequest, "walletAddress",
			"This is a Bitcoin testnet address; please enter a Bitcoin mainnet address"},
		{"50", "BTC", testTRONAddress, http.StatusBadRequest, "walletAddress", "Please enter a valid Bitcoin address"},
		{"50", "ERC20", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", http.StatusBadRequest, "walletAddress",
			"This Ethereum address has a typo (its capital letters do not match its checksum); please copy it again"},
		{"50", "ERC20", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe", http.StatusBadRequest, "walletAddress", "Please enter a valid Ethereum address"},
		{"50", "TRC20", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", http.StatusBadRequest, "walletAddress", "Please enter a valid TRON address"},
		{"50", "TRC20", "TR7NHqjeKQxGTCi8q8Z\u200bY4pL8otSzgjLj6t", http.StatusBadRequest, "walletAddress",
			"The wallet address contains spaces or hidden characters; please copy it again"},
		{"50", "TRC20", "", http.StatusBadRequest, "walletAddress", "Please enter a wallet address"},
		{"50", "DOGE", testTRONAddress, http.StatusBadRequest, "network", "Please choose a network: BTC, ERC20 or TRC20"},
		{"9.99", "TRC20", testTRONAddress, http.StatusUnprocessableEntity, "amount", "The minimum withdrawal is $10.00"},
		{"0", "TRC20", testTRONAddress, http.StatusBadRequest, "", "Amount must be greater than zero"},
	}
	for _, tc := range cases {
		res := investor.do(http.MethodPost, "/api/withDraw/create", withdrawalBody(t, investor, tc.amount, tc.network, tc.address))
		if res.status != tc.status {
			t.Errorf("%+v: status %d; %s", tc, res.status, res.body)
			continue
		}
		if e := decodeError(t, res); e.Message != tc.message || (tc.field != "" && e.Field != tc.field) {
			t.Errorf("%s %s %q: %+v, want field %q message %q", tc.amount, tc.network, tc.address, e, tc.field, tc.message)
		}
	}
	// The hold checks the balance itself, whatever the quote said (here: a fee the quote refused to
	// work out, sent all the same).
	over := map[string]string{"amount": "100.01", "network": "TRC20", "walletAddress": testTRONAddress, "fee": "2.00"}
	expectMessage(t, investor.do(http.MethodPost, "/api/withDraw/create", over), http.StatusUnprocessableEntity, "Insufficient balance: $100.00 is available")
	// The quote makes the same checks before the confirmation step, the balance included, and
	// says which field is at fault.
	for _, tc := range []struct {
		body           map[string]string
		status         int
		field, message string
	}{
		{map[string]string{"amount": "5", "network": "TRC20"}, http.StatusUnprocessableEntity, "amount", "The minimum withdrawal is $10.00"},
		{map[string]string{"amount": "100.01", "network": "TRC20"}, http.StatusUnprocessableEntity, "amount", "Insufficient balance: $100.00 is available"},
		{map[string]string{"amount": "100.01", "network": "TRC20", "walletAddress": testTRONAddress}, http.StatusUnprocessableEntity, "amount",
			"Insufficient balance: $100.00 is available"},
		// The page checks an address when its field loses focus, before any amount is typed.
		{map[string]string{"network": "TRC20", "walletAddress": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u"}, http.StatusBadRequest, "walletAddress",
			"Please enter a valid TRON address"},
		{map[string]string{"network": "DOGE"}, http.StatusBadRequest, "network", "Please choose a network: BTC, ERC20 or TRC20"},
	} {
		res := quote(investor, tc.body)
		if res.status != tc.status {
			t.Errorf("quote %v: status %d; %s", tc.body, res.status, res.body)
			continue
		}
		if e := decodeError(t, res); e.Message != tc.message || e.Field != tc.field {
			t.Errorf("quote %v: %+v, want field %q message %q", tc.body, e, tc.field, tc.message)
		}
	}
	res := quote(investor, map[string]string{"network": "ERC20", "walletAddress": " " + testETHAddress})
	expect(t, res, http.StatusOK)
	if q := decodeJSON[map[string]string](t, res); q["walletAddress"] != testETHAddress || q["minimum"] != "10.00" || q["fee"] != "" ||
		q["schedule"] != "1% + $1.00 (at most $25.00)" {
		t.Fatalf("address check: %s", res.body)
	}
	// The whole balance can be quoted, and the address goes in the body, never in the URL: the old
	// GET is gone.
	if res := quote(investor, map[string]string{"amount": "100", "network": "TRC20", "walletAddress": testTRONAddress}); res.status != http.StatusOK {
		t.Fatalf("quote of the whole balance: %d %s", res.status, res.body)
	}
	if res := investor.do(http.MethodGet, "/api/withDraw/quote?network=TRC20&walletAddress="+testTRONAddress, nil); res.status != http.StatusMethodNotAllowed {
		t.Fatalf("GET quote: %d %s", res.status, res.body)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.withdrawal_requested'`); n != 0 {
		t.Fatalf("%d withdrawals recorded from bad input", n)
	}
	// The whole balance can be withdrawn: the fee comes out of it.
	if w := withdraw(t, investor, "100", "TRC20", testTRONAddress); w.Receives != "98.00" {
		t.Fatalf("whole balance: %+v", w)
	}
}

func TestWithdrawalNeedsAVerifiedEmail(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	if _, err := a.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: "Una", Email: "una@example.com", Password: testPassword, Role: "subscriber",
	}); err != nil {
		t.Fatal(err)
	}
	c := a.browser(t)
	expect(t, c.do(http.MethodPost, "/api/users/login", map[string]string{"email": "una@example.com", "password": testPassword}), http.StatusAccepted)
	res := c.do(http.MethodPost, "/api/users/loginWithCode/una@example.com", map[string]string{"loginCode": a.LatestCode(t, "una@example.com", "sign-in code")})
	expect(t, res, http.StatusOK)
	stepUp(t, c)
	expectMessage(t, c.do(http.MethodPost, "/api/withDraw/create", map[string]string{"amount": "10", "network": "TRC20", "walletAddress": testTRONAddress, "fee": "1.10"}),
		http.StatusForbidden, "Please verify your email address before requesting a withdrawal.")
}

func TestStaffCannotDecideTheirOwnWithdrawal(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	sam, _ := a.member(t, "sam@example.com", "author")
	ada, _ := a.member(t, "ada@example.com", "admin")
	fund(t, sam, ada, "40")
	clearedToWithdraw(t, a, sam, ada)
	w := withdraw(t, sam, "40", "TRC20", testTRONAddress)
	expectMessage(t, sam.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("mine")}), http.StatusUnprocessableEntity,
		"You cannot decide or correct money on your own account")
	expect(t, ada.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("theirs")}), http.StatusOK)
}

// TestConcurrentWithdrawalsHoldTheBalanceOnce sends 50 withdrawals of 60 % of the balance at
// once over HTTP: the balance covers one.
func TestConcurrentWithdrawalsHoldTheBalanceOnce(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, user := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, investor, staff, "1000")
	clearedToWithdraw(t, a, investor, staff)

	const n = 50
	body := map[string]string{"amount": "600", "network": "TRC20", "walletAddress": testTRONAddress, "fee": "7.00"}
	results := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		// One client each: a client keeps state between requests.
		c := a.apiClient(t, user.Token)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.withKey(fmt.Sprintf("withdraw-%d", i), http.MethodPost, "/api/withDraw/create", body)
		}()
	}
	wg.Wait()
	winner := -1
	for i, r := range results {
		switch r.status {
		case http.StatusOK:
			if winner >= 0 {
				t.Fatalf("requests %d and %d both succeeded", winner, i)
			}
			winner = i
		case http.StatusUnprocessableEntity:
			if e := decodeError(t, r); !strings.HasPrefix(e.Message, "Insufficient balance") {
				t.Fatalf("request %d: %+v", i, e)
			}
		default:
			t.Fatalf("request %d: status %d %s", i, r.status, r.body)
		}
	}
	if winner < 0 {
		t.Fatal("no request succeeded")
	}
	if got := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.withdrawal_requested'`); got != 1 {
		t.Fatalf("%d withdrawals recorded, want 1", got)
	}

	// The winner's key replays its first answer; it holds nothing twice.
	replay := investor.withKey(fmt.Sprintf("withdraw-%d", winner), http.MethodPost, "/api/withDraw/create", body)
	expect(t, replay, http.StatusOK)
	if replay.header.Get("Idempotency-Hit") != "true" || string(replay.body) != string(results[winner].body) {
		t.Fatalf("replay: %v %s, first %s", replay.header, replay.body, results[winner].body)
	}

	investor.position = max(investor.position, staff.position)
	for _, r := range results {
		var p int64
		if _, err := fmt.Sscan(r.header.Get("X-Clearvest-Position"), &p); err == nil {
			investor.position = max(investor.position, p)
		}
	}
	if b := balances(t, investor); b.Balance != "400.00" {
		t.Fatalf("available after the race: %+v", b)
	}
	tb, err := ledger.ReadTrialBalance(context.Background(), a.Pool)
	if err != nil {
		t.Fatal(err)
	}
	if !tb.Balanced() {
		t.Fatalf("trial balance: %+v", tb)
	}
	var held string
	for _, acc := range tb.Accounts {
		if strings.Contains(string(acc.Account), "held") || strings.Contains(string(acc.Account), "hold") {
			held += fmt.Sprintf("%s=%s ", acc.Account, acc.Balance)
		}
	}
	if !strings.Contains(held, "600.00") {
		t.Fatalf("books: the hold of 600.00 is missing: %+v", tb.Accounts)
	}
}

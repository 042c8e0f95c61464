package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"clearvest/api"
	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/app/kyc/kyctest"
	"clearvest/app/money"
	"clearvest/app/plans"
	"clearvest/domain/chain"
	"clearvest/domain/clock"
	"clearvest/eventstore"
	"clearvest/platform/config"
	"clearvest/projections"
	"clearvest/projections/history"
	"clearvest/projections/ledger"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

const (
	testBTCAddress  = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
	testTRONAddress = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
)

// newMoneyApp is the API with the money service and its read models (the books, which hold the
// figures, the wallets, which hold the deposits, the withdrawals and the history), deposit
// addresses configured for BTC on Bitcoin and USDT on TRON, the default withdrawal fee, and the
// identity checks (a withdrawal needs an approved one).
func newMoneyApp(t testing.TB, opts ...accountstest.Option) *app {
	return newMoneyAppAt(t, nil, opts...)
}

// newMoneyAppAt is newMoneyApp with the money service reading time from clk (nil: the
// environment's clock).
func newMoneyAppAt(t testing.TB, clk clock.Clock, opts ...accountstest.Option) *app {
	t.Helper()
	return newMoneyAppQuota(t, clk, 0, opts...)
}

// newMoneyAppQuota is newMoneyAppAt with the open deposit quota maxOpen (0: the default of five;
// negative: none, for the benchmark, whose investors leave thousands of deposits waiting).
func newMoneyAppQuota(t testing.TB, clk clock.Clock, maxOpen int, opts ...accountstest.Option) *app {
	t.Helper()
	var svc *money.Service
	// As in serve, the money service refuses to close an account that holds money; an option of
	// the test's own comes after, and may turn that off.
	opts = append([]accountstest.Option{closeChecked(&svc)}, opts...)
	env := kyctest.New(t, append(opts, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		chain.RegisterEvents(codec) // the withdrawals read model shows payouts seen on chain
		return []projections.Projection{ledger.New(codec), wallets.New(codec), withdrawals.New(codec), history.New(codec)}
	}, money.Migrations))...)
	if clk == nil {
		clk = env.Clock
	}
	svc = newMoneyServiceQuota(t, env.Env, env.Commands, nil, clk, maxOpen)
	return serve(t, env.Env, func(d *api.Deps) { d.Money, d.KYC = svc, env.KYC })
}

// closeChecked has accounts refuse to close an account that *svc finds holding money, as serve
// wires it; svc is set once the money service exists, before any request.
func closeChecked(svc **money.Service) accountstest.Option {
	return accountstest.WithCloseCheck(func(ctx context.Context, userID string) error {
		return (*svc).CheckClosable(ctx, userID)
	})
}

// newMoneyService is the money service of the API tests: deposit addresses for BTC on Bitcoin and
// USDT on TRON, the default withdrawal fee, the plan catalogue p (nil where no test invests) and
// the clock clk.
func newMoneyService(t testing.TB, env *accountstest.Env, commands *command.Runner, p *plans.Service, clk clock.Clock, adjust ...func(*money.Config)) *money.Service {
	t.Helper()
	return newMoneyServiceQuota(t, env, commands, p, clk, 0, adjust...)
}

// newMoneyServiceQuota is newMoneyService with the open deposit quota maxOpen (money.Config).
func newMoneyServiceQuota(t testing.TB, env *accountstest.Env, commands *command.Runner, p *plans.Service, clk clock.Clock, maxOpen int, adjust ...func(*money.Config)) *money.Service {
	t.Helper()
	parsed, err := config.ParseDepositAddresses("BTC/BTC=" + testBTCAddress + ",USDT/TRC20=" + testTRONAddress)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []money.Address
	for _, d := range parsed {
		addrs = append(addrs, money.Address{Asset: d.Asset, Network: d.Network, Address: d.Address})
	}
	fee, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	deps := money.Deps{Pool: env.Pool, Commands: commands, Sender: env.Sender, Clock: clk, Logger: slog.New(slog.DiscardHandler)}
	if p != nil { // a nil *plans.Service would be a non-nil catalogue
		deps.Plans = p
	}
	cfg := money.Config{PublicURL: accountstest.PublicURL, Addresses: addrs, WithdrawalFee: fee, MaxOpenDeposits: maxOpen}
	for _, f := range adjust {
		f(&cfg)
	}
	svc, err := money.New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

type depositJSON struct {
	TransactionID string `json:"transactionId"`
	Amount        string `json:"amount"`
	Asset         string `json:"asset"`
	Network       string `json:"network"`
	Address       string `json:"address"`
	QRPayload     string `json:"qrPayload"`
	OnChainAmount string `json:"onChainAmount"`
	USDRate       string `json:"usdRate"`
	TxHash        string `json:"txHash"`
	Status        string `json:"status"`
	Received      string `json:"received"`
	Notes         string `json:"notes"`
	User          *struct {
		ID    string `json:"_id"`
		Email string `json:"email"`
	} `json:"user"`
}

type depositQueueJSON struct {
	Deposits []struct {
		Deposit    depositJSON `json:"deposit"`
		AgeSeconds int64       `json:"ageSeconds"`
	} `json:"deposits"`
}

type balancesJSON struct {
	Balance             string `json:"balance"`
	InvestmentBalance   string `json:"investmentBalance"`
	TotalMaturityAmount string `json:"totalMaturityAmount"`
	Fees                string `json:"fees"`
	HasFees             bool   `json:"hasFees"`
}

// balances reads the caller's money figures as the dashboard does.
func balances(t *testing.T, c *client) balancesJSON {
	t.Helper()
	res := c.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[balancesJSON](t, res)
}

var transactionIDPattern = regexp.MustCompile(`^DEP-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$`)

// testHash is a well-formed TRON (and Bitcoin) transaction hash, in its canonical form, named by
// seed: 64 lower-case hex digits.
func testHash(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:])
}

func createUSDT(t *testing.T, c *client, amount, txHash string) depositJSON {
	t.Helper()
	res := c.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": amount, "asset": "USDT", "network": "TRC20", "txHash": txHash})
	expect(t, res, http.StatusOK)
	return decodeJSON[depositJSON](t, res)
}

func TestDepositFlowCreditsTheWalletAndMailsTheInvestor(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	other, _ := a.member(t, "oscar@example.com", "subscriber")

	res := investor.do(http.MethodGet, "/api/payments/addresses", nil)
	expect(t, res, http.StatusOK)
	if !strings.Contains(string(res.body), testTRONAddress) || !strings.Contains(string(res.body), testBTCAddress) {
		t.Fatalf("addresses: %s", res.body)
	}
	// What the deposit page states: the minimum, and per network the confirmations and usual time.
	list := decodeJSON[struct {
		Minimum   string `json:"minimum"`
		Addresses []struct {
			Network       string `json:"network"`
			Confirmations int    `json:"confirmations"`
			UsualMinutes  int    `json:"usualMinutes"`
		} `json:"addresses"`
	}](t, res)
	if list.Minimum != "10.00" {
		t.Fatalf("minimum deposit: %s", res.body)
	}
	for _, ad := range list.Addresses {
		if ad.Confirmations <= 0 || ad.UsualMinutes <= 0 {
			t.Fatalf("network facts of %s: %s", ad.Network, res.body)
		}
	}

	d := createUSDT(t, investor, "100", testHash("abc123"))
	if !transactionIDPattern.MatchString(d.TransactionID) || d.Status != "Pending" || d.Amount != "100.00" ||
		d.Address != testTRONAddress || d.QRPayload != testTRONAddress || d.OnChainAmount != "100.000000" || d.USDRate != "1" ||
		d.Received != "0.00" || d.User != nil {
		t.Fatalf("created: %+v", d)
	}

	// The owner sees it; another investor gets 404, as for a deposit that does not exist.
	res = investor.do(http.MethodGet, "/api/payments/viewPaymentStatus/"+d.TransactionID, nil)
	expect(t, res, http.StatusOK)
	expect(t, other.do(http.MethodGet, "/api/payments/viewPaymentStatus/"+d.TransactionID, nil), http.StatusNotFound)
	expect(t, other.do(http.MethodGet, "/api/payments/viewPaymentStatus/DEP-2222-2222", nil), http.StatusNotFound)

	// A subscriber may not decide, nor see the queue.
	expect(t, other.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "100"}), http.StatusForbidden)
	expect(t, other.do(http.MethodGet, "/api/payments/pending-deposit", nil), http.StatusForbidden)

	// The same transaction hash, in another case, is refused for anyone.
	res = other.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "15", "asset": "USDT", "network": "TRC20", "txHash": "0x" + strings.ToUpper(testHash("abc123"))})
	expect(t, res, http.StatusConflict)
	if e := decodeError(t, res); e.Message != "This transaction hash has already been used." {
		t.Fatalf("reused hash: %+v", e)
	}

	staff.position = max(staff.position, investor.position)
	res = staff.do(http.MethodGet, "/api/payments/pending-deposit", nil)
	expect(t, res, http.StatusOK)
	q := decodeJSON[depositQueueJSON](t, res)
	if len(q.Deposits) != 1 || q.Deposits[0].Deposit.TransactionID != d.TransactionID || q.Deposits[0].AgeSeconds < 0 ||
		q.Deposits[0].Deposit.User == nil || q.Deposits[0].Deposit.User.Email != "ivy@example.com" {
		t.Fatalf("queue: %s", res.body)
	}

	res = staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "99.50", "notes": "Network fee deducted"})
	expect(t, res, http.StatusOK)
	res = staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d.TransactionID, "notes": "late"})
	expect(t, res, http.StatusConflict)
	if e := decodeError(t, res); e.Message != "This deposit was already decided" {
		t.Fatalf("second decision: %+v", e)
	}

	mails := a.MailsTo(t, "ivy@example.com", "was confirmed")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "$99.50") || !strings.Contains(mails[0].Text, "Network fee deducted") ||
		!strings.Contains(mails[0].Subject, d.TransactionID) {
		t.Fatalf("confirmation mails: %+v", mails)
	}

	investor.position = max(investor.position, staff.position)
	res = investor.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusOK)
	if b := decodeJSON[balancesJSON](t, res); b.Balance != "99.50" || b.InvestmentBalance != "0.00" || b.Fees != "0.00" || b.HasFees {
		t.Fatalf("getUser figures: %+v", b)
	}
	res = investor.do(http.MethodGet, "/api/payments/viewPaymentStatus/"+d.TransactionID, nil)
	expect(t, res, http.StatusOK)
	if got := decodeJSON[depositJSON](t, res); got.Status != "Confirmed" || got.Received != "99.50" || got.Notes != "Network fee deducted" {
		t.Fatalf("after confirmation: %+v", got)
	}
	res = staff.do(http.MethodGet, "/api/payments/pending-deposit", nil)
	if q := decodeJSON[depositQueueJSON](t, res); len(q.Deposits) != 0 {
		t.Fatalf("queue after the decision: %s", res.body)
	}
}

func TestDepositRejectionMailsTheNotes(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "ada@example.com", "admin")

	res := investor.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "250", "asset": "BTC", "network": "BTC", "onChainAmount": "0.004"})
	expect(t, res, http.StatusOK)
	d := decodeJSON[depositJSON](t, res)
	if d.OnChainAmount != "0.004" || d.USDRate != "62500" || d.Address != testBTCAddress {
		t.Fatalf("BTC deposit: %+v", d)
	}
	expect(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d.TransactionID, "notes": "Nothing arrived"}), http.StatusOK)
	mails := a.MailsTo(t, "ivy@example.com", "was not confirmed")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "Nothing arrived") || !strings.Contains(mails[0].Text, "$250.00") {
		t.Fatalf("rejection mails: %+v", mails)
	}
	investor.position = max(investor.position, staff.position)
	res = investor.do(http.MethodGet, "/api/users/getUser", nil)
	if b := decodeJSON[balancesJSON](t, res); b.Balance != "0.00" {
		t.Fatalf("balance after a rejection: %+v", b)
	}
}

func TestDepositInputIsChecked(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	cases := []struct {
		body    map[string]string
		status  int
		message string
	}{
		{map[string]string{"amount": "10", "asset": "BTC", "network": "BTC"}, http.StatusBadRequest, "Please enter the amount of the asset you sent."},
		{map[string]string{"amount": "10", "asset": "ETH", "network": "ERC20", "onChainAmount": "1"}, http.StatusUnprocessableEntity,
			"Deposits of this asset on this network are not available. Please choose another."},
		{map[string]string{"amount": "10", "asset": "BTC", "network": "TRC20"}, http.StatusBadRequest, "Bitcoin cannot be sent on TRON"},
		{map[string]string{"amount": "0", "asset": "USDT", "network": "TRC20"}, http.StatusBadRequest, "Amount must be greater than zero"},
		// Below the minimum deposit (CLEARVEST_MIN_DEPOSIT, $10.00 by default): a rule, on the amount.
		{map[string]string{"amount": "9.99", "asset": "USDT", "network": "TRC20"}, http.StatusUnprocessableEntity, "The minimum deposit is $10.00."},
	}
	for _, tc := range cases {
		res := investor.do(http.MethodPost, "/api/payments/create", tc.body)
		if res.status != tc.status {
			t.Errorf("%v: status %d, want %d; %s", tc.body, res.status, tc.status, res.body)
			continue
		}
		if e := decodeError(t, res); tc.message != "" && e.Message != tc.message {
			t.Errorf("%v: message %q, want %q", tc.body, e.Message, tc.message)
		}
	}
}

func TestDepositNeedsAVerifiedEmail(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	if _, err := a.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: "Una", Email: "una@example.com", Password: testPassword, Role: "subscriber",
	}); err != nil {
		t.Fatal(err)
	}
	// The first sign-in from a browser asks for the e-mailed code, as in member.
	c := a.browser(t)
	expect(t, c.do(http.MethodPost, "/api/users/login", map[string]string{"email": "una@example.com", "password": testPassword}), http.StatusAccepted)
	res := c.do(http.MethodPost, "/api/users/loginWithCode/una@example.com", map[string]string{"loginCode": a.LatestCode(t, "una@example.com", "sign-in code")})
	expect(t, res, http.StatusOK)
	res = c.do(http.MethodPost, "/api/payments/create", map[string]string{"amount": "10", "asset": "USDT", "network": "TRC20"})
	expect(t, res, http.StatusForbidden)
	if e := decodeError(t, res); e.Message != "Please verify your email address before making a deposit." {
		t.Fatalf("unverified: %+v", e)
	}
}

func TestConcurrentDepositDecisionsDecideOnce(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	sam, _ := a.member(t, "sam@example.com", "author")
	ada, _ := a.member(t, "ada@example.com", "admin")
	d := createUSDT(t, investor, "40", "")

	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i, c := range []*client{sam, ada} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				statuses[i] = c.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "40"}).status
			} else {
				statuses[i] = c.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d.TransactionID, "notes": "Nothing arrived"}).status
			}
		}()
	}
	wg.Wait()
	if !(statuses[0] == http.StatusOK && statuses[1] == http.StatusConflict) && !(statuses[0] == http.StatusConflict && statuses[1] == http.StatusOK) {
		t.Fatalf("statuses %v, want one 200 and one 409", statuses)
	}
	decided := len(a.MailsTo(t, "ivy@example.com", "was confirmed")) + len(a.MailsTo(t, "ivy@example.com", "was not confirmed"))
	if decided != 1 {
		t.Fatalf("%d decision mails, want 1", decided)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE stream_id = $1 AND type IN ('account.deposit_confirmed', 'account.deposit_rejected')`,
		"account-"+investorID(t, a, investor)); n != 1 {
		t.Fatalf("%d decision events, want 1", n)
	}
}

func investorID(t *testing.T, a *app, c *client) string {
	t.Helper()
	return decodeUser(t, c.do(http.MethodGet, "/api/users/getUser", nil)).ID
}

func TestCreateDepositIsIdempotent(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	body := map[string]string{"amount": "75.25", "asset": "USDT", "network": "TRC20", "txHash": testHash("feed")}
	first := investor.withKey("dep-1", http.MethodPost, "/api/payments/create", body)
	expect(t, first, http.StatusOK)
	again := investor.withKey("dep-1", http.MethodPost, "/api/payments/create", body)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || first.header.Get("Idempotency-Hit") != "" {
		t.Fatalf("headers: first %v, again %v", first.header, again.header)
	}
	if f, s := decodeJSON[depositJSON](t, first), decodeJSON[depositJSON](t, again); f.TransactionID != s.TransactionID || f.TransactionID == "" {
		t.Fatalf("transaction ids %q and %q", f.TransactionID, s.TransactionID)
	}
	if n := a.count(t, `SELECT count(*) FROM money_deposit_refs`); n != 1 {
		t.Fatalf("%d deposits recorded, want 1", n)
	}
}

func TestATransactionHashIsClaimedOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	oscar, _ := a.member(t, "oscar@example.com", "subscriber")
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i, c := range []*client{ivy, oscar} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = c.do(http.MethodPost, "/api/payments/create",
				map[string]string{"amount": "10", "asset": "USDT", "network": "TRC20", "txHash": testHash("same")}).status
		}()
	}
	wg.Wait()
	if !(statuses[0] == http.StatusOK && statuses[1] == http.StatusConflict) && !(statuses[0] == http.StatusConflict && statuses[1] == http.StatusOK) {
		t.Fatalf("statuses %v, want one 200 and one 409", statuses)
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.deposit_requested'`); n != 1 {
		t.Fatalf("%d deposit events, want 1 (the refused request rolled back)", n)
	}
}

package money_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"clearvest/app/accounts"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/clock"
	dmoney "clearvest/domain/money"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/platform/config"
	"clearvest/projections"
	"clearvest/projections/investments"
)

// maturityEnv is the accounts environment with the investments read model and the money tables.
func maturityEnv(t *testing.T) *accountstest.Env {
	t.Helper()
	return accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		return []projections.Projection{investments.New(codec)}
	}, money.Migrations))
}

func moneyService(t *testing.T, env *accountstest.Env, pool *pgxpool.Pool, commands *command.Runner, clk clock.Clock) *money.Service {
	t.Helper()
	fee, err := config.ParseWithdrawalFee(config.DefaultWithdrawalFee)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := money.New(money.Config{PublicURL: accountstest.PublicURL, WithdrawalFee: fee},
		money.Deps{Pool: pool, Commands: commands, Sender: env.Sender, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// dueAccounts appends the money streams of n accounts, each with one active $100.00
// investment, the i-th ending i seconds after base, and returns their user ids in that order.
// The first of them are the users named by registered, the others are not registered users:
// the job pays them without e-mail.
func dueAccounts(t *testing.T, env *accountstest.Env, n int, base time.Time, registered ...string) []string {
	t.Helper()
	ctx := context.Background()
	terms := account.Terms{PlanID: "basic", PlanVersion: 1, PlanName: "Basic", TermDays: 30, TermRate: "0.0125",
		Min: dmoney.MustParse("100"), Max: dmoney.MustParse("1000")}
	ids := make([]string, n)
	var batch []eventstore.StreamAppend
	for i := range ids {
		ids[i] = uuid.Must(uuid.NewV7()).String()
		if i < len(registered) {
			ids[i] = registered[i]
		}
		end := base.Add(time.Duration(i) * time.Second)
		start := end.AddDate(0, 0, -30)
		stream := eventstore.NewStreamID(account.StreamCategory, ids[i])
		var events []eventstore.NewEvent
		for _, e := range []aggregate.Event{
			account.DepositRequested{DepositID: "d-" + ids[i], TransactionID: fmt.Sprintf("TX-%d", i), Amount: dmoney.MustParse("100"),
				Asset: "USDT", Network: "TRC20", OnChainAmount: "100", USDRate: "1", At: start},
			account.DepositConfirmed{DepositID: "d-" + ids[i], Received: dmoney.MustParse("100"), StaffID: "staff", At: start},
			account.InvestmentRequested{InvestmentID: "i-" + ids[i], Terms: terms, Amount: dmoney.MustParse("100"), At: start},
			account.InvestmentActivated{InvestmentID: "i-" + ids[i], Amount: dmoney.MustParse("100"), Return: dmoney.MustParse("1.25"),
				Start: start, End: end, StaffID: "staff"},
		} {
			ne, err := env.Codec.EncodeFor(stream, e, eventstore.Metadata{})
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, ne)
		}
		batch = append(batch, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: events})
		if len(batch) == 100 || i == n-1 {
			if _, err := env.Store.Append(ctx, batch...); err != nil {
				t.Fatal(err)
			}
			batch = nil
		}
	}
	env.CatchUp(t)
	return ids
}

// TestMaturityPaysEveryoneWhenTheOldestAccountsFail has 600 accounts due, of which the 500 that
// fell due first cannot be settled. The pass pays the other 100 all the same, parks the 500
// (metric, /readyz detail, one alert to the admin per parking), leaves them alone until their
// retry time, and pays them once they settle.
func TestMaturityPaysEveryoneWhenTheOldestAccountsFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := maturityEnv(t)
	if _, err := env.Accounts.CreateUser(ctx, accounts.CreateUserInput{Name: "Ada Admin", Email: "ada@example.com",
		Password: "correct horse battery staple 42", Role: "admin", Verified: true}); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	ids := dueAccounts(t, env, 600, base)
	bad := map[string]bool{}
	for _, id := range ids[:500] {
		bad[id] = true
	}
	clk := clock.NewManual(base.Add(time.Hour))
	svc := moneyService(t, env, env.Pool, env.Commands, clk)
	svc.FailSettling(func(userID string) error {
		if bad[userID] {
			return errors.New("this account cannot be settled")
		}
		return nil
	})
	job := svc.MaturityJob(time.Hour)
	reg := prometheus.NewRegistry()
	if err := job.Register(reg); err != nil {
		t.Fatal(err)
	}

	paid, err := job.RunOnce(ctx)
	if err != nil || paid != 100 {
		t.Fatalf("first pass: paid %d, %v; want the 100 accounts that can be settled", paid, err)
	}
	for _, id := range ids[500:] {
		acc, err := command.Load(ctx, env.Commands, eventstore.NewStreamID(account.StreamCategory, id), account.NewFor(id))
		if err != nil {
			t.Fatal(err)
		}
		if inv, _ := acc.Investment("i-" + id); inv.Status != account.StatusEnded || acc.Available().String() != "101.25" {
			t.Fatalf("account %s after the pass: %s, available %s", id, inv.Status, acc.Available())
		}
	}
	parked, err := svc.ParkedAccounts(ctx)
	if err != nil || len(parked) != 500 {
		t.Fatalf("parked: %d, %v", len(parked), err)
	}
	for _, p := range parked {
		if !bad[p.UserID] || p.Failures != 1 || p.Error != "this account cannot be settled" || !p.RetryAt.After(clk.Now()) {
			t.Fatalf("parked: %+v", p)
		}
	}
	if g := testutil.ToFloat64(job.ParkedGauge()); g != 500 {
		t.Errorf("parked gauge %v, want 500", g)
	}
	if f := testutil.ToFloat64(job.FailureCounter()); f != 500 {
		t.Errorf("failures counter %v, want 500", f)
	}
	if d, err := svc.MaturityDetail(ctx); err != nil || d != "maturity: 500 accounts could not be settled and are parked" {
		t.Errorf("readiness detail %q, %v", d, err)
	}
	alerts := env.MailsTo(t, "ada@example.com", "An account's maturity payout is stuck")
	if len(alerts) != 500 || !strings.Contains(alerts[0].Text, "this account cannot be settled") {
		t.Fatalf("%d alerts; first: %+v", len(alerts), alerts[:min(1, len(alerts))])
	}

	// Before the retry time, a pass leaves them parked and alerts nobody again.
	if paid, err := job.RunOnce(ctx); err != nil || paid != 0 {
		t.Fatalf("second pass: paid %d, %v", paid, err)
	}
	if f := testutil.ToFloat64(job.FailureCounter()); f != 500 {
		t.Errorf("failures counter %v after a pass before the retry time", f)
	}

	// Fixed, and past the retry time: they are paid and leave the list.
	svc.FailSettling(nil)
	clk.Advance(2 * time.Minute)
	if paid, err := job.RunOnce(ctx); err != nil || paid != 500 {
		t.Fatalf("pass after the fix: paid %d, %v", paid, err)
	}
	if parked, err := svc.ParkedAccounts(ctx); err != nil || len(parked) != 0 {
		t.Fatalf("parked after the fix: %d, %v", len(parked), err)
	}
	if g := testutil.ToFloat64(job.ParkedGauge()); g != 0 {
		t.Errorf("parked gauge %v after the fix", g)
	}
	if d, err := svc.MaturityDetail(ctx); err != nil || d != "" {
		t.Errorf("readiness detail after the fix %q, %v", d, err)
	}
	if alerts := env.MailsTo(t, "ada@example.com", "An account's maturity payout is stuck"); len(alerts) != 500 {
		t.Errorf("%d alerts after the fix, want still 500", len(alerts))
	}
}

// TestMaturityRunsFinishOnAPoolOfTwo runs two passes at once, as two serve processes would, on a
// pool of two connections. Neither may hold a connection while waiting for another, or both
// would wait for ever; the deadline turns that into a failure.
func TestMaturityRunsFinishOnAPoolOfTwo(t *testing.T) {
	t.Parallel()
	env := maturityEnv(t)
	base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	// A quarter of them belong to registered investors, whose identity the pass reads and mails.
	var registered []string
	for i := range 10 {
		u, err := env.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{Name: "Ivy Investor",
			Email: fmt.Sprintf("ivy%d@example.com", i), Password: "correct horse battery staple 42", Role: "subscriber", Verified: true})
		if err != nil {
			t.Fatal(err)
		}
		registered = append(registered, u.ID)
	}
	ids := dueAccounts(t, env, 40, base, registered...)
	cfg := env.Pool.Config().Copy()
	// Each process's event store keeps one connection for LISTEN once it has announced an
	// append: two of the four are theirs, and the two passes share the other two.
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	clk := clock.NewManual(base.Add(time.Hour))
	var jobs [2]*money.MaturityJob
	for i := range jobs {
		store := postgres.New(pool)
		t.Cleanup(store.Close)
		commands := command.NewRunner(store, env.Codec)
		jobs[i] = moneyService(t, env, pool, commands, clk).MaturityJob(time.Hour)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var paid [2]int
	var errs [2]error
	for i, job := range jobs {
		wg.Go(func() { paid[i], errs[i] = job.RunOnce(ctx) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || paid[0]+paid[1] != len(ids) {
		t.Fatalf("two passes on a pool of two: paid %v, errors %v", paid, errs)
	}
}

// blockSettling makes svc's settlements wait until release is closed; the first account it is
// given is sent on the returned channel.
func blockSettling(svc *money.Service, release <-chan struct{}) <-chan string {
	entered := make(chan string, 1)
	svc.FailSettling(func(userID string) error {
		select {
		case entered <- userID:
		default:
		}
		<-release
		return nil
	})
	return entered
}

// recordSettling makes svc note every account it is asked to settle.
func recordSettling(svc *money.Service) func() map[string]bool {
	var mu sync.Mutex
	seen := map[string]bool{}
	svc.FailSettling(func(userID string) error {
		mu.Lock()
		defer mu.Unlock()
		seen[userID] = true
		return nil
	})
	return func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}

// twoProcesses returns the money services of two serve processes on env's database: each with
// its own pool, event store and command runner.
func twoProcesses(t *testing.T, env *accountstest.Env, clk clock.Clock) [2]*money.Service {
	t.Helper()
	var out [2]*money.Service
	for i := range out {
		pool, err := pgxpool.NewWithConfig(context.Background(), env.Pool.Config())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		store := postgres.New(pool)
		t.Cleanup(store.Close)
		out[i] = moneyService(t, env, pool, command.NewRunner(store, env.Codec), clk)
	}
	return out
}

// maturedOnce fails unless every one of ids had its investment matured by exactly one event.
func maturedOnce(t *testing.T, env *accountstest.Env, ids []string) {
	t.Helper()
	streams := make([]string, len(ids))
	for i, id := range ids {
		streams[i] = string(eventstore.NewStreamID(account.StreamCategory, id))
	}
	var events, accounts int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT stream_id) FROM events
		WHERE type = 'account.investment_matured' AND stream_id = ANY($1)`, streams).Scan(&events, &accounts); err != nil {
		t.Fatal(err)
	}
	if events != len(ids) || accounts != len(ids) {
		t.Fatalf("%d maturity events on %d accounts, want one on each of %d", events, accounts, len(ids))
	}
}

// TestMaturityPassesInTwoProcessesShareTheWork holds the first pass inside its first claim and
// runs a second process's pass meanwhile: it must pass by exactly the accounts the first has
// claimed and settle all the others, and every investment is paid once.
func TestMaturityPassesInTwoProcessesShareTheWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := maturityEnv(t)
	base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	ids := dueAccounts(t, env, 100, base)
	clk := clock.NewManual(base.Add(time.Hour))
	svcs := twoProcesses(t, env, clk)
	first, err := investments.DueAccountsAfter(ctx, env.Pool, clk.Now(), "", money.MaturityClaim)
	if err != nil {
		t.Fatal(err)
	}

	seen := recordSettling(svcs[1])
	finish := stallFirstPass(svcs[0]) // the first pass holds its first claim

	paid1, err := svcs[1].MaturityJob(time.Hour).RunOnce(ctx)
	if err != nil || paid1 != len(ids)-money.MaturityClaim {
		t.Errorf("the second pass paid %d, %v; want all but the %d the first has claimed", paid1, err, money.MaturityClaim)
	}
	got := seen()
	for _, id := range first {
		if got[id] {
			t.Errorf("the second pass settled %s, claimed by the first", id)
		}
	}
	if len(got) != len(ids)-money.MaturityClaim {
		t.Errorf("the second pass settled %d accounts, want %d", len(got), len(ids)-money.MaturityClaim)
	}
	if paid0, err0 := finish(); err0 != nil || paid0 != money.MaturityClaim {
		t.Errorf("the first pass paid %d, %v; want the %d it claimed", paid0, err0, money.MaturityClaim)
	}
	maturedOnce(t, env, ids)
}

// stallFirstPass starts a pass of svc and returns once it holds its first claim, stopped inside
// it; finish lets it go on and returns what it paid.
func stallFirstPass(svc *money.Service) (finish func() (int, error)) {
	release := make(chan struct{})
	entered := blockSettling(svc, release)
	var paid int
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		paid, err = svc.MaturityJob(time.Hour).RunOnce(context.Background())
	}()
	<-entered
	return func() (int, error) {
		close(release)
		<-done
		return paid, err
	}
}

// TestMaturityClaimsOfADeadPassLapse has a pass claim accounts and stop, its session then ended
// by the server as when its process dies: another process's pass settles everything, the
// claimed accounts included, and when the first pass goes on it pays nothing twice.
func TestMaturityClaimsOfADeadPassLapse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := maturityEnv(t)
	base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	ids := dueAccounts(t, env, 40, base)
	clk := clock.NewManual(base.Add(time.Hour))
	svcs := twoProcesses(t, env, clk)

	finish := stallFirstPass(svcs[0])

	// While the claims are held, the other process passes them by.
	seen := recordSettling(svcs[1])
	paid1, err := svcs[1].MaturityJob(time.Hour).RunOnce(ctx)
	if err != nil || paid1 != len(ids)-money.MaturityClaim {
		t.Fatalf("a pass beside the held claims paid %d, %v; want %d", paid1, err, len(ids)-money.MaturityClaim)
	}
	// The claimant's session ends; pg_terminate_backend waits until its backend has exited,
	// and its locks with it.
	var terminated int
	if err := env.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity
		WHERE application_name LIKE '% maturity claims' AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory'
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND classid = $1)`,
		money.MaturityLockNamespace).Scan(&terminated); err != nil || terminated != 1 {
		t.Fatalf("ending the claim session: %d ended, %v", terminated, err)
	}
	paid1, err = svcs[1].MaturityJob(time.Hour).RunOnce(ctx)
	if err != nil || paid1 != money.MaturityClaim {
		t.Fatalf("a pass after the claimant died paid %d, %v; want the %d it had claimed", paid1, err, money.MaturityClaim)
	}
	if len(seen()) != len(ids) {
		t.Fatalf("the surviving process settled %d accounts, want %d", len(seen()), len(ids))
	}
	if paid0, err0 := finish(); err0 != nil || paid0 != 0 {
		t.Errorf("the stalled pass, going on, paid %d, %v; want nothing", paid0, err0)
	}
	maturedOnce(t, env, ids)
}

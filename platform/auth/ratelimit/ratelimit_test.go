package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"clearvest/domain/clock"
	"clearvest/domain/domainerr"
	"clearvest/platform/auth"
	"clearvest/platform/auth/internal/authtest"
	"clearvest/platform/auth/ratelimit"
)

// start is on a window boundary for every window used here, so the arithmetic is readable.
var start = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func TestHitFixedWindow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start.Add(15 * time.Second))
	l := ratelimit.New(pool, c)
	for i := 1; i <= 3; i++ {
		if ok, wait, err := l.Hit(ctx, "k", 3, time.Minute); !ok || wait != 0 || err != nil {
			t.Fatalf("hit %d: %v, %v, %v", i, ok, wait, err)
		}
	}
	ok, wait, err := l.Hit(ctx, "k", 3, time.Minute)
	if ok || err != nil || wait != 45*time.Second {
		t.Fatalf("hit 4: allowed %v, retry after %v, %v; want refused for 45s", ok, wait, err)
	}
	if ok, _, _ := l.Hit(ctx, "other", 3, time.Minute); !ok {
		t.Error("a key shares another key's count")
	}
	// Another process (another Limiter on the same database) sees the same count.
	if ok, _, _ := ratelimit.New(pool, c).Hit(ctx, "k", 3, time.Minute); ok {
		t.Error("a second limiter does not share the count")
	}
	c.Set(start.Add(time.Minute))
	if ok, _, _ := l.Hit(ctx, "k", 3, time.Minute); !ok {
		t.Error("the next window still refuses")
	}
}

func TestConcurrentHitsNeverExceedTheLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	l := ratelimit.New(pool, clock.NewManual(start))
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			ok, _, err := l.Hit(ctx, "burst", 10, time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 10 {
		t.Errorf("%d of 40 simultaneous hits allowed, limit 10", allowed.Load())
	}
}

func TestBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	l := ratelimit.New(pool, c)
	if d, err := l.Blocked(ctx, "b"); d != 0 || err != nil {
		t.Fatalf("Blocked(never blocked) = %v, %v", d, err)
	}
	_ = l.Block(ctx, "b", 4*time.Minute)
	_ = l.Block(ctx, "b", time.Minute) // a shorter block does not shorten a longer one
	if d, _ := l.Blocked(ctx, "b"); d != 4*time.Minute {
		t.Errorf("Blocked = %v, want 4m", d)
	}
	c.Advance(4 * time.Minute)
	if d, _ := l.Blocked(ctx, "b"); d != 0 {
		t.Errorf("Blocked after it ended = %v", d)
	}
	_ = l.Block(ctx, "b", time.Minute)
	_ = l.Reset(ctx, "b")
	if d, _ := l.Blocked(ctx, "b"); d != 0 {
		t.Errorf("Blocked after Reset = %v", d)
	}
}

func TestExpiredRowsAreSwept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	c := clock.NewManual(start)
	l := ratelimit.New(pool, c)
	for i := range 5 {
		_, _, _ = l.Hit(ctx, fmt.Sprint("old-", i), 10, time.Minute)
	}
	_ = l.Block(ctx, "old-block", time.Minute)
	_, _, _ = l.Hit(ctx, "long", 10, time.Hour)
	count := func() int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM rate_limits`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	c.Advance(time.Minute)
	_, _, _ = l.Hit(ctx, "new", 10, time.Minute)
	if n := count(); n != 8 {
		t.Errorf("%d rows a minute later; the sweep ran before its interval", n)
	}
	c.Advance(5 * time.Minute)
	_, _, _ = l.Hit(ctx, "newer", 10, time.Minute)
	// Left: "long" (its hour is not over), "newer"; "new" expired too.
	if n := count(); n != 2 {
		t.Errorf("%d rows after the sweep, want 2", n)
	}
}

func TestLimitError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		wait time.Duration
		msg  string
	}{
		{10 * time.Second, "Too many attempts. Please try again in 1 minute."},
		{time.Minute, "Too many attempts. Please try again in 1 minute."},
		{61 * time.Second, "Too many attempts. Please try again in 2 minutes."},
		{4 * time.Minute, "Too many attempts. Please try again in 4 minutes."},
	} {
		e := &ratelimit.LimitError{Wait: tc.wait}
		if e.Error() != tc.msg || e.RetryAfter() != tc.wait || e.Kind() != domainerr.RateLimited {
			t.Errorf("LimitError{%v} = %q, %v, %v", tc.wait, e.Error(), e.RetryAfter(), e.Kind())
		}
		var err error = e
		if !errors.Is(err, ratelimit.ErrLimited) {
			t.Error("a LimitError does not match ErrLimited")
		}
		if kind, _, _ := domainerr.KindOf(fmt.Errorf("login: %w", err)); kind != domainerr.RateLimited {
			t.Errorf("KindOf = %v", kind)
		}
	}
}

type policyFixture struct {
	clock  *clock.Manual
	policy *ratelimit.Policy
}

func newPolicy(t *testing.T) policyFixture {
	t.Helper()
	c := clock.NewManual(start)
	return policyFixture{clock: c, policy: ratelimit.NewPolicy(ratelimit.New(authtest.NewDB(t), c))}
}

func wantLimited(t *testing.T, what string, err error, wait time.Duration) {
	t.Helper()
	var le *ratelimit.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("%s: %v, want a LimitError", what, err)
	}
	if wait != 0 && le.RetryAfter() != wait {
		t.Fatalf("%s: retry after %v, want %v", what, le.RetryAfter(), wait)
	}
}

func TestLoginPerIP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPolicy(t)
	for i := range 30 {
		if err := f.policy.Login(ctx, fmt.Sprintf("user%d@example.com", i), "198.51.100.4"); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	wantLimited(t, "attempt 31 from one address", f.policy.Login(ctx, "fresh@example.com", "198.51.100.4"), time.Minute)
	if err := f.policy.Login(ctx, "fresh@example.com", "198.51.100.5"); err != nil {
		t.Errorf("another address is limited: %v", err)
	}
	// An IPv6 /64 is one source.
	for i := range 30 {
		if err := f.policy.Login(ctx, "v6@example.com", fmt.Sprintf("2001:db8:1:2::%x", i+1)); err != nil {
			t.Fatalf("v6 attempt %d: %v", i+1, err)
		}
	}
	wantLimited(t, "attempt 31 from one /64", f.policy.Login(ctx, "v6@example.com", "2001:db8:1:2:ffff::1"), 0)
	if err := f.policy.Login(ctx, "v6@example.com", "2001:db8:1:3::1"); err != nil {
		t.Errorf("the next /64 is limited: %v", err)
	}
	f.clock.Advance(time.Minute)
	if err := f.policy.Login(ctx, "fresh@example.com", "198.51.100.4"); err != nil {
		t.Errorf("a minute later: %v", err)
	}
}

func TestLoginBackoff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPolicy(t)
	const who, ip = "Victim@Example.com", "192.0.2.1"
	fail := func() {
		t.Helper()
		if err := f.policy.Login(ctx, who, ip); err != nil {
			t.Fatalf("attempt refused at %v: %v", f.clock.Now().Sub(start), err)
		}
		if err := f.policy.LoginFailed(ctx, who); err != nil {
			t.Fatal(err)
		}
	}
	for range 9 {
		fail()
	}
	if err := f.policy.Login(ctx, who, ip); err != nil {
		t.Fatalf("after 9 failures: %v", err)
	}
	if err := f.policy.LoginFailed(ctx, who); err != nil { // the 10th
		t.Fatal(err)
	}
	// The account key ignores case: the attacker cannot dodge it by changing it.
	wantLimited(t, "after 10 failures", f.policy.Login(ctx, "victim@example.com", "192.0.2.99"), time.Minute)
	f.clock.Advance(time.Minute)
	fail() // the 11th: two minutes
	f.clock.Advance(time.Minute)
	wantLimited(t, "one minute into a two-minute back-off", f.policy.Login(ctx, who, ip), time.Minute)
	f.clock.Advance(time.Minute)
	fail() // the 12th: four minutes
	wantLimited(t, "after 12 failures", f.policy.Login(ctx, who, ip), 4*time.Minute)
	if got := (&ratelimit.LimitError{Wait: 4 * time.Minute}).Error(); got != "Too many attempts. Please try again in 4 minutes." {
		t.Errorf("message = %q", got)
	}

	f.clock.Advance(4 * time.Minute)
	if err := f.policy.LoginSucceeded(ctx, who); err != nil {
		t.Fatal(err)
	}
	for range 9 {
		fail()
	}
	if err := f.policy.Login(ctx, who, ip); err != nil {
		t.Errorf("success did not reset the failures: %v", err)
	}
	if err := f.policy.Login(ctx, "bystander@example.com", ip); err != nil {
		t.Errorf("another account backs off too: %v", err)
	}
}

func TestLoginHourlyCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPolicy(t)
	for i := range 100 {
		if err := f.policy.Login(ctx, "target@example.com", fmt.Sprintf("10.0.%d.%d", i/200, i%200)); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	wantLimited(t, "attempt 101 in an hour from a botnet", f.policy.Login(ctx, "target@example.com", "10.9.9.9"), time.Hour)
	f.clock.Advance(time.Hour)
	if err := f.policy.Login(ctx, "target@example.com", "10.9.9.9"); err != nil {
		t.Errorf("the next hour: %v", err)
	}
}

func TestCodeRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPolicy(t)
	for i := range 5 {
		if err := f.policy.CodeRequest(ctx, "a@example.com", "192.0.2.10"); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	wantLimited(t, "sixth code for one account in an hour", f.policy.CodeRequest(ctx, "a@example.com", "192.0.2.11"), time.Hour)
	// 192.0.2.10 has made 5 requests; 14 more and then one make 20, the limit per address.
	for i := range 14 {
		if err := f.policy.CodeRequest(ctx, fmt.Sprintf("u%d@example.com", i), "192.0.2.10"); err != nil {
			t.Fatalf("request %d from one address: %v", i+6, err)
		}
	}
	if err := f.policy.CodeRequest(ctx, "u99@example.com", "192.0.2.10"); err != nil {
		t.Fatalf("the 20th request from one address: %v", err)
	}
	wantLimited(t, "the 21st request from one address", f.policy.CodeRequest(ctx, "u100@example.com", "192.0.2.10"), time.Hour)
}

// TestTrustedBrowserIsNotLockedOutByFailuresElsewhere: an attacker failing against an account
// puts the account into back-off and uses up its hourly cap, but the owner's own browser (a
// trusted-device cookie) counts on its own and still gets in; its own failures back it off.
func TestTrustedBrowserIsNotLockedOutByFailuresElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newPolicy(t)
	const admin, owner, other = "admin@example.com", "owners-device-cookie", "another-device-cookie"
	for i := range 100 {
		ip := fmt.Sprintf("10.0.%d.%d", i/200, i%200) // a botnet: no address reaches its own limit
		if err := f.policy.Login(ctx, admin, ip); err != nil {
			break // backing off already
		}
		if err := f.policy.LoginFailed(ctx, admin); err != nil {
			t.Fatal(err)
		}
	}
	wantLimited(t, "the account after the attack", f.policy.Login(ctx, admin, "192.0.2.1"), 0)
	if err := f.policy.LoginFromTrustedDevice(ctx, owner, "192.0.2.1"); err != nil {
		t.Fatalf("the owner's trusted browser is locked out by failures from elsewhere: %v", err)
	}
	if err := f.policy.TrustedDeviceSucceeded(ctx, owner); err != nil {
		t.Fatal(err)
	}
	wantLimited(t, "the account after the owner signed in", f.policy.Login(ctx, admin, "192.0.2.2"), 0)

	// A trusted browser's own failures back it off, and only it.
	for i := range 10 {
		if err := f.policy.LoginFromTrustedDevice(ctx, other, "192.0.2.3"); err != nil {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
		if err := f.policy.TrustedDeviceFailed(ctx, other); err != nil {
			t.Fatal(err)
		}
	}
	wantLimited(t, "a trusted browser after 10 failures of its own", f.policy.LoginFromTrustedDevice(ctx, other, "192.0.2.3"), time.Minute)
	if err := f.policy.LoginFromTrustedDevice(ctx, owner, "192.0.2.1"); err != nil {
		t.Errorf("another trusted browser backs off too: %v", err)
	}
	// The per-address limit still applies to trusted browsers.
	for i := range 30 {
		if err := f.policy.Login(ctx, fmt.Sprintf("spray%d@example.com", i), "198.51.100.9"); err != nil {
			t.Fatalf("spray attempt %d: %v", i+1, err)
		}
	}
	wantLimited(t, "a trusted browser on an address over its limit", f.policy.LoginFromTrustedDevice(ctx, owner, "198.51.100.9"), 0)
}

// TestAccountKeysNameEveryRowOfAnAccount: whatever the policy counted for an account, Forget of
// AccountKeys removes it, and nothing of another account; no row holds the address itself.
func TestAccountKeysNameEveryRowOfAnAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := authtest.NewDB(t)
	p := ratelimit.NewPolicy(ratelimit.New(pool, clock.NewManual(start)))
	for _, account := range []string{"Leaving@Example.com", "staying@example.com"} {
		for range p.FreeFailures {
			if err := p.Login(ctx, account, "198.51.100.7"); err != nil {
				t.Fatal(err)
			}
			if err := p.LoginFailed(ctx, account); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.CodeRequest(ctx, account, "198.51.100.7"); err != nil {
			t.Fatal(err)
		}
	}
	count := func(query string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, query, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM rate_limits WHERE key ILIKE '%example.com%' OR key LIKE '%198.51.100.7%'`); n != 0 {
		t.Errorf("%d rows name an address in the clear", n)
	}
	mine := ratelimit.AccountKeys(" leaving@example.COM")
	if n := count(`SELECT count(*) FROM rate_limits WHERE key = ANY($1)`, mine); n < 4 {
		t.Fatalf("AccountKeys names %d rows, want the failures, back-off, attempts and code requests", n)
	}
	others := count(`SELECT count(*) FROM rate_limits WHERE NOT key = ANY($1)`, mine)
	if err := auth.Exec(ctx, pool, ratelimit.ForgetStatement(mine...)); err != nil {
		t.Fatal(err)
	}
	if n := count(`SELECT count(*) FROM rate_limits WHERE key = ANY($1)`, mine); n != 0 {
		t.Errorf("%d rows of the account left after Forget", n)
	}
	if n := count(`SELECT count(*) FROM rate_limits`); n != others {
		t.Errorf("Forget left %d rows, want the %d of the other account and the addresses", n, others)
	}
	if err := p.Login(ctx, "leaving@example.com", "203.0.113.1"); err != nil {
		t.Errorf("the account's back-off survived Forget: %v", err)
	}
}

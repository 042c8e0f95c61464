package money

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/platform/mail"
	"clearvest/projections/investments"
)

// maturityPage is how many due accounts the job reads at a time; it pages on until none are left.
const maturityPage = 500

// Parked accounts are tried again after a wait that doubles with each failure, from a minute up
// to an hour: a fault that clears (a deploy, a fixed event) is retried soon, one that does not
// costs one attempt an hour.
const (
	parkFirstWait = time.Minute
	parkMaxWait   = time.Hour
)

// maturityWorkers is how many accounts a pass settles at once: enough to fill the command
// runner's batches, well under the pool's 20 connections that requests share.
const maturityWorkers = 8

// MaturityJob pays out investments whose end date has passed. Every serve process runs one: the
// read model names the accounts with something due, and each is settled by SettleDue through
// the command runner, where optimistic concurrency and "nothing due raises nothing" make a
// second settlement of the same account harmless.
//
// Passes in several processes share the work: a pass claims a few due accounts at a time with
// advisory locks (claims) and passes by those another pass holds, so two processes settle
// different accounts instead of walking the same ones in the same order and colliding. A claim
// lapses with its session when its process dies; the next pass settles what it held.
//
// A pass pays everyone who is due: it pages through the due accounts in user id order, so an
// account that fails is passed over, never in front of the others. A failing account is parked
// (money_maturity_parked) with its error, counted in the metrics, reported as a detail of
// /readyz, and staff are e-mailed once when it is parked; it is tried again later, waiting
// longer after each failure, and leaves the list when it settles.
//
// Up to maturityWorkers claimed accounts are settled at once, so their commands share appends
// (group commit) rather than each waiting for its own round trip: one account at a time, the job
// settled about a thousand investments a second whatever the machine, waiting on the database.
// Each account's steps hold one pool connection at a time and return it before the next: its
// command (which reads its investor first), its parking. The claims have a connection of their
// own. Several passes at once, in one process or many, cannot starve each other of connections.
type MaturityJob struct {
	svc   *Service
	every time.Duration
	wake  chan struct{}
	page  int

	paid     prometheus.Counter
	failures prometheus.Counter
	parked   prometheus.Gauge
}

// MaturityJob returns the job; it polls every interval (and whenever Wake is called).
func (s *Service) MaturityJob(every time.Duration) *MaturityJob {
	if every <= 0 {
		every = 5 * time.Second
	}
	return &MaturityJob{
		svc: s, every: every, wake: make(chan struct{}, 1), page: maturityPage,
		paid: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clearvest_maturity_investments_paid_total", Help: "Investments the maturity job matured.",
		}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clearvest_maturity_account_failures_total", Help: "Attempts of the maturity job to settle an account that failed.",
		}),
		parked: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "clearvest_maturity_parked_accounts", Help: "Accounts with something due that the maturity job could not settle, as of its last pass.",
		}),
	}
}

// Register adds the job's metrics to reg.
func (j *MaturityJob) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{j.paid, j.failures, j.parked} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Wake makes the job run a pass now, for example after the development test clock moved.
func (j *MaturityJob) Wake() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// RunOnce settles every account the read model shows with an active investment at or past its
// end by the app clock, except parked accounts whose retry time has not come and accounts a
// pass in another process has claimed (it settles those), and returns how many investments it
// paid out. An account that fails is parked and the others go on; the error returned is only
// one that stops the whole pass (the read model cannot be read, no claim can be taken, ctx
// ended).
func (j *MaturityJob) RunOnce(ctx context.Context) (int, error) {
	now := j.svc.clock.Now()
	parked, err := j.svc.parkedAccounts(ctx)
	if err != nil {
		return 0, err
	}
	held := newClaims(j.svc.pool)
	defer held.close()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex // guards parked and n
		n       int
		workers = make(chan struct{}, maturityWorkers)
		due     = map[string]bool{}
	)
	settle := func(userID string, wasParked bool) {
		settled, err := j.svc.SettleDue(ctx, userID)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			j.failures.Inc()
			j.svc.log.WarnContext(ctx, "maturity: settling due investments failed; the account is parked", "user", userID, "err", err)
			if err := j.svc.park(ctx, userID, err, now); err != nil {
				j.svc.log.ErrorContext(ctx, "maturity: parking an account failed", "user", userID, "err", err)
			}
			parked[userID] = ParkedAccount{UserID: userID}
			return
		}
		if wasParked {
			if err := j.svc.unpark(ctx, userID); err != nil {
				j.svc.log.WarnContext(ctx, "maturity: an account settled; taking it off the parked list failed", "user", userID, "err", err)
			}
			delete(parked, userID)
		}
		if len(settled.Investments) > 0 {
			j.svc.log.InfoContext(ctx, "investments matured", "user", userID, "count", len(settled.Investments))
		}
		n += len(settled.Investments)
		j.paid.Add(float64(len(settled.Investments)))
	}
	// The workers run on from one claim to the next, and from page to page; a claim is taken
	// once the one before has been handed out.
	err = func() error {
		after := ""
		for {
			users, err := investments.DueAccountsAfter(ctx, j.svc.pool, now, after, j.page)
			if err != nil {
				return err
			}
			var todo []string
			mu.Lock()
			for _, userID := range users {
				due[userID] = true
				if p, ok := parked[userID]; ok && now.Before(p.RetryAt) {
					continue
				}
				todo = append(todo, userID)
			}
			mu.Unlock()
			for len(todo) > 0 {
				ids := todo[:min(len(todo), maturityClaim)]
				todo = todo[len(ids):]
				c, err := held.take(ctx, ids)
				if err != nil {
					return err
				}
				for _, userID := range c.ids {
					mu.Lock()
					_, wasParked := parked[userID]
					mu.Unlock()
					workers <- struct{}{}
					wg.Go(func() {
						defer func() { <-workers }()
						defer c.done(ctx)
						settle(userID, wasParked)
					})
				}
			}
			if len(users) < j.page {
				return nil
			}
			after = users[len(users)-1]
		}
	}()
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return n, err
	}
	// An account settled another way (its investor asked) has nothing due any more.
	for userID := range parked {
		if !due[userID] {
			if err := j.svc.unpark(ctx, userID); err != nil {
				j.svc.log.WarnContext(ctx, "maturity: taking a settled account off the parked list failed", "user", userID, "err", err)
				continue
			}
			delete(parked, userID)
		}
	}
	j.parked.Set(float64(len(parked)))
	return n, nil
}

// Run runs passes until ctx ends.
func (j *MaturityJob) Run(ctx context.Context) {
	t := time.NewTicker(j.every)
	defer t.Stop()
	for {
		if _, err := j.RunOnce(ctx); err != nil && ctx.Err() == nil {
			j.svc.log.Warn("maturity pass", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-j.wake:
		}
	}
}

// ParkedAccount is an account the maturity job could not settle.
type ParkedAccount struct {
	UserID   string
	Failures int
	Error    string
	ParkedAt time.Time
	RetryAt  time.Time
}

// ParkedAccounts lists the accounts the maturity job could not settle, longest parked first.
func (s *Service) ParkedAccounts(ctx context.Context) ([]ParkedAccount, error) {
	rows, err := s.pool.Query(ctx, `SELECT user_id, failures, error, parked_at, retry_at FROM money_maturity_parked ORDER BY parked_at, user_id`)
	if err != nil {
		return nil, fmt.Errorf("money: parked accounts: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ParkedAccount, error) {
		var p ParkedAccount
		err := r.Scan(&p.UserID, &p.Failures, &p.Error, &p.ParkedAt, &p.RetryAt)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("money: parked accounts: %w", err)
	}
	return list, nil
}

// MaturityDetail describes the parked accounts for /readyz, or "" when there are none. It names
// no account: the endpoint is public. A parked account does not make the process unready (it
// would not be fixed by sending traffic elsewhere); it is a detail for whoever looks.
func (s *Service) MaturityDetail(ctx context.Context) (string, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM money_maturity_parked`).Scan(&n); err != nil {
		return "", fmt.Errorf("money: parked accounts: %w", err)
	}
	switch n {
	case 0:
		return "", nil
	case 1:
		return "maturity: 1 account could not be settled and is parked", nil
	default:
		return fmt.Sprintf("maturity: %d accounts could not be settled and are parked", n), nil
	}
}

func (s *Service) parkedAccounts(ctx context.Context) (map[string]ParkedAccount, error) {
	list, err := s.ParkedAccounts(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]ParkedAccount, len(list))
	for _, p := range list {
		out[p.UserID] = p
	}
	return out, nil
}

// parkWait is how long to wait after the failures-th failure in a row.
func parkWait(failures int) time.Duration {
	wait := parkFirstWait
	for i := 1; i < failures && wait < parkMaxWait; i++ {
		wait *= 2
	}
	return min(wait, parkMaxWait)
}

// park records that userID's account failed to settle, in one transaction with the alert to
// the active admins when the account was not parked before: one e-mail per parking, not per
// failure. The alert names the account and the error; the investor is not told (nothing of
// theirs was lost: the investments stay active, and are paid when the account settles).
func (s *Service) park(ctx context.Context, userID string, cause error, now time.Time) error {
	msg := cause.Error()
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var failures int
	var parkedAt time.Time
	err = tx.QueryRow(ctx, `INSERT INTO money_maturity_parked AS p (user_id, failures, error, parked_at, retry_at)
		VALUES ($1, 1, $2, $3, $4)
		ON CONFLICT (user_id) DO UPDATE SET failures = p.failures + 1, error = EXCLUDED.error
		RETURNING failures, parked_at`, userID, msg, now, now.Add(parkFirstWait)).Scan(&failures, &parkedAt)
	if err != nil {
		return fmt.Errorf("money: park %s: %w", userID, err)
	}
	if failures > 1 {
		_, err = tx.Exec(ctx, `UPDATE money_maturity_parked SET retry_at = $2 WHERE user_id = $1`, userID, now.Add(parkWait(failures)))
		if err != nil {
			return fmt.Errorf("money: park %s: %w", userID, err)
		}
		return tx.Commit(ctx)
	}
	if err := s.alertParked(ctx, tx, userID, msg, parkedAt); err != nil {
		// Not parked then: the next pass tries the account, and the alert, again.
		return fmt.Errorf("money: alert staff about %s: %w", userID, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	s.kick()
	return nil
}

// alertParked queues the staff alert of one parking to every active admin.
func (s *Service) alertParked(ctx context.Context, tx pgx.Tx, userID, cause string, parkedAt time.Time) error {
	rows, err := tx.Query(ctx, `SELECT e.email_lower FROM principals p JOIN user_emails e USING (user_id)
		WHERE p.role = 'admin' AND p.status = 'active' ORDER BY e.email_lower`)
	if err != nil {
		return err
	}
	admins, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	data := mail.ComposedData{
		Subject: "An account's maturity payout is stuck",
		Message: strings.Join([]string{
			"The maturity job could not settle the investments due on account " + userID + ", and has parked it. " +
				"Every other account is still being paid.",
			"The error was: " + cause,
			"The job tries the account again on its own, waiting longer after each failure, and takes it off the list once it settles. " +
				"Nothing of the investor's is lost: the investments stay active until they are paid.",
		}, "\n\n"),
	}
	subject, text, html, err := s.tmpl.Render(mail.TemplateComposed, data)
	if err != nil {
		return err
	}
	for _, to := range admins {
		dedupe := fmt.Sprintf("maturity-parked/%s/%d/%s", userID, parkedAt.UnixMicro(), to)
		sql, args, err := mail.EnqueueStatement(ctx, dedupe, mail.Message{To: to, Subject: subject, Text: text, HTML: html}, false)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return err
		}
	}
	return nil
}

// unpark takes an account that settled off the parked list.
func (s *Service) unpark(ctx context.Context, userID string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM money_maturity_parked WHERE user_id = $1`, userID)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("money: unpark %s: %w", userID, err)
	}
	return err
}

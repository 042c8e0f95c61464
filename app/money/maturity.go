package money

import (
	"context"
	"time"

	"clearvest/projections/investments"
)

// maturityBatch bounds the accounts one pass settles; the next pass takes the rest.
const maturityBatch = 500

// MaturityJob pays out investments whose end date has passed. Every serve process runs one: the
// read model names the accounts with something due, and each is settled by SettleDue through
// the command runner, where optimistic concurrency and "nothing due raises nothing" make a
// second process's run over the same account harmless.
type MaturityJob struct {
	svc   *Service
	every time.Duration
	wake  chan struct{}
}

// MaturityJob returns the job; it polls every interval (and whenever Wake is called).
func (s *Service) MaturityJob(every time.Duration) *MaturityJob {
	if every <= 0 {
		every = 5 * time.Second
	}
	return &MaturityJob{svc: s, every: every, wake: make(chan struct{}, 1)}
}

// Wake makes the job run a pass now, for example after the development test clock moved.
func (j *MaturityJob) Wake() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// RunOnce settles every account the read model shows with an active investment at or past its
// end by the app clock, and returns how many investments it paid out. An account that fails is
// logged and left for the next pass; the others go on.
func (j *MaturityJob) RunOnce(ctx context.Context) (int, error) {
	users, err := investments.DueAccounts(ctx, j.svc.pool, j.svc.clock.Now(), maturityBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, userID := range users {
		settled, err := j.svc.SettleDue(ctx, userID)
		if err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			j.svc.log.Warn("settling due investments", "user", userID, "err", err)
			continue
		}
		if len(settled.Investments) > 0 {
			j.svc.log.Info("investments matured", "user", userID, "count", len(settled.Investments))
		}
		n += len(settled.Investments)
	}
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

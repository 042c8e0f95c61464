package mail

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestOutboxBacklogMetrics: a sender registered with metrics exposes how many messages wait and
// how old the oldest is, counting what other processes enqueued and not what is sent or given up.
func TestOutboxBacklogMetrics(t *testing.T) {
	pool := newOutboxDB(t)
	reg := prometheus.NewRegistry()
	NewSender(pool, &recorder{}, WithMetrics(reg), WithLogger(quietLogger()))
	gauge := func(name string) float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() == name {
				return f.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatalf("%s not gathered", name)
		return 0
	}
	if n, age := gauge("clearvest_mail_outbox_pending"), gauge("clearvest_mail_outbox_oldest_pending_seconds"); n != 0 || age != 0 {
		t.Fatalf("empty outbox: pending %v, oldest %vs; want 0, 0", n, age)
	}

	for i := range 4 {
		enqueue(t, pool, "k"+string(rune('a'+i)), outboxMessage(i), false)
	}
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `UPDATE mail_outbox SET created_at = now() - interval '1 hour' WHERE dedupe_key = 'kb'`); err != nil {
		t.Fatal(err)
	}
	// One sent and one given up: neither is backlog, however old.
	if _, err := pool.Exec(ctx, `UPDATE mail_outbox SET status = 'sent', sent_at = now(), created_at = now() - interval '1 day' WHERE dedupe_key = 'kc'`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE mail_outbox SET status = 'failed', created_at = now() - interval '1 day' WHERE dedupe_key = 'kd'`); err != nil {
		t.Fatal(err)
	}
	if n := gauge("clearvest_mail_outbox_pending"); n != 2 {
		t.Errorf("pending %v, want 2", n)
	}
	if age := gauge("clearvest_mail_outbox_oldest_pending_seconds"); age < 3600 || age > 3600+300 {
		t.Errorf("oldest pending %vs, want about an hour", age)
	}
	problems, err := testutil.GatherAndLint(reg, "clearvest_mail_outbox_pending", "clearvest_mail_outbox_oldest_pending_seconds")
	if err != nil || len(problems) > 0 {
		t.Fatalf("lint: %v %v", problems, err)
	}
}

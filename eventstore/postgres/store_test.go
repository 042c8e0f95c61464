package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

func newStore(t *testing.T, opts ...postgres.Option) (*postgres.Store, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, postgres.Migrations); err != nil {
		t.Fatal(err)
	}
	s := postgres.New(pool, append([]postgres.Option{postgres.WithPollInterval(50 * time.Millisecond)}, opts...)...)
	t.Cleanup(s.Close)
	return s, pool
}

func TestConformance(t *testing.T) {
	eventstoretest.Run(t, func(t *testing.T) eventstore.Store {
		s, _ := newStore(t)
		return s
	})
}

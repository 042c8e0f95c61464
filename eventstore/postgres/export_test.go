package postgres

import (
	"context"

	"clearvest/eventstore"
)

// WithBeforeCommit installs a hook that runs inside each append transaction just before commit.
func WithBeforeCommit(fn func(context.Context, []eventstore.Envelope)) Option {
	return func(s *Store) { s.beforeCommit = fn }
}

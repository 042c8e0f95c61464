package main

import (
	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
	"clearvest/pgmigrate"
	"clearvest/projections"
	"clearvest/projections/catalogue"
)

// This file is the one place where the binary learns what exists: every schema, every event
// type, every whole-log check. Keeping the lists together means `migrate`, `serve` and
// `events verify` can never disagree about them.

// allMigrations lists every migration set in the order they must run: a set may refer to tables
// of the sets before it.
func allMigrations() []pgmigrate.Set {
	return []pgmigrate.Set{postgres.Migrations, projections.Migrations}
}

// allProjections lists every read model the runner keeps up to date.
func allProjections() []projections.Projection {
	return []projections.Projection{catalogue.Projection{}}
}

// newRegistry knows every domain event type. Each domain package registers its events here
// (with eventstore.Register and its upcasters); a type missing from this list makes
// `events verify` fail and any aggregate that meets one refuse to load, rather than skip it.
func newRegistry() *eventstore.Registry {
	r := eventstore.NewRegistry()
	return r
}

// logVerifier is a whole-log check run by `events verify` on top of the envelope and codec
// checks: Observe sees every event that decoded, in position order; Finish reports what is wrong
// once the whole log has been seen (for example a trial balance that does not sum to zero).
type logVerifier interface {
	Name() string
	Observe(env eventstore.Envelope, event aggregate.Event) error
	Finish() error
}

// extraVerifiers returns fresh instances of the ledger checks: verifiers carry state across the
// replay, so each run needs its own.
func extraVerifiers() []logVerifier {
	return nil
}

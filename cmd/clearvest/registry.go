package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/accounts"
	"clearvest/app/approvals"
	appbroadcast "clearvest/app/broadcast"
	"clearvest/app/chainaddr"
	"clearvest/app/chainwatch"
	appcommunity "clearvest/app/community"
	appmarket "clearvest/app/marketdata"
	appmoney "clearvest/app/money"
	appplans "clearvest/app/plans"
	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/broadcast"
	"clearvest/domain/chain"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/domain/plan"
	"clearvest/domain/proposal"
	"clearvest/domain/settings"
	"clearvest/domain/support"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
	"clearvest/eventstore/pii"
	"clearvest/eventstore/postgres"
	"clearvest/platform/auth"
	"clearvest/platform/config"
	"clearvest/platform/idempotency"
	"clearvest/platform/mail"
	"clearvest/platform/pgmigrate"
	"clearvest/projections"
	"clearvest/projections/activity"
	"clearvest/projections/audit"
	"clearvest/projections/catalogue"
	"clearvest/projections/history"
	"clearvest/projections/investments"
	"clearvest/projections/ledger"
	"clearvest/projections/plans"
	"clearvest/projections/proposals"
	"clearvest/projections/referrals"
	"clearvest/projections/securitylog"
	"clearvest/projections/testimonials"
	"clearvest/projections/tickets"
	"clearvest/projections/users"
	"clearvest/projections/wallets"
	"clearvest/projections/withdrawals"
)

// This file is the one place where the binary learns what exists: every schema, every event
// type, every whole-log check. Keeping the lists together means `migrate`, `serve` and
// `events verify` can never disagree about them.

// allMigrations lists every migration set in the order they must run: a set may refer to tables
// of the sets before it.
func allMigrations() []pgmigrate.Set {
	return []pgmigrate.Set{postgres.Migrations, projections.Migrations, pii.Migrations, auth.Migrations, mail.Migrations, accounts.Migrations,
		idempotency.Migrations, appplans.Migrations, appmoney.Migrations, appmarket.Migrations, appcommunity.Migrations, approvals.Migrations,
		appbroadcast.Migrations, chainaddr.Migrations, chainwatch.Migrations}
}

// allProjections lists every read model the runner keeps up to date. codec must be the one
// newCodec returns: the identity read models decode personal fields.
func allProjections(codec *eventstore.Registry) []projections.Projection {
	return []projections.Projection{catalogue.Projection{}, users.New(codec), securitylog.New(codec), plans.New(codec), ledger.New(codec), wallets.New(codec), history.New(codec), investments.New(codec), withdrawals.New(codec), referrals.New(codec),
		tickets.New(codec), testimonials.New(codec), activity.New(codec), proposals.New(codec),
		audit.New()}
}

// newRegistry knows every domain event type. Each domain package registers its events here
// (with eventstore.Register and its upcasters); a type missing from this list makes
// `events verify` fail and any aggregate that meets one refuse to load, rather than skip it.
func newRegistry() *eventstore.Registry {
	r := eventstore.NewRegistry()
	identity.RegisterEvents(r)
	kyc.RegisterEvents(r)
	plan.RegisterEvents(r)
	account.RegisterEvents(r)
	support.RegisterEvents(r)
	broadcast.RegisterEvents(r)
	testimonial.RegisterEvents(r)
	proposal.RegisterEvents(r)
	settings.RegisterEvents(r)
	chain.RegisterEvents(r)
	return r
}

// newCodec is newRegistry with the personal-data cipher installed, which anything that decodes
// or writes user events needs: personal fields are sealed per user (docs/identity.md). The
// cipher's keys live in the database and are sealed with CLEARVEST_SECRET_KEY (or, until
// `keys rotate` has run, a key of CLEARVEST_SECRET_KEY_PREVIOUS); a missing key is reported here
// rather than at the first read of a user.
func newCodec(ctx context.Context, pool *pgxpool.Pool, cfg config.Config) (*eventstore.Registry, *pii.Cipher, error) {
	cipher, err := pii.New(pool, cfg.SecretKey, pii.WithPreviousSecrets(cfg.PreviousSecretKeys...))
	if err != nil {
		return nil, nil, err
	}
	if err := cipher.CheckSecret(ctx); err != nil {
		return nil, nil, fmt.Errorf("%w (%s)", err, config.EnvSecretKey)
	}
	r := newRegistry()
	r.SetCipher(cipher)
	return r, cipher, nil
}

// logVerifier is a whole-log check run by `events verify` on top of the envelope and codec
// checks: Observe sees every event that decoded, in position order; Finish reports what is wrong
// once the whole log has been seen (for example a trial balance that does not sum to zero).
type logVerifier interface {
	Name() string
	Observe(env eventstore.Envelope, event aggregate.Event) error
	Finish() error
}

// streamVerifier is a logVerifier whose checks need a stream's whole state (a replayed
// aggregate). Holding that state for every stream during the read in position order would take
// memory that grows with the log, so after that read verify reads each stream Streams names on
// its own, by version from FromVersion, up to the last position the first read saw, and hands
// every event that decoded to ObserveStream; EndStream follows a stream's last event. Only one
// stream's state is held at a time. Observe, in the first read, need only note the streams: it
// is handed no event (nil) for the streams of the category Rereads names, which are decoded in
// the second read only (decodedLater), and which the first read may read without their data and
// metadata.
type streamVerifier interface {
	logVerifier
	Rereads() (category string)
	Streams() []streamRead
	ObserveStream(env eventstore.Envelope, event aggregate.Event) error
	EndStream(stream eventstore.StreamID) error
}

// streamRead names a stream to read again and the lowest version the first read saw in it.
type streamRead struct {
	Stream      eventstore.StreamID
	FromVersion int64
}

// extraVerifiers returns fresh instances of the ledger checks: verifiers carry state across the
// replay, so each run needs its own. pool is where they find the read models they compare with
// the replay, and codec opens the money streams' snapshots they compare with it too.
func extraVerifiers(ctx context.Context, pool *pgxpool.Pool, codec *eventstore.Registry) ([]logVerifier, error) {
	lv, err := newLedgerVerifier(ctx, pool, codec)
	if err != nil {
		return nil, err
	}
	return []logVerifier{lv}, nil
}

package money

import (
	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/eventstore"
)

// SnapshotEvery is how many events a money stream grows by before its next snapshot. A cold
// load reads at most this many events after the snapshot; a long account's snapshot (about 58
// bytes per event of its history, BenchmarkRestoreSnapshot) is written once per this many.
const SnapshotEvery = 500

// Snapshots makes a command runner keep snapshots of the money streams, one per every events,
// and load them from their latest (docs/architecture.md, "Snapshots").
func Snapshots(every int) command.Option {
	return command.WithSnapshots(every, map[string]func(eventstore.StreamID) command.Snapshotter{
		account.StreamCategory: func(s eventstore.StreamID) command.Snapshotter { return account.New(s.ID()) },
	})
}

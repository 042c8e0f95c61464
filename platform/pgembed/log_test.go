package pgembed_test

import (
	"log/slog"
	"testing"
)

// testLogger sends the cluster's lifecycle events to the test log, where a failure shows them.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

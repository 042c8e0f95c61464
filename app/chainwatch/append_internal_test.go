package chainwatch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/domain/chain"
	"clearvest/eventstore"
	"clearvest/projections"
)

// appendAlone takes a transfer's events, decided on the stream as it was loaded, only while the
// stream still stands there: a decision taken on an older state is refused as a conflict (which
// step answers by loading and deciding again) and appends nothing.
func TestAppendAloneRefusesADecisionOnAnOldState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := accountstest.New(t, accountstest.WithReadModels(func(codec *eventstore.Registry) []projections.Projection {
		chain.RegisterEvents(codec)
		return nil
	}))
	w := &Watcher{d: Deps{Commands: env.Commands}}
	key := "eth/0x" + strings.Repeat("ab", 32) + "/0"
	load := func() *chain.TransferState {
		t.Helper()
		st, err := command.Load(ctx, env.Commands, transferStream(key), chain.NewTransferState)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	detected := func(block string) chain.TransferDetected {
		return chain.TransferDetected{Network: "ethereum", Asset: "USDT", TxHash: "0x" + strings.Repeat("ab", 32), Address: "0x" + strings.Repeat("cd", 20),
			UserID: "user-1", Amount: "100", BlockHash: block, Height: 7, At: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	}
	first, second := load(), load()
	if !first.Detect(detected("0x01")) || !second.Detect(detected("0x02")) {
		t.Fatal("a first sighting raised nothing")
	}
	if err := w.appendAlone(ctx, key, first); err != nil {
		t.Fatal(err)
	}
	if err := w.appendAlone(ctx, key, second); !errors.Is(err, eventstore.ErrConcurrency) {
		t.Fatalf("a decision on the stream before the first append: err = %v, want a conflict", err)
	}
	st := load()
	if st.Version() != 1 || st.Detected().BlockHash != "0x01" {
		t.Fatalf("stream at version %d, detected in %q; want the first decision's one event", st.Version(), st.Detected().BlockHash)
	}
}

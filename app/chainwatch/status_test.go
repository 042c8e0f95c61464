package chainwatch_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"clearvest/app/chainwatch"
	"clearvest/domain/payout"
)

// TestStatusSaysWhatStaffNeedToKnow: the staff dashboard's view of a network follows the shared
// cursor: starting before any pass, ok with the tip and cursor after one, down while the node
// refuses, ok again once it answers.
func TestStatusSaysWhatStaffNeedToKnow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	src := &fakeChain{}
	w := e.watcher(src, owners{addrA: uuid.NewString()}, 0)
	status := func() chainwatch.NetworkStatus {
		t.Helper()
		s, err := w.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 1 || s[0].Network != payout.Ethereum {
			t.Fatalf("status %+v, want Ethereum alone", s)
		}
		return s[0]
	}
	if s := status(); s.State != chainwatch.StateStarting || s.Confirmations != 3 {
		t.Fatalf("before a pass: %+v, want starting and 3 confirmations", s)
	}
	src.mine(usdt(txh(1), addrA, "10.000000"))
	src.mine()
	e.pass(w, src)
	if s := status(); s.State != chainwatch.StateOK || s.Tip != 2 || s.Cursor != 2 || s.LastSuccess.IsZero() {
		t.Fatalf("after a pass: %+v, want ok at tip 2, cursor 2", s)
	}
	src.mu.Lock()
	src.down = true
	src.mu.Unlock()
	if err := w.Pass(context.Background(), src); err == nil {
		t.Fatal("a pass with the node down succeeded")
	}
	if s := status(); s.State != chainwatch.StateDown || s.LastError == "" {
		t.Fatalf("node down: %+v, want down with the error", s)
	}
	src.mu.Lock()
	src.down = false
	src.mu.Unlock()
	e.pass(w, src)
	if s := status(); s.State != chainwatch.StateOK {
		t.Fatalf("node back: %+v, want ok", s)
	}
}

package chain

import (
	"testing"
	"time"
)

// TestPayoutObserve: a payout raises an event only when what the chain shows of it changes, up
// to its confirmations; a reverted transaction is failed, never final; one that leaves the chain
// after it was seen is missing.
func TestPayoutObserve(t *testing.T) {
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	observe := func(p *PayoutState, tx TxState, tip uint64) bool {
		return p.Observe("w1", "ERC20", "0xabc", tx, tip, 3, at)
	}
	p := NewPayoutState()
	if observe(p, TxState{}, 10) {
		t.Fatal("a payout never found raised an event")
	}
	steps := []struct {
		tx     TxState
		tip    uint64
		raised bool
		want   PayoutStatus
		conf   uint64
	}{
		{TxState{Found: true, Height: 10}, 10, true, PayoutConfirming, 1},
		{TxState{Found: true, Height: 10}, 10, false, PayoutConfirming, 1},
		{TxState{}, 11, true, PayoutMissing, 0},
		{TxState{Found: true, Height: 12}, 13, true, PayoutConfirming, 2},
		{TxState{Found: true, Height: 12}, 14, true, PayoutFinal, 3},
		{TxState{Found: true, Height: 12}, 20, false, PayoutFinal, 3},
	}
	for i, s := range steps {
		if got := observe(p, s.tx, s.tip); got != s.raised || p.Last().Status != s.want || p.Last().Confirmations != s.conf {
			t.Fatalf("step %d: raised %v, last %+v; want raised %v, %s with %d confirmations", i, got, p.Last(), s.raised, s.want, s.conf)
		}
	}
	if !p.Done(3) {
		t.Fatal("a final payout is not done")
	}

	f := NewPayoutState()
	observe(f, TxState{Found: true, Height: 10, Failed: true}, 10)
	if f.Last().Status != PayoutFailed || f.Done(3) {
		t.Fatalf("a reverted payout at 1 confirmation: %+v, done %v", f.Last(), f.Done(3))
	}
	observe(f, TxState{Found: true, Height: 10, Failed: true}, 12)
	if f.Last().Status != PayoutFailed || !f.Done(3) {
		t.Fatalf("a reverted payout at 3 confirmations: %+v, done %v; want failed and done", f.Last(), f.Done(3))
	}
	if len(f.Changes()) != 2 {
		t.Fatalf("%d events, want 2", len(f.Changes()))
	}
}

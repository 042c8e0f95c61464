package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"clearvest/app/command"
	"clearvest/domain/chain"
	"clearvest/eventstore"
)

type payoutOnChainJSON struct {
	ID            string `json:"_id"`
	TxHash        string `json:"txHash"`
	PayoutOnChain *struct {
		Status        string    `json:"status"`
		Height        int64     `json:"height"`
		Confirmations int64     `json:"confirmations"`
		SeenAt        time.Time `json:"seenAt"`
	} `json:"payoutOnChain"`
}

// TestWithdrawalShowsThePayoutSeenOnChain: once the chain watcher records what it saw of a
// payout (chain.payout_seen), the investor's and staff's views of the withdrawal carry it: the
// status and the confirmations, and a reverted payout as failed. Until then there is none.
func TestWithdrawalShowsThePayoutSeenOnChain(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, investor, staff, "1000")
	clearedToWithdraw(t, a, investor, staff)
	w := withdraw(t, investor, "100", "ERC20", testETHAddress)
	staff.position = max(staff.position, investor.position)
	hash := "0x" + testHash("seen on chain")
	expect(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": hash}), http.StatusOK)
	investor.position = max(investor.position, staff.position)

	view := func(c *client, path string) payoutOnChainJSON {
		t.Helper()
		res := c.do(http.MethodGet, path, nil)
		expect(t, res, http.StatusOK)
		if path == "/api/withDraw/history" {
			l := decodeJSON[struct{ Withdrawals []payoutOnChainJSON }](t, res)
			if len(l.Withdrawals) != 1 {
				t.Fatalf("history: %s", res.body)
			}
			return l.Withdrawals[0]
		}
		return decodeJSON[payoutOnChainJSON](t, res)
	}
	if got := view(investor, "/api/withDraw/get-withdrawal/"+w.ID); got.PayoutOnChain != nil {
		t.Fatalf("before the watcher saw it: %+v", got.PayoutOnChain)
	}

	// What the watcher records, as it records it: one sighting per change.
	seen := func(tx chain.TxState, tip uint64) {
		t.Helper()
		res, err := command.Execute(context.Background(), a.Commands, eventstore.StreamID(chain.PayoutStream(w.ID)), chain.NewPayoutState,
			eventstore.Metadata{ActorRole: "system"}, func(p *chain.PayoutState) error {
				if !p.Observe(w.ID, "ERC20", hash, tx, tip, 12, a.Clock.Now()) {
					t.Fatalf("nothing changed at tip %d", tip)
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		investor.position = max(investor.position, res.Position)
		staff.position = max(staff.position, res.Position)
	}
	seen(chain.TxState{Found: true, Height: 500}, 502)
	// The owner's view and history, and staff's view (the history is the caller's own).
	for _, v := range []struct {
		c    *client
		path string
	}{{investor, "/api/withDraw/get-withdrawal/" + w.ID}, {investor, "/api/withDraw/history"}, {staff, "/api/withDraw/get-withdrawal/" + w.ID}} {
		got := view(v.c, v.path)
		if p := got.PayoutOnChain; got.TxHash != hash || p == nil || p.Status != "confirming" || p.Height != 500 || p.Confirmations != 3 || p.SeenAt.IsZero() {
			t.Fatalf("%s: %+v", v.path, got.PayoutOnChain)
		}
	}
	seen(chain.TxState{Found: true, Height: 500}, 520)
	if p := view(investor, "/api/withDraw/get-withdrawal/"+w.ID).PayoutOnChain; p == nil || p.Status != "final" || p.Confirmations != 12 {
		t.Fatalf("final: %+v", p)
	}
}

// TestWithdrawalShowsAFailedPayout: a payout whose transaction reverted reads as failed, never as
// final, however many blocks stand on it.
func TestWithdrawalShowsAFailedPayout(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, investor, staff, "1000")
	clearedToWithdraw(t, a, investor, staff)
	w := withdraw(t, investor, "100", "ERC20", testETHAddress)
	staff.position = max(staff.position, investor.position)
	hash := "0x" + testHash("reverted")
	expect(t, staff.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": hash}), http.StatusOK)
	res, err := command.Execute(context.Background(), a.Commands, eventstore.StreamID(chain.PayoutStream(w.ID)), chain.NewPayoutState,
		eventstore.Metadata{ActorRole: "system"}, func(p *chain.PayoutState) error {
			p.Observe(w.ID, "ERC20", hash, chain.TxState{Found: true, Height: 77, Failed: true}, 100, 12, a.Clock.Now())
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	staff.position = max(staff.position, res.Position)
	got := staff.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w.ID, nil)
	expect(t, got, http.StatusOK)
	if p := decodeJSON[payoutOnChainJSON](t, got).PayoutOnChain; p == nil || p.Status != "failed" || p.Height != 77 || p.Confirmations != 12 {
		t.Fatalf("staff view of a reverted payout: %s", got.body)
	}
}

package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"clearvest/api"
	"clearvest/app/accounts/accountstest"
	"clearvest/app/chainwatch"
	"clearvest/domain/payout"
)

type chainStatusJSON struct {
	Networks []struct {
		Network       string     `json:"network"`
		State         string     `json:"state"`
		Tip           int64      `json:"tip"`
		Cursor        int64      `json:"cursor"`
		Confirmations int64      `json:"confirmations"`
		LastSuccessAt *time.Time `json:"lastSuccessAt"`
		LastError     string     `json:"lastError"`
		LastErrorAt   *time.Time `json:"lastErrorAt"`
		Orphaned      int        `json:"orphaned"`
	} `json:"networks"`
}

// watchers answers a fixed status, standing in for the watcher (its Status is tested in
// app/chainwatch against the database).
type watchers []chainwatch.NetworkStatus

func (w watchers) Status(context.Context) ([]chainwatch.NetworkStatus, error) { return w, nil }

// TestChainStatusIsForStaff: staff read each watched chain's state; with none watched the list
// is empty; investors and visitors are refused.
func TestChainStatusIsForStaff(t *testing.T) {
	t.Parallel()
	failed := time.Date(2026, 11, 28, 10, 42, 0, 0, time.UTC)
	env := accountstest.New(t)
	a := serve(t, env, func(d *api.Deps) {
		d.Chains = watchers{
			{Network: payout.Bitcoin, State: chainwatch.StateOK, Tip: 812, Cursor: 812, Confirmations: 2, LastSuccess: failed.Add(time.Minute)},
			{Network: payout.Ethereum, State: chainwatch.StateDown, Tip: 100, Cursor: 98, Confirmations: 12, LastError: "connection refused", LastErrorAt: failed, Orphaned: 1},
		}
	})
	staff, _ := a.member(t, "sam@example.com", "author")
	res := staff.do(http.MethodGet, "/api/staff/chain-status", nil)
	expect(t, res, http.StatusOK)
	got := decodeJSON[chainStatusJSON](t, res)
	if len(got.Networks) != 2 {
		t.Fatalf("networks %+v, want BTC and ERC20", got.Networks)
	}
	btc, eth := got.Networks[0], got.Networks[1]
	if btc.Network != "BTC" || btc.State != "ok" || btc.Tip != 812 || btc.LastSuccessAt == nil || btc.LastErrorAt != nil {
		t.Errorf("BTC %+v", btc)
	}
	if eth.Network != "ERC20" || eth.State != "down" || eth.LastError != "connection refused" || eth.LastErrorAt == nil ||
		!eth.LastErrorAt.Equal(failed) || eth.LastSuccessAt != nil || eth.Orphaned != 1 || eth.Confirmations != 12 {
		t.Errorf("ERC20 %+v", eth)
	}
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	expect(t, investor.do(http.MethodGet, "/api/staff/chain-status", nil), http.StatusForbidden)
	expect(t, a.browser(t).do(http.MethodGet, "/api/staff/chain-status", nil), http.StatusUnauthorized)

	none := serve(t, accountstest.New(t), nil)
	admin, _ := none.member(t, "ada@example.com", "admin")
	res = admin.do(http.MethodGet, "/api/staff/chain-status", nil)
	expect(t, res, http.StatusOK)
	if got := decodeJSON[chainStatusJSON](t, res); got.Networks == nil || len(got.Networks) != 0 {
		t.Errorf("no watcher: %+v, want an empty list", got)
	}
}

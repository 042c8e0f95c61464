package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestOneTransferOneCredit: the spellings wallets and explorers give one hash (0x-prefixed,
// upper case) claim the one canonical row, and hashes carrying invisible characters (a zero-width
// space, a byte order mark) are refused, so one transfer is one deposit.
func TestOneTransferOneCredit(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	ivy, _ := a.member(t, "ivy@example.com", "subscriber")
	oscar, _ := a.member(t, "oscar@example.com", "subscriber")
	hash := testHash("one transfer")

	d := createUSDT(t, ivy, "100", "0x"+strings.ToUpper(hash))
	if d.TxHash != hash {
		t.Fatalf("stored hash %q, want the canonical %q", d.TxHash, hash)
	}
	create := func(c *client, network, h string) response {
		body := map[string]string{"amount": "10", "asset": "USDT", "network": network, "txHash": h}
		if network == "BTC" {
			body["asset"], body["onChainAmount"] = "BTC", "0.0001"
		}
		return c.do(http.MethodPost, "/api/payments/create", body)
	}
	for _, variant := range []string{hash, "0x" + hash, strings.ToUpper(hash), " 0X" + hash + "\n"} {
		expectMessage(t, create(oscar, "TRC20", variant), http.StatusConflict, "This transaction hash has already been used.")
	}
	for _, variant := range []string{hash + "\u200b", hash[:20] + "\u200b" + hash[20:], "\ufeff" + hash, "\u202e" + hash} {
		expectMessage(t, create(oscar, "TRC20", variant), http.StatusBadRequest,
			"The transaction hash contains invisible or control characters; please copy it again")
	}
	expectMessage(t, create(oscar, "TRC20", "0xabc123"), http.StatusBadRequest,
		"Please enter a valid TRON transaction hash: 64 hexadecimal characters")
	expectMessage(t, create(oscar, "BTC", hash[:63]), http.StatusBadRequest,
		"Please enter a valid Bitcoin transaction hash: 64 hexadecimal characters")
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.deposit_requested'`); n != 1 {
		t.Fatalf("%d deposits requested, want 1", n)
	}

	// Uniqueness is per network: on Bitcoin the same digits are another chain's transaction.
	res := create(oscar, "BTC", "0x"+strings.ToUpper(hash))
	expect(t, res, http.StatusOK)
	if got := decodeJSON[depositJSON](t, res); got.TxHash != hash {
		t.Fatalf("BTC hash stored as %q", got.TxHash)
	}
	expect(t, create(ivy, "BTC", hash), http.StatusConflict)
}

// TestPayoutHashIsWellFormedAndUnique: a payout hash must be a hash of the withdrawal's network,
// and one transfer settles one withdrawal: another payout's hash (in any spelling) or a
// deposit's is refused, and nothing of the refused approval is kept.
func TestPayoutHashIsWellFormedAndUnique(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	fund(t, investor, staff, "1000")
	clearedToWithdraw(t, a, investor, staff)
	deposited := testHash("a deposit")
	createUSDT(t, investor, "15", deposited)
	w1 := withdraw(t, investor, "100", "TRC20", testTRONAddress)
	w2 := withdraw(t, investor, "100", "TRC20", testTRONAddress)
	w3 := withdraw(t, investor, "100", "ERC20", testETHAddress)
	approve := func(id, h string) response {
		return staff.do(http.MethodPut, "/api/withDraw/approve/"+id, map[string]string{"txHash": h})
	}

	for _, bad := range []string{"0xpaid", testHash("x")[:63], testHash("x") + "\u200b", "\ufeff" + testHash("x"), testHash("x")[:9] + "\r" + testHash("x")[9:]} {
		expect(t, approve(w1.ID, bad), http.StatusBadRequest)
	}
	paid := testHash("payout one")
	expect(t, approve(w1.ID, "0x"+strings.ToUpper(paid)), http.StatusOK)
	staff.position = max(staff.position, investor.position)
	res := staff.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w1.ID, nil)
	expect(t, res, http.StatusOK)
	if got := decodeJSON[withdrawalJSON](t, res); got.TxHash != paid {
		t.Fatalf("payout hash stored as %q, want %q", got.TxHash, paid)
	}

	for _, reused := range []string{paid, "0x" + paid, strings.ToUpper(paid), deposited} {
		expectMessage(t, approve(w2.ID, reused), http.StatusConflict,
			"This transaction hash is already recorded for another payout or deposit.")
	}
	if n := a.count(t, `SELECT count(*) FROM events WHERE type = 'account.withdrawal_approved'`); n != 1 {
		t.Fatalf("%d approvals, want 1: a refused approval left an event", n)
	}
	// The same digits on Ethereum are another network's transaction.
	expect(t, approve(w3.ID, paid), http.StatusOK)
	expect(t, approve(w2.ID, testHash("payout two")), http.StatusOK)
	if n := a.count(t, `SELECT count(*) FROM money_chain_tx_hashes WHERE kind = 'payout'`); n != 3 {
		t.Fatalf("%d payout hashes recorded, want 3", n)
	}
}

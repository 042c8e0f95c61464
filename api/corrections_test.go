package api_test

import (
	"net/http"
	"testing"

	"clearvest/domain/account"
	"clearvest/eventstore"
)

func correctionBody(direction, amount, category, reason string) map[string]string {
	return map[string]string{"direction": direction, "amount": amount, "category": category, "reason": reason}
}

func countEvents[E any](t *testing.T, a *app, stream eventstore.StreamID) int {
	t.Helper()
	envs, err := a.Store.ReadStream(t.Context(), stream, 1, 10000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, env := range envs {
		ev, err := a.Codec.Decode(env)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(E); ok {
			n++
		}
	}
	return n
}

func TestCorrectionsBelowAndAboveTheThreshold(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, ivy := a.member(t, "ivy@example.com", "subscriber")
	admin, _ := a.member(t, "ada@example.com", "admin")
	second, _ := a.member(t, "bea@example.com", "admin")
	author, _ := a.member(t, "ann@example.com", "author")
	stream := eventstore.NewStreamID(account.StreamCategory, ivy.ID)
	path := "/api/users/editDepositBalance/" + ivy.ID

	// A correction needs the admin, not just their session: a fresh step-up.
	expect(t, admin.do(http.MethodPut, path, correctionBody("add", "10", "goodwill", "outage")), http.StatusForbidden)
	stepUp(t, admin)

	// Only admins correct balances.
	expect(t, investor.do(http.MethodPut, path, correctionBody("add", "10", "goodwill", "outage")), http.StatusForbidden)
	expect(t, author.do(http.MethodPut, path, correctionBody("add", "10", "goodwill", "outage")), http.StatusForbidden)
	expect(t, author.do(http.MethodGet, "/api/users/money/"+ivy.ID, nil), http.StatusForbidden)

	// Bad input is refused with the field at fault and writes nothing.
	expect(t, admin.do(http.MethodPut, path, correctionBody("add", "10", "goodwill", " ")), http.StatusBadRequest)
	expect(t, admin.do(http.MethodPut, path, correctionBody("add", "10", "bonus", "r")), http.StatusBadRequest)
	expect(t, admin.do(http.MethodPut, path, correctionBody("sideways", "10", "goodwill", "r")), http.StatusBadRequest)
	expect(t, admin.do(http.MethodPut, path, correctionBody("add", "0", "goodwill", "r")), http.StatusBadRequest)

	// Below the threshold it is posted at once; the investor sees it with its reason.
	res := admin.do(http.MethodPut, path, correctionBody("add", "120.50", "goodwill", "Compensation for the outage on 3 May"))
	expect(t, res, http.StatusOK)
	investor.position = admin.position
	if b := balances(t, investor); b.Balance != "120.50" {
		t.Fatalf("balance after the correction = %s", b.Balance)
	}
	h := readHistory(t, investor, "")
	if len(h.Items) == 0 || h.Items[0].Kind != "adjustment" || h.Items[0].Amount != "120.50" ||
		h.Items[0].Details["reason"] != "Compensation for the outage on 3 May" {
		t.Fatalf("history: %+v %v", h.Items, h.Items[0].Details)
	}

	// A deduction below zero is refused with what is available, and nothing is written.
	before := countEvents[account.AdjustmentPosted](t, a, stream)
	expectMessage(t, admin.do(http.MethodPut, path, correctionBody("deduct", "200", "correction", "double credit")), http.StatusUnprocessableEntity,
		"A deduction cannot take the available balance below zero: $120.50 is available, so at most $120.50 can be deducted")
	// Above the threshold too: no proposal opens for a deduction the balance cannot take.
	expect(t, admin.do(http.MethodPut, path, correctionBody("deduct", "900", "chargeback", "card chargeback")), http.StatusUnprocessableEntity)
	if after := countEvents[account.AdjustmentPosted](t, a, stream); after != before {
		t.Fatalf("%d corrections after the refusals, want %d", after, before)
	}

	// Above the threshold it becomes a proposal; nothing moves until a second admin approves.
	pid := proposed(t, admin.do(http.MethodPut, path, correctionBody("add", "900", "correction", "Deposit credited short on 1 May")))
	second.position = admin.position
	res = second.do(http.MethodGet, "/api/proposals", nil)
	expect(t, res, http.StatusOK)
	q := decodeJSON[proposalListJSON](t, res)
	if len(q.Pending) != 1 || q.Pending[0].Kind != "balance_correction" || q.Pending[0].Amount != "900.00" ||
		q.Pending[0].Params["direction"] != "add" || q.Pending[0].Params["category"] != "correction" ||
		q.Pending[0].Reason != "Deposit credited short on 1 May" {
		t.Fatalf("pending = %+v", q.Pending)
	}
	if b := balances(t, investor); b.Balance != "120.50" {
		t.Fatalf("balance before the approval = %s", b.Balance)
	}
	// The proposer cannot approve their own proposal.
	stepUp(t, admin)
	stepUp(t, second)
	res = admin.do(http.MethodPost, "/api/proposals/"+pid+"/approve", nil)
	if e := decodeStepUpError(t, res, http.StatusForbidden); e.Code == "step_up_required" {
		t.Fatalf("own approval refused only for want of a step-up: %+v", e)
	}
	expect(t, second.do(http.MethodPost, "/api/proposals/"+pid+"/approve", nil), http.StatusOK)
	investor.position = second.position
	if b := balances(t, investor); b.Balance != "1020.50" {
		t.Fatalf("balance after the approval = %s", b.Balance)
	}
	e := lastEvent[account.AdjustmentPosted](t, a, stream)
	if e.Amount.String() != "900.00" || e.ProposalID != pid || e.ApprovedBy == "" || e.ApprovedBy == e.StaffID {
		t.Fatalf("adjustment_posted = %+v", e)
	}
	h = readHistory(t, investor, "")
	if h.Items[0].Details["reason"] != "Deposit credited short on 1 May" {
		t.Fatalf("history after the approval: %+v", h.Items[0])
	}
}

func TestACorrectionIsIdempotent(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	_, ivy := a.member(t, "ivy@example.com", "subscriber")
	admin, _ := a.member(t, "ada@example.com", "admin")
	stepUp(t, admin)
	path := "/api/users/editDepositBalance/" + ivy.ID
	body := correctionBody("add", "40", "other", "Manual fix")
	first := admin.withKey("corr-1", http.MethodPut, path, body)
	expect(t, first, http.StatusOK)
	again := admin.withKey("corr-1", http.MethodPut, path, body)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || string(again.body) != string(first.body) {
		t.Fatalf("repeat = %v %s", again.header, again.body)
	}
	if n := countEvents[account.AdjustmentPosted](t, a, eventstore.NewStreamID(account.StreamCategory, ivy.ID)); n != 1 {
		t.Fatalf("%d corrections after a repeat, want 1", n)
	}
	// The same key with another body is refused.
	other := admin.withKey("corr-1", http.MethodPut, path, correctionBody("add", "41", "other", "Manual fix"))
	if other.status != http.StatusConflict && other.status != http.StatusUnprocessableEntity {
		t.Fatalf("another body under the same key: %d %s", other.status, other.body)
	}
}

func TestReturnsCannotBeEdited(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, ivy := a.member(t, "ivy@example.com", "subscriber")
	admin, _ := a.member(t, "ada@example.com", "admin")
	path := "/api/users/updateDepositBalance/" + ivy.ID
	res := admin.do(http.MethodPut, path, map[string]string{"amount": "10"})
	expect(t, res, http.StatusUnprocessableEntity)
	if msg := decodeError(t, res).Message; msg == "" || msg[:len("Returns follow the plan terms")] != "Returns follow the plan terms" {
		t.Fatalf("message %q", msg)
	}
	expect(t, investor.do(http.MethodPut, path, map[string]string{}), http.StatusForbidden)
	res = admin.do(http.MethodGet, "/api/users/money/"+ivy.ID, nil)
	expect(t, res, http.StatusOK)
}

func TestFeesWaiversAndExemption(t *testing.T) {
	t.Parallel()
	a := newFourEyesApp(t)
	investor, ivy := a.member(t, "ivy@example.com", "subscriber")
	author, _ := a.member(t, "ann@example.com", "author")
	admin, _ := a.member(t, "ada@example.com", "admin")
	fund(t, investor, author, "1000")
	clearedToWithdraw(t, a, investor, author)

	w := withdraw(t, investor, "100", "TRC20", testTRONAddress)
	if w.Fee != "2.00" {
		t.Fatalf("fee %s", w.Fee)
	}
	author.position = investor.position
	expect(t, author.do(http.MethodPut, "/api/withDraw/approve/"+w.ID, map[string]string{"txHash": testHash("fee-paid")}), http.StatusOK)
	admin.position = author.position
	stepUp(t, admin)

	// Adding a fee by hand is refused; only admins change fees.
	expectMessage(t, admin.do(http.MethodPut, "/api/users/update-fees/"+ivy.ID,
		map[string]string{"direction": "add", "amount": "1", "withdrawalId": w.ID, "reason": "r"}), http.StatusUnprocessableEntity,
		"Fees come from the published fee schedule.")
	expect(t, author.do(http.MethodPut, "/api/users/update-fees/"+ivy.ID,
		map[string]string{"direction": "deduct", "amount": "1", "withdrawalId": w.ID, "reason": "r"}), http.StatusForbidden)
	expect(t, investor.do(http.MethodPut, "/api/users/fees-toggle/"+ivy.ID, map[string]any{"exempt": true, "reason": "me"}), http.StatusForbidden)

	// A deduction is a waiver: refunded to the available balance, shown on the withdrawal.
	expect(t, admin.do(http.MethodPut, "/api/users/update-fees/"+ivy.ID,
		map[string]string{"direction": "deduct", "amount": "0.50", "withdrawalId": w.ID, "reason": "First withdrawal"}), http.StatusOK)
	expect(t, admin.do(http.MethodPost, "/api/users/waive-fee/"+ivy.ID,
		map[string]string{"amount": "2", "withdrawalId": w.ID, "reason": "too much"}), http.StatusUnprocessableEntity)
	expect(t, admin.do(http.MethodPost, "/api/users/waive-fee/"+ivy.ID,
		map[string]string{"amount": "1.50", "withdrawalId": w.ID, "reason": "The rest of it"}), http.StatusOK)
	investor.position = admin.position
	if b := balances(t, investor); b.Balance != "902.00" || b.Fees != "0.00" {
		t.Fatalf("figures after the waiver: %+v", b)
	}
	res := investor.do(http.MethodGet, "/api/withDraw/get-withdrawal/"+w.ID, nil)
	expect(t, res, http.StatusOK)
	if got := decodeJSON[map[string]any](t, res); got["feeWaived"] != "2.00" {
		t.Fatalf("withdrawal after the waiver: %s", res.body)
	}
	h := readHistory(t, investor, "")
	if len(h.Items) == 0 || h.Items[0].Kind != "fee" || h.Items[0].Details["reason"] != "The rest of it" {
		t.Fatalf("history: %+v %v", h.Items, h.Items[0].Details)
	}

	// The exemption: the quote charges nothing and says why; so does the withdrawal.
	expect(t, admin.do(http.MethodPut, "/api/users/fees-toggle/"+ivy.ID, map[string]any{"exempt": true, "reason": " "}), http.StatusBadRequest)
	expect(t, admin.do(http.MethodPut, "/api/users/fees-toggle/"+ivy.ID, map[string]any{"exempt": true, "reason": "Partner agreement"}), http.StatusOK)
	// What is already in force records nothing.
	expect(t, admin.do(http.MethodPut, "/api/users/fees-toggle/"+ivy.ID, map[string]any{"exempt": true, "reason": "Again"}), http.StatusOK)
	if n := countEvents[account.FeeExemptionSet](t, a, eventstore.NewStreamID(account.StreamCategory, ivy.ID)); n != 1 {
		t.Fatalf("%d exemption events after setting it twice, want 1", n)
	}
	investor.position = admin.position
	res = quote(investor, map[string]string{"amount": "100", "network": "TRC20"})
	expect(t, res, http.StatusOK)
	q := decodeJSON[struct {
		Fee, Receives string
		FeeExempt     bool
	}](t, res)
	if q.Fee != "0.00" || q.Receives != "100.00" || !q.FeeExempt {
		t.Fatalf("quote while exempt: %s", res.body)
	}
	// A request with the schedule's fee is told the fee changed; with the quote's it goes through.
	res = investor.do(http.MethodPost, "/api/withDraw/create", map[string]string{"amount": "100", "network": "TRC20", "walletAddress": testTRONAddress, "fee": "2.00"})
	expect(t, res, http.StatusConflict)
	free := withdraw(t, investor, "100", "TRC20", testTRONAddress)
	if free.Fee != "0.00" || free.Receives != "100.00" {
		t.Fatalf("withdrawal while exempt: %+v", free)
	}
	res = admin.do(http.MethodGet, "/api/users/money/"+ivy.ID, nil)
	expect(t, res, http.StatusOK)
	m := decodeJSON[struct {
		FeeExempt       bool   `json:"feeExempt"`
		ExemptionReason string `json:"exemptionReason"`
		Fees            []struct {
			WithdrawalID string `json:"withdrawalId"`
			Fee          string `json:"fee"`
			FeeWaived    string `json:"feeWaived"`
		} `json:"fees"`
	}](t, res)
	if !m.FeeExempt || m.ExemptionReason != "Partner agreement" || len(m.Fees) != 1 || m.Fees[0].WithdrawalID != w.ID || m.Fees[0].FeeWaived != "2.00" {
		t.Fatalf("user money: %s", res.body)
	}

	// Off again: the schedule's fee is back.
	expect(t, admin.do(http.MethodPut, "/api/users/fees-toggle/"+ivy.ID, map[string]any{"exempt": false, "reason": "Agreement ended"}), http.StatusOK)
	investor.position = admin.position
	res = quote(investor, map[string]string{"amount": "100", "network": "TRC20"})
	if q := decodeJSON[map[string]any](t, res); q["fee"] != "2.00" || q["feeExempt"] != nil {
		t.Fatalf("quote after the exemption: %s", res.body)
	}
	e := lastEvent[account.FeeExemptionSet](t, a, eventstore.NewStreamID(account.StreamCategory, ivy.ID))
	if e.Exempt || e.Reason != "Agreement ended" || e.StaffID == "" {
		t.Fatalf("fee_exemption_set = %+v", e)
	}
}

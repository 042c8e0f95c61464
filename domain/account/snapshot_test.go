package account

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/money"
)

// stateSignature is the shape of the account's fields and of every type its snapshot holds, as
// of SnapshotKind. Neither may change alone.
const stateSignature = "3c13a04c2dbf7651"

// TestSnapshotKindFollowsTheState fails when a field is added to the account, or to a type
// its state holds, without the snapshot's kind changing: old snapshots would then restore an
// account without it.
func TestSnapshotKindFollowsTheState(t *testing.T) {
	var b strings.Builder
	describe(&b, reflect.TypeFor[Account](), map[reflect.Type]bool{})
	sum := sha256.Sum256([]byte(b.String()))
	if got := hex.EncodeToString(sum[:8]); got != stateSignature {
		t.Fatalf("the account's state changed (signature %s, recorded %s for %s): add what changed to "+
			"MarshalState, UnmarshalState and TestASnapshotRestoresEveryField, change SnapshotKind, then record the new signature\n%s",
			got, stateSignature, SnapshotKind, b.String())
	}
}

// describe writes t's fields, recursively, one per line.
func describe(b *strings.Builder, t reflect.Type, seen map[reflect.Type]bool) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		if t.Kind() == reflect.Map {
			describe(b, t.Key(), seen)
		}
		describe(b, t.Elem(), seen)
		return
	case reflect.Struct:
	default:
		return
	}
	if seen[t] || t.PkgPath() == "time" || t == reflect.TypeFor[money.Money]() {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		fmt.Fprintf(b, "%s.%s %s\n", t.Name(), f.Name, f.Type)
		describe(b, f.Type, seen)
	}
}

// TestASnapshotRestoresEveryField builds an account that uses every field, and checks each
// field of the restored account against the replayed one.
func TestASnapshotRestoresEveryField(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	usd := money.MustParse
	terms := Terms{PlanID: "p1", PlanVersion: 2, PlanName: "Starter", TermDays: 30, TermRate: "0.015", Min: usd("10"), Max: usd("5000")}
	events := []aggregate.Event{
		DepositRequested{DepositID: "d1", TransactionID: "T1", Amount: usd("1000"), Asset: "USDT", Network: "TRC20", OnChainAmount: "1000", USDRate: "1", TxHash: "0xabc", Address: "T9", At: at},
		DepositConfirmed{DepositID: "d1", Received: usd("1000"), Notes: "arrived", StaffID: "s1", ApprovedBy: "s2", At: at},
		DepositRequested{DepositID: "d2", TransactionID: "T2", Amount: usd("50"), Asset: "USDT", Network: "TRC20", OnChainAmount: "50", USDRate: "1", At: at},
		DepositLinkedToChain{DepositID: "d2", TransactionID: "T2", ChainDepositID: "cd2", TxHash: "0xdef", Address: "T9", Asset: "USDT", OnChainAmount: "50", At: at},
		InvestmentRequested{InvestmentID: "i1", Terms: terms, Amount: usd("300"), At: at},
		InvestmentActivated{InvestmentID: "i1", Amount: usd("300"), Return: usd("4.50"), Start: at, End: at.AddDate(0, 0, 30), StaffID: "s1"},
		InvestmentInstructionSet{InvestmentID: "i1", Instruction: InstructionReinvest, At: at},
		InvestmentRequested{InvestmentID: "i2", Terms: terms, Amount: usd("20"), At: at},
		InvestmentRejected{InvestmentID: "i2", Amount: usd("20"), Reason: "plan closed", StaffID: "s1", At: at},
		WithdrawalRequested{WithdrawalID: "w1", Amount: usd("100"), Fee: usd("2"), Address: "TQ", Network: "TRC20", Asset: "USDT", At: at},
		WithdrawalApproved{WithdrawalID: "w1", Amount: usd("100"), Fee: usd("2"), TxHash: "0x99", StaffID: "s1", At: at},
		FeeWaived{WithdrawalID: "w1", Amount: usd("1"), Reason: "sorry", StaffID: "s1", At: at},
		ReferralBonusCredited{ReferredUserID: "u9", Amount: usd("5"), At: at},
		AdjustmentPosted{AdjustmentID: "a1", Amount: usd("-3"), Category: CategoryCorrection, Reason: "typo", StaffID: "s1", At: at},
		FeeExemptionSet{Exempt: true, Reason: "partner", StaffID: "s1", At: at},
	}
	full := New("u1")
	aggregate.Load(full, int64(len(events)), events...)
	saved, err := full.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	restored := New("u1")
	if err := restored.UnmarshalState(saved); err != nil {
		t.Fatal(err)
	}
	aggregate.Load(restored, full.Version())

	fields := map[string][2]any{
		"bal":         {full.bal, restored.bal},
		"holds":       {full.holds, restored.holds},
		"deposits":    {full.deposits, restored.deposits},
		"investments": {full.investments, restored.investments},
		"withdrawals": {full.withdrawals, restored.withdrawals},
		"adjustments": {full.adjustments, restored.adjustments},
		"referrals":   {full.referrals, restored.referrals},
		"txIDs":       {full.txIDs, restored.txIDs},
		"chainLinks":  {full.chainLinks, restored.chainLinks},
		"exemption":   {full.exemption, restored.exemption},
		"order":       {full.order, restored.order},
	}
	// Root, userID (the constructor's) and dry (a decision's scratch) are not state.
	if n := reflect.TypeFor[Account]().NumField() - 3; len(fields) != n {
		t.Fatalf("the test compares %d of the account's %d fields of state", len(fields), n)
	}
	for name, pair := range fields {
		want, _ := json.Marshal(pair[0])
		got, _ := json.Marshal(pair[1])
		if string(got) != string(want) {
			t.Errorf("%s: restored %s, replayed %s", name, got, want)
		}
		if string(want) == "{}" || string(want) == "null" || string(want) == "[]" {
			t.Errorf("%s is empty in the replayed account: the events do not exercise it", name)
		}
	}
	if restored.Version() != full.Version() {
		t.Errorf("version %d, want %d", restored.Version(), full.Version())
	}
}

func TestASnapshotIsOnlyOfStoredStateAndOnlyRestoresAFreshAccount(t *testing.T) {
	a := New("u1")
	aggregate.Raise(a, ReferralBonusCredited{ReferredUserID: "u9", Amount: money.MustParse("5")})
	if _, err := a.MarshalState(); err == nil {
		t.Error("a snapshot of unsaved changes was taken")
	}
	aggregate.Load(a, 1)
	saved, err := a.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.UnmarshalState(saved); err == nil {
		t.Error("a snapshot was restored over a loaded account")
	}
	if err := New("u1").UnmarshalState([]byte("{not json")); err == nil {
		t.Error("a damaged snapshot was restored")
	}
}

// longAccount is an account of about n events: deposits confirmed, investments activated and
// matured, withdrawals approved, in turn.
func longAccount(n int) *Account {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	usd := money.MustParse
	terms := Terms{PlanID: "p1", PlanVersion: 1, PlanName: "Starter", TermDays: 30, TermRate: "0.015", Min: usd("10"), Max: usd("5000")}
	var events []aggregate.Event
	for i := 0; len(events) < n; i++ {
		d, inv, w := fmt.Sprintf("d-%06d", i), fmt.Sprintf("i-%06d", i), fmt.Sprintf("w-%06d", i)
		events = append(events,
			DepositRequested{DepositID: d, TransactionID: "T" + d, Amount: usd("100"), Asset: "USDT", Network: "TRC20", OnChainAmount: "100", USDRate: "1", At: at},
			DepositConfirmed{DepositID: d, Received: usd("100"), StaffID: "s1", At: at},
			InvestmentRequested{InvestmentID: inv, Terms: terms, Amount: usd("50"), At: at},
			InvestmentActivated{InvestmentID: inv, Amount: usd("50"), Return: usd("0.75"), Start: at, End: at.AddDate(0, 0, 30), StaffID: "s1"},
			InvestmentMatured{InvestmentID: inv, Principal: usd("50"), Return: usd("0.75"), At: at},
			WithdrawalRequested{WithdrawalID: w, Amount: usd("20"), Fee: usd("1"), Address: "TQ", Network: "TRC20", Asset: "USDT", At: at},
			WithdrawalApproved{WithdrawalID: w, Amount: usd("20"), Fee: usd("1"), TxHash: "0x99", StaffID: "s1", At: at},
		)
	}
	a := New("u1")
	aggregate.Load(a, int64(len(events)), events...)
	return a
}

// BenchmarkRestoreSnapshot restores a 10,000-event account from its snapshot; -benchmem and
// the reported size say what a cold load of such a stream reads and allocates.
func BenchmarkRestoreSnapshot(b *testing.B) {
	saved, err := longAccount(10_000).MarshalState()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := New("u1").UnmarshalState(saved); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(saved)), "bytes/snapshot")
}

// FuzzRestoreSnapshot: whatever the bytes, restoring either fails or gives an account whose
// snapshot reads back the same; it never panics.
func FuzzRestoreSnapshot(f *testing.F) {
	saved, err := longAccount(30).MarshalState()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(saved)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		a := New("u1")
		if err := a.UnmarshalState(b); err != nil {
			return
		}
		again, err := a.MarshalState()
		if err != nil {
			return // an amount too large for a snapshot's cents, say
		}
		b2 := New("u1")
		if err := b2.UnmarshalState(again); err != nil {
			t.Fatalf("a restored account's own snapshot does not restore: %v", err)
		}
	})
}

// BenchmarkTakeSnapshot is the part of a snapshot the command that crosses the interval pays
// on its own path: the 10,000-event account's state, marshalled.
func BenchmarkTakeSnapshot(b *testing.B) {
	a := longAccount(10_000)
	for b.Loop() {
		if _, err := a.MarshalState(); err != nil {
			b.Fatal(err)
		}
	}
}

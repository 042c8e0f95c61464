package account_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"clearvest/domain/account"
	"clearvest/domain/aggregate"
	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/domainerr"
	"clearvest/domain/money"
	"clearvest/domain/payout"
)

const (
	userID  = "0191f3c2-7a4e-7b1c-9e2d-5a6b7c8d9e0f"
	staffID = "0191f3c2-7a4e-7b1c-9e2d-000000000001"
	friend  = "0191f3c2-7a4e-7b1c-9e2d-000000000002"
)

var (
	accounts = aggregatetest.For(account.NewFor(userID))
	t0       = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	t1       = t0.Add(time.Hour)
)

// Transaction hashes of the TRON network, in their canonical form.
var (
	depHash = strings.Repeat("ab", 32)
	payHash = strings.Repeat("cd", 32)
)

func m(s string) money.Money { return money.MustParse(s) }

func depositReq() account.DepositRequest {
	return account.DepositRequest{
		DepositID: "d1", TransactionID: "TX-1001", Amount: m("500"), Asset: "USDT", Network: "TRC20",
		OnChainAmount: "500.123456", USDRate: "0.9998", TxHash: depHash,
	}
}

func depositRequested() account.DepositRequested {
	return account.DepositRequested{
		DepositID: "d1", TransactionID: "TX-1001", Amount: m("500"), Asset: "USDT", Network: "TRC20",
		OnChainAmount: "500.123456", USDRate: "0.9998", TxHash: depHash, At: t0,
	}
}

func confirmed(amount string) account.DepositConfirmed {
	return account.DepositConfirmed{DepositID: "d1", Received: m(amount), StaffID: staffID, At: t0}
}

// funded is a history with $500.00 available.
func funded() []aggregate.Event {
	return []aggregate.Event{depositRequested(), confirmed("500")}
}

func basic() account.Terms {
	return account.Terms{PlanID: "basic", PlanVersion: 2, PlanName: "Basic", TermDays: 30, TermRate: "0.0125", Min: m("100"), Max: m("250")}
}

func invRequested(id, amount string) account.InvestmentRequested {
	return account.InvestmentRequested{InvestmentID: id, Terms: basic(), Amount: m(amount), At: t0}
}

func invActivated(id, amount, ret string) account.InvestmentActivated {
	return account.InvestmentActivated{InvestmentID: id, Amount: m(amount), Return: m(ret), Start: t1, End: t1.AddDate(0, 0, 30), StaffID: staffID}
}

func wdReq(id, amount, fee string) account.WithdrawalRequest {
	return account.WithdrawalRequest{WithdrawalID: id, Amount: m(amount), Fee: m(fee), Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT"}
}

func wdRequested(id, amount, fee string) account.WithdrawalRequested {
	return account.WithdrawalRequested{WithdrawalID: id, Amount: m(amount), Fee: m(fee), Address: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", Network: "TRC20", Asset: "USDT", At: t0}
}

func wdApproved(id, amount, fee string) account.WithdrawalApproved {
	return account.WithdrawalApproved{WithdrawalID: id, Amount: m(amount), Fee: m(fee), TxHash: payHash, StaffID: staffID, At: t1}
}

func history(parts ...any) []aggregate.Event {
	var out []aggregate.Event
	for _, p := range parts {
		switch p := p.(type) {
		case aggregate.Event:
			out = append(out, p)
		case []aggregate.Event:
			out = append(out, p...)
		}
	}
	return out
}

func wantBalances(t *testing.T, a *account.Account, available, held, invested, returns, fees, adjustments string) {
	t.Helper()
	want := account.Balances{
		Available: m(available), Held: m(held), Invested: m(invested), Returns: m(returns), Fees: m(fees),
		Adjustments: m(adjustments), Referrals: a.Balances().Referrals,
	}
	if got := a.Balances(); !got.Equal(want) {
		t.Errorf("balances = %+v\nwant       %+v", got, want)
	}
}

func wantMessage(t *testing.T, err error, kind domainerr.Kind, message string) {
	t.Helper()
	k, msg, ok := domainerr.KindOf(err)
	if !ok || k != kind || msg != message {
		t.Errorf("error = %v (kind %v, classified %v), want kind %v with message %q", err, k, ok, kind, message)
	}
}

func TestDeposits(t *testing.T) {
	t.Parallel()
	t.Run("a request credits nothing yet", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given().
			When(func(a *account.Account) error { return a.RequestDeposit(depositReq(), t0) }).
			Then(t, depositRequested())
		wantBalances(t, a, "0", "0", "0", "0", "0", "0")
		if d, _ := a.Deposit("d1"); d.Status != account.StatusPending {
			t.Errorf("status %s", d.Status)
		}
	})
	t.Run("request fields are trimmed and the hash is optional", func(t *testing.T) {
		t.Parallel()
		r := depositReq()
		r.TransactionID, r.Asset, r.Network, r.TxHash = " TX-1001 ", " USDT", "TRC20 ", ""
		want := depositRequested()
		want.TxHash = ""
		accounts.Given().When(func(a *account.Account) error { return a.RequestDeposit(r, t0) }).Then(t, want)
	})
	t.Run("confirmation credits what arrived", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(depositRequested()).
			When(func(a *account.Account) error {
				return a.ConfirmDeposit("d1", m("499.37"), "  fee taken by the exchange ", staffID, t0)
			}).
			Then(t, account.DepositConfirmed{DepositID: "d1", Received: m("499.37"), Notes: "fee taken by the exchange", StaffID: staffID, At: t0})
		wantBalances(t, a, "499.37", "0", "0", "0", "0", "0")
		if d, _ := a.Deposit("d1"); d.Status != account.StatusConfirmed || !d.Received.Equal(m("499.37")) {
			t.Errorf("deposit %+v", d)
		}
	})
	t.Run("rejection credits nothing", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(depositRequested()).
			When(func(a *account.Account) error { return a.RejectDeposit("d1", "nothing arrived", staffID, t0) }).
			Then(t, account.DepositRejected{DepositID: "d1", Notes: "nothing arrived", StaffID: staffID, At: t0})
		wantBalances(t, a, "0", "0", "0", "0", "0", "0")
	})
	t.Run("decided once", func(t *testing.T) {
		t.Parallel()
		for _, decided := range []aggregate.Event{confirmed("500"), account.DepositRejected{DepositID: "d1", StaffID: staffID}} {
			s := accounts.Given(depositRequested(), decided)
			s.When(func(a *account.Account) error { return a.ConfirmDeposit("d1", m("500"), "", staffID, t0) }).ThenError(t, account.ErrDepositDecided)
			s.When(func(a *account.Account) error { return a.RejectDeposit("d1", "", staffID, t0) }).ThenError(t, account.ErrDepositDecided)
		}
		wantMessage(t, account.ErrDepositDecided, domainerr.Conflict, "This deposit was already decided")
	})
	t.Run("unknown deposit", func(t *testing.T) {
		t.Parallel()
		accounts.Given().When(func(a *account.Account) error { return a.ConfirmDeposit("d9", m("1"), "", staffID, t0) }).ThenError(t, account.ErrDepositNotFound)
		accounts.Given().When(func(a *account.Account) error { return a.RejectDeposit("d9", "", staffID, t0) }).ThenError(t, account.ErrDepositNotFound)
		wantMessage(t, account.ErrDepositNotFound, domainerr.NotFound, "Deposit not found")
	})
	t.Run("confirmation amount must be positive", func(t *testing.T) {
		t.Parallel()
		for _, amount := range []string{"0", "-0.01"} {
			accounts.Given(depositRequested()).
				When(func(a *account.Account) error { return a.ConfirmDeposit("d1", m(amount), "", staffID, t0) }).
				ThenError(t, money.ErrNotPositive)
		}
	})
	t.Run("notes are bounded", func(t *testing.T) {
		t.Parallel()
		long := strings.Repeat("é", account.MaxTextRunes+1)
		accounts.Given(depositRequested()).When(func(a *account.Account) error { return a.ConfirmDeposit("d1", m("1"), long, staffID, t0) }).ThenError(t, account.ErrNotesTooLong)
		accounts.Given(depositRequested()).When(func(a *account.Account) error { return a.RejectDeposit("d1", long, staffID, t0) }).ThenError(t, account.ErrNotesTooLong)
		accounts.Given(depositRequested()).When(func(a *account.Account) error { return a.RejectDeposit("d1", "  ", staffID, t0) }).ThenError(t, account.ErrRejectReasonRequired)
		for _, hidden := range []string{"sent\u202e", "line\rforged", "zero\u200bwidth", "\x1b[31m"} {
			accounts.Given(depositRequested()).When(func(a *account.Account) error { return a.RejectDeposit("d1", hidden, staffID, t0) }).ThenError(t, account.ErrNotesInvisible)
			accounts.Given(history(funded(), wdRequested("w1", "100", "2.50"))...).
				When(func(a *account.Account) error { return a.RejectWithdrawal("w1", hidden, staffID, t1) }).ThenError(t, account.ErrReasonInvisible)
			accounts.Given(funded()...).When(func(a *account.Account) error {
				return a.PostAdjustment(account.Adjustment{AdjustmentID: "a1", Amount: m("1"), Category: account.CategoryCorrection, Reason: hidden}, staffID, t0)
			}).ThenError(t, account.ErrReasonInvisible)
		}
		accounts.Given(depositRequested()).When(func(a *account.Account) error { return a.RejectDeposit("d1", "two\nlines", staffID, t0) }).
			Then(t, account.DepositRejected{DepositID: "d1", Notes: "two\nlines", StaffID: staffID, At: t0})
		accounts.Given(depositRequested()).
			When(func(a *account.Account) error {
				return a.RejectDeposit("d1", long[:2*account.MaxTextRunes], staffID, t0)
			}).
			Then(t, account.DepositRejected{DepositID: "d1", Notes: long[:2*account.MaxTextRunes], StaffID: staffID, At: t0})
	})
	t.Run("bad requests", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name string
			edit func(*account.DepositRequest)
			want error
		}{
			{"no id", func(r *account.DepositRequest) { r.DepositID = "" }, account.ErrInvalidID},
			{"id with a space", func(r *account.DepositRequest) { r.DepositID = "d 1" }, account.ErrInvalidID},
			{"id too long", func(r *account.DepositRequest) { r.DepositID = strings.Repeat("x", 65) }, account.ErrInvalidID},
			{"no transaction id", func(r *account.DepositRequest) { r.TransactionID = "  " }, account.ErrInvalidTransaction},
			{"zero amount", func(r *account.DepositRequest) { r.Amount = money.Zero }, money.ErrNotPositive},
			{"negative amount", func(r *account.DepositRequest) { r.Amount = m("-5") }, money.ErrNotPositive},
			{"no asset", func(r *account.DepositRequest) { r.Asset = "" }, account.ErrInvalidAsset},
			{"no network", func(r *account.DepositRequest) { r.Network = "\t" }, account.ErrInvalidNetwork},
			{"on-chain amount zero", func(r *account.DepositRequest) { r.OnChainAmount = "0.000" }, account.ErrInvalidOnChain},
			{"on-chain amount with exponent", func(r *account.DepositRequest) { r.OnChainAmount = "1e3" }, account.ErrInvalidOnChain},
			{"on-chain amount negative", func(r *account.DepositRequest) { r.OnChainAmount = "-1" }, account.ErrInvalidOnChain},
			{"on-chain amount empty", func(r *account.DepositRequest) { r.OnChainAmount = "" }, account.ErrInvalidOnChain},
			{"rate missing", func(r *account.DepositRequest) { r.USDRate = "" }, account.ErrInvalidRate},
			{"rate with a trailing point", func(r *account.DepositRequest) { r.USDRate = "1." }, account.ErrInvalidRate},
			{"hash with a newline", func(r *account.DepositRequest) { r.TxHash = "0xab\ncd" }, account.ErrInvalidTxHash},
			{"hash too short", func(r *account.DepositRequest) { r.TxHash = "0xabc" }, account.ErrInvalidTxHash},
			{"hash with a zero-width space", func(r *account.DepositRequest) { r.TxHash = depHash + "\u200b" }, account.ErrInvalidTxHash},
			{"hash with a byte order mark", func(r *account.DepositRequest) { r.TxHash = "\ufeff" + depHash }, account.ErrInvalidTxHash},
			{"address with a newline", func(r *account.DepositRequest) { r.Address = "TR7\nx" }, account.ErrInvalidAddress},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				r := depositReq()
				tc.edit(&r)
				accounts.Given().When(func(a *account.Account) error { return a.RequestDeposit(r, t0) }).ThenError(t, tc.want)
			})
		}
	})
	t.Run("the hash is recorded in its network's one form", func(t *testing.T) {
		t.Parallel()
		r := depositReq()
		r.TxHash = " 0X" + strings.ToUpper(depHash) + "\n"
		accounts.Given().When(func(a *account.Account) error { return a.RequestDeposit(r, t0) }).Then(t, depositRequested())
	})
	t.Run("a retried request is a conflict, not a second deposit", func(t *testing.T) {
		t.Parallel()
		accounts.Given(depositRequested()).When(func(a *account.Account) error { return a.RequestDeposit(depositReq(), t0) }).ThenError(t, account.ErrDuplicateID)
		r := depositReq()
		r.DepositID = "d2"
		accounts.Given(depositRequested()).When(func(a *account.Account) error { return a.RequestDeposit(r, t0) }).ThenError(t, account.ErrDuplicateTransaction)
		wantMessage(t, account.ErrDuplicateID, domainerr.Conflict, "A request with this id was already made")
	})
}

func TestChainDepositsAreNotDecidedByHand(t *testing.T) {
	t.Parallel()
	chainReq := depositRequested()
	chainReq.Source = account.SourceChain
	for _, tc := range []struct {
		name string
		do   func(a *account.Account) error
	}{
		{"confirm", func(a *account.Account) error { return a.ConfirmDeposit("d1", m("500"), "", staffID, t1) }},
		{"countersigned confirm", func(a *account.Account) error {
			return a.ConfirmDepositCountersigned("d1", m("500"), "", staffID, account.Countersign{ProposalID: "0191f3c2-7a4e-7b1c-9e2d-000000000009", ApproverID: friend}, t1)
		}},
		{"reject", func(a *account.Account) error { return a.RejectDeposit("d1", "nothing arrived", staffID, t1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			accounts.Given(chainReq).When(tc.do).ThenError(t, account.ErrChainDeposit)
		})
	}
	t.Run("the watcher still decides it", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(chainReq).When(func(a *account.Account) error {
			return a.ConfirmChainDeposit("d1", m("500"), "1", t0, 3, t1)
		}).Then(t, account.DepositConfirmed{DepositID: "d1", Received: m("500"), Source: account.SourceChain, Rate: "1", RateAt: &t0, Confirmations: 3, At: t1})
		wantBalances(t, a, "500", "0", "0", "0", "0", "0")
	})
	wantMessage(t, account.ErrChainDeposit, domainerr.Conflict,
		"This deposit is credited by the network once it has its confirmations; it cannot be confirmed or rejected by hand.")
}

func TestDeclaredDepositLinkedToChain(t *testing.T) {
	t.Parallel()
	link := account.ChainLink{ChainDepositID: "c1", TxHash: depHash, Address: "bc1qaddr", Asset: "USDT", OnChainAmount: "499.9"}
	linked := account.DepositLinkedToChain{DepositID: "d1", TransactionID: "TX-1001", ChainDepositID: "c1", TxHash: depHash, Address: "bc1qaddr", Asset: "USDT",
		OnChainAmount: "499.9", At: t1}
	t.Run("a pending deposit becomes a chain deposit", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(depositRequested()).
			When(func(a *account.Account) error { return a.LinkDepositToChain("d1", link, t1) }).
			Then(t, linked)
		d, _ := a.Deposit("d1")
		if d.Source != account.SourceChain || d.OnChainAmount != "499.9" || d.Status != account.StatusPending {
			t.Fatalf("linked deposit %+v", d)
		}
		if got, ok := a.ChainLinked("c1"); !ok || got.ID != "d1" {
			t.Fatalf("ChainLinked = %+v, %v", got, ok)
		}
	})
	t.Run("staff no longer decide it; the watcher does, by either id", func(t *testing.T) {
		t.Parallel()
		accounts.Given(depositRequested(), linked).
			When(func(a *account.Account) error { return a.ConfirmDeposit("d1", m("500"), "", staffID, t1) }).
			ThenError(t, account.ErrChainDeposit)
		a := accounts.Given(depositRequested(), linked).
			When(func(a *account.Account) error { return a.ConfirmChainDeposit("c1", m("499.90"), "1", t0, 3, t1) }).
			Then(t, account.DepositConfirmed{DepositID: "d1", Received: m("499.90"), Source: account.SourceChain, Rate: "1", RateAt: &t0, Confirmations: 3, At: t1})
		wantBalances(t, a, "499.90", "0", "0", "0", "0", "0")
	})
	t.Run("a second sighting records nothing", func(t *testing.T) {
		t.Parallel()
		accounts.Given(depositRequested(), linked).
			When(func(a *account.Account) error {
				if err := a.LinkDepositToChain("d1", link, t1); err != nil {
					return err
				}
				r := depositReq()
				r.DepositID, r.TransactionID = "c1", "DEP-CHAIN"
				return a.RecordChainDeposit(r, t1)
			}).Then(t)
	})
	t.Run("a confirmed deposit keeps the staff decision and is not credited again", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(depositRequested(), confirmed("500")).
			When(func(a *account.Account) error { return a.LinkDepositToChain("d1", link, t1) }).
			Then(t, linked)
		if err := a.ConfirmChainDeposit("c1", m("499.90"), "1", t0, 3, t1); err != nil {
			t.Fatal(err)
		}
		wantBalances(t, a, "500", "0", "0", "0", "0", "0")
		if d, _ := a.Deposit("d1"); d.Source != "" || d.StaffID != staffID {
			t.Fatalf("staff decision changed: %+v", d)
		}
	})
	t.Run("a rejected or already linked deposit is not linked", func(t *testing.T) {
		t.Parallel()
		accounts.Given(depositRequested(), account.DepositRejected{DepositID: "d1", Notes: "no", StaffID: staffID, At: t0}).
			When(func(a *account.Account) error { return a.LinkDepositToChain("d1", link, t1) }).
			ThenError(t, account.ErrDepositDecided)
		other := link
		other.ChainDepositID = "c2"
		accounts.Given(depositRequested(), linked).
			When(func(a *account.Account) error { return a.LinkDepositToChain("d1", other, t1) }).
			ThenError(t, account.ErrDepositDecided)
	})
}

func TestStaffChecks(t *testing.T) {
	t.Parallel()
	given := history(funded(), depositRequested2(), invRequested("i1", "100"), wdRequested("w1", "50", "1"), wdRequested("w2", "50", "1"), wdApproved("w2", "50", "1"))
	s := accounts.Given(given...)
	for name, cmd := range map[string]func(a *account.Account, staff string) error{
		"confirm deposit":     func(a *account.Account, s string) error { return a.ConfirmDeposit("d2", m("1"), "", s, t0) },
		"reject deposit":      func(a *account.Account, s string) error { return a.RejectDeposit("d2", "nothing arrived", s, t0) },
		"activate investment": func(a *account.Account, s string) error { return a.ActivateInvestment("i1", s, t0) },
		"reject investment":   func(a *account.Account, s string) error { return a.RejectInvestment("i1", "no", s, t0) },
		"approve withdrawal": func(a *account.Account, s string) error {
			return a.ApproveWithdrawal("w1", account.Payout{TxHash: payHash}, s, t0)
		},
		"reject withdrawal": func(a *account.Account, s string) error { return a.RejectWithdrawal("w1", "no", s, t0) },
		"waive fee":         func(a *account.Account, s string) error { return a.WaiveFee("w2", m("1"), "sorry", s, t0) },
		"post adjustment": func(a *account.Account, s string) error {
			return a.PostAdjustment(account.Adjustment{AdjustmentID: "a1", Amount: m("1"), Category: account.CategoryCorrection, Reason: "r"}, s, t0)
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s.When(func(a *account.Account) error { return cmd(a, "") }).ThenError(t, account.ErrInvalidStaffID)
			s.When(func(a *account.Account) error { return cmd(a, userID) }).ThenError(t, account.ErrOwnAccount)
			a := account.New(userID)
			aggregate.Load(a, int64(len(given)), given...)
			if err := cmd(a, staffID); err != nil || len(a.Changes()) != 1 {
				t.Errorf("another staff member: error %v, changes %v", err, a.Changes())
			}
		})
	}
	wantMessage(t, account.ErrOwnAccount, domainerr.RuleBroken, "You cannot decide or correct money on your own account")
}

func depositRequested2() account.DepositRequested {
	d := depositRequested()
	d.DepositID, d.TransactionID = "d2", "TX-1002"
	return d
}

func TestInvestments(t *testing.T) {
	t.Parallel()
	t.Run("a request holds the amount and keeps the terms", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(funded()...).
			When(func(a *account.Account) error { return a.RequestInvestment("i1", basic(), m("250"), t0) }).
			Then(t, invRequested("i1", "250"))
		wantBalances(t, a, "250", "250", "0", "0", "0", "0")
		if h, ok := a.Hold("i1"); !ok || h.Kind != account.HoldInvestment || h.Status != account.HoldPending || !h.Amount.Equal(m("250")) {
			t.Errorf("hold %+v, %v", h, ok)
		}
		if inv, _ := a.Investment("i1"); inv.Terms.PlanVersion != 2 || inv.Terms.TermRate != "0.0125" || !inv.Terms.Max.Equal(m("250")) {
			t.Errorf("terms %+v", inv.Terms)
		}
	})
	t.Run("the whole available balance can be invested", func(t *testing.T) {
		t.Parallel()
		terms := basic()
		terms.Max = m("1000")
		a := accounts.Given(funded()...).
			When(func(a *account.Account) error { return a.RequestInvestment("i1", terms, m("500"), t0) }).
			Then(t, account.InvestmentRequested{InvestmentID: "i1", Terms: terms, Amount: m("500"), At: t0})
		wantBalances(t, a, "0", "500", "0", "0", "0", "0")
	})
	t.Run("insufficient balance names what is available", func(t *testing.T) {
		t.Parallel()
		terms := basic()
		terms.Max = m("1000")
		accounts.Given(funded()...).
			When(func(a *account.Account) error { return a.RequestInvestment("i1", terms, m("500.01"), t0) }).
			ThenError(t, account.ErrInsufficientBalance)
		a := account.New(userID)
		aggregate.Load(a, 2, funded()...)
		wantMessage(t, a.RequestInvestment("i1", terms, m("500.01"), t0), domainerr.RuleBroken, "Insufficient balance: $500.00 is available")
	})
	t.Run("amount within the plan's limits", func(t *testing.T) {
		t.Parallel()
		for _, amount := range []string{"99.99", "250.01"} {
			a := account.New(userID)
			aggregate.Load(a, 2, funded()...)
			err := a.RequestInvestment("i1", basic(), m(amount), t0)
			if !errors.Is(err, account.ErrOutOfRange) {
				t.Fatalf("%s: %v", amount, err)
			}
			wantMessage(t, err, domainerr.RuleBroken, "Amount must be between $100.00 and $250.00 for the Basic plan")
		}
		for _, amount := range []string{"100", "250"} {
			accounts.Given(funded()...).
				When(func(a *account.Account) error { return a.RequestInvestment("i1", basic(), m(amount), t0) }).
				Then(t, invRequested("i1", amount))
		}
	})
	t.Run("bad terms", func(t *testing.T) {
		t.Parallel()
		for name, edit := range map[string]func(*account.Terms){
			"no plan id":        func(x *account.Terms) { x.PlanID = "" },
			"no plan name":      func(x *account.Terms) { x.PlanName = " " },
			"version 0":         func(x *account.Terms) { x.PlanVersion = 0 },
			"no term":           func(x *account.Terms) { x.TermDays = 0 },
			"negative rate":     func(x *account.Terms) { x.TermRate = "-0.1" },
			"rate not a number": func(x *account.Terms) { x.TermRate = "ten" },
			"zero min":          func(x *account.Terms) { x.Min = money.Zero },
			"max below min":     func(x *account.Terms) { x.Max = m("99") },
		} {
			terms := basic()
			edit(&terms)
			a := account.New(userID)
			aggregate.Load(a, 2, funded()...)
			if err := a.RequestInvestment("i1", terms, m("100"), t0); !errors.Is(err, account.ErrInvalidTerms) {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
	t.Run("amount must be positive, id new", func(t *testing.T) {
		t.Parallel()
		accounts.Given(funded()...).When(func(a *account.Account) error { return a.RequestInvestment("i1", basic(), m("-100"), t0) }).ThenError(t, money.ErrNotPositive)
		accounts.Given(history(funded(), invRequested("i1", "100"))...).
			When(func(a *account.Account) error { return a.RequestInvestment("i1", basic(), m("100"), t0) }).ThenError(t, account.ErrDuplicateID)
		// Ids are unique across kinds: a withdrawal's id cannot be reused for an investment.
		accounts.Given(history(funded(), wdRequested("x", "10", "0"))...).
			When(func(a *account.Account) error { return a.RequestInvestment("x", basic(), m("100"), t0) }).ThenError(t, account.ErrDuplicateID)
	})
	t.Run("activation settles the hold and fixes the return half-even", func(t *testing.T) {
		t.Parallel()
		// 250.00 × 0.0125 = 3.125 → 3.12 (half to even).
		a := accounts.Given(history(funded(), invRequested("i1", "250"))...).
			When(func(a *account.Account) error {
				return a.ActivateInvestment("i1", staffID, t1.In(time.FixedZone("X", 3600)))
			}).
			Then(t, invActivated("i1", "250", "3.12"))
		wantBalances(t, a, "250", "0", "250", "0", "0", "0")
		inv, _ := a.Investment("i1")
		if inv.Status != account.StatusActive || !inv.Return.Equal(m("3.12")) || !inv.End.Equal(t1.AddDate(0, 0, 30)) {
			t.Errorf("investment %+v", inv)
		}
		if h, _ := a.Hold("i1"); h.Status != account.HoldPosted || !h.Posted.Equal(m("250")) {
			t.Errorf("hold %+v", h)
		}
	})
	t.Run("rejection releases the hold", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(history(funded(), invRequested("i1", "250"))...).
			When(func(a *account.Account) error { return a.RejectInvestment("i1", " plan closed ", staffID, t1) }).
			Then(t, account.InvestmentRejected{InvestmentID: "i1", Amount: m("250"), Reason: "plan closed", StaffID: staffID, At: t1})
		wantBalances(t, a, "500", "0", "0", "0", "0", "0")
		if h, _ := a.Hold("i1"); h.Status != account.HoldVoided {
			t.Errorf("hold %+v", h)
		}
		accounts.Given(history(funded(), invRequested("i1", "250"))...).
			When(func(a *account.Account) error { return a.RejectInvestment("i1", "  ", staffID, t1) }).ThenError(t, account.ErrReasonRequired)
	})
	t.Run("decided once", func(t *testing.T) {
		t.Parallel()
		for _, decided := range []aggregate.Event{
			invActivated("i1", "250", "3.12"),
			account.InvestmentRejected{InvestmentID: "i1", Amount: m("250"), Reason: "r", StaffID: staffID},
		} {
			s := accounts.Given(history(funded(), invRequested("i1", "250"), decided)...)
			s.When(func(a *account.Account) error { return a.ActivateInvestment("i1", staffID, t1) }).ThenError(t, account.ErrInvestmentDecided)
			s.When(func(a *account.Account) error { return a.RejectInvestment("i1", "r", staffID, t1) }).ThenError(t, account.ErrInvestmentDecided)
		}
		accounts.Given().When(func(a *account.Account) error { return a.ActivateInvestment("i9", staffID, t1) }).ThenError(t, account.ErrInvestmentNotFound)
		wantMessage(t, account.ErrInvestmentDecided, domainerr.Conflict, "This investment was already decided")
	})
	t.Run("maturity pays principal and return", func(t *testing.T) {
		t.Parallel()
		end := t1.AddDate(0, 0, 30)
		a := accounts.Given(history(funded(), invRequested("i1", "250"), invActivated("i1", "250", "3.12"))...).
			When(func(a *account.Account) error { return a.MatureInvestment("i1", end) }).
			Then(t, account.InvestmentMatured{InvestmentID: "i1", Principal: m("250"), Return: m("3.12"), At: end})
		wantBalances(t, a, "503.12", "0", "0", "3.12", "0", "0")
		if inv, _ := a.Investment("i1"); inv.Status != account.StatusEnded {
			t.Errorf("status %s", inv.Status)
		}
	})
	t.Run("not before the end, only once, only when active", func(t *testing.T) {
		t.Parallel()
		end := t1.AddDate(0, 0, 30)
		active := history(funded(), invRequested("i1", "250"), invActivated("i1", "250", "3.12"))
		accounts.Given(active...).When(func(a *account.Account) error { return a.MatureInvestment("i1", end.Add(-time.Nanosecond)) }).ThenError(t, account.ErrNotDue)
		matured := history(active, account.InvestmentMatured{InvestmentID: "i1", Principal: m("250"), Return: m("3.12"), At: end})
		accounts.Given(matured...).When(func(a *account.Account) error { return a.MatureInvestment("i1", end) }).ThenError(t, account.ErrNotActive)
		accounts.Given(history(funded(), invRequested("i1", "250"))...).When(func(a *account.Account) error { return a.MatureInvestment("i1", end) }).ThenError(t, account.ErrNotActive)
		accounts.Given().When(func(a *account.Account) error { return a.MatureInvestment("i1", end) }).ThenError(t, account.ErrInvestmentNotFound)
		wantMessage(t, account.ErrNotDue, domainerr.RuleBroken, "This investment has not reached its end date")
	})
	t.Run("MatureDue pays every due investment, earliest end first", func(t *testing.T) {
		t.Parallel()
		a2 := invActivated("i2", "100", "1.25")
		a2.End = t1.AddDate(0, 0, 10)
		given := history(funded(), invRequested("i1", "250"), invRequested("i2", "100"), invRequested("i3", "100"),
			invActivated("i1", "250", "3.12"), a2)
		at := t1.AddDate(0, 0, 31)
		a := accounts.Given(given...).
			When(func(a *account.Account) error { return a.MatureDue(at) }).
			Then(t,
				account.InvestmentMatured{InvestmentID: "i2", Principal: m("100"), Return: m("1.25"), At: at},
				account.InvestmentMatured{InvestmentID: "i1", Principal: m("250"), Return: m("3.12"), At: at})
		wantBalances(t, a, "404.37", "100", "0", "4.37", "0", "0")
		accounts.Given(given...).When(func(a *account.Account) error { return a.MatureDue(t1) }).Then(t)
	})
}

func TestWithdrawals(t *testing.T) {
	t.Parallel()
	t.Run("a request holds the amount", func(t *testing.T) {
		t.Parallel()
		r := wdReq("w1", "100", "2.50")
		r.Address = "  TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t "
		a := accounts.Given(funded()...).
			When(func(a *account.Account) error { return a.RequestWithdrawal(r, t0) }).
			Then(t, wdRequested("w1", "100", "2.50"))
		wantBalances(t, a, "400", "100", "0", "0", "0", "0")
		if w, _ := a.Withdrawal("w1"); !w.Receives().Equal(m("97.50")) || w.Status != account.StatusPending {
			t.Errorf("withdrawal %+v", w)
		}
	})
	t.Run("a fee never blocks withdrawing the whole balance", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(funded()...).
			When(func(a *account.Account) error { return a.RequestWithdrawal(wdReq("w1", "500", "5"), t0) }).
			Then(t, wdRequested("w1", "500", "5"))
		wantBalances(t, a, "0", "500", "0", "0", "0", "0")
	})
	t.Run("no more than available", func(t *testing.T) {
		t.Parallel()
		a := account.New(userID)
		aggregate.Load(a, 2, funded()...)
		err := a.RequestWithdrawal(wdReq("w1", "500.01", "0"), t0)
		if !errors.Is(err, account.ErrInsufficientBalance) {
			t.Fatal(err)
		}
		wantMessage(t, err, domainerr.RuleBroken, "Insufficient balance: $500.00 is available")
		accounts.Given().When(func(a *account.Account) error { return a.RequestWithdrawal(wdReq("w1", "0.01", "0"), t0) }).ThenError(t, account.ErrInsufficientBalance)
	})
	t.Run("held funds are not available twice", func(t *testing.T) {
		t.Parallel()
		accounts.Given(history(funded(), wdRequested("w1", "400", "0"))...).
			When(func(a *account.Account) error { return a.RequestWithdrawal(wdReq("w2", "100.01", "0"), t0) }).
			ThenError(t, account.ErrInsufficientBalance)
	})
	t.Run("the fee must be less than the amount", func(t *testing.T) {
		t.Parallel()
		a := account.New(userID)
		aggregate.Load(a, 2, funded()...)
		err := a.RequestWithdrawal(wdReq("w1", "5", "5"), t0)
		wantMessage(t, err, domainerr.RuleBroken, "The amount must be more than the withdrawal fee of $5.00")
		accounts.Given(funded()...).When(func(a *account.Account) error { return a.RequestWithdrawal(wdReq("w1", "5", "-1"), t0) }).ThenError(t, account.ErrFeeNegative)
		accounts.Given(funded()...).When(func(a *account.Account) error { return a.RequestWithdrawal(wdReq("w1", "5.01", "5"), t0) }).Then(t, wdRequested("w1", "5.01", "5"))
	})
	t.Run("bad requests", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name string
			edit func(*account.WithdrawalRequest)
			want error
		}{
			{"no id", func(r *account.WithdrawalRequest) { r.WithdrawalID = "" }, account.ErrInvalidID},
			{"zero", func(r *account.WithdrawalRequest) { r.Amount, r.Fee = money.Zero, money.Zero }, money.ErrNotPositive},
			{"no address", func(r *account.WithdrawalRequest) { r.Address = " " }, payout.ErrInvalidAddress},
			{"address too long", func(r *account.WithdrawalRequest) { r.Address = strings.Repeat("a", 129) }, payout.ErrInvalidAddress},
			{"no asset", func(r *account.WithdrawalRequest) { r.Asset = "" }, account.ErrInvalidAsset},
			{"no network", func(r *account.WithdrawalRequest) { r.Network = "" }, account.ErrInvalidNetwork},
			{"address of another network", func(r *account.WithdrawalRequest) { r.Address = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4" }, payout.ErrInvalidAddress},
			{"checksum broken", func(r *account.WithdrawalRequest) { r.Address = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T" }, payout.ErrInvalidAddress},
			{"asset not on the network", func(r *account.WithdrawalRequest) { r.Asset = "BTC" }, account.ErrInvalidNetwork},
		} {
			r := wdReq("w1", "10", "1")
			tc.edit(&r)
			accounts.Given(funded()...).When(func(a *account.Account) error { return a.RequestWithdrawal(r, t0) }).ThenError(t, tc.want)
		}
	})
	t.Run("approval settles the hold and charges the fee", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(history(funded(), wdRequested("w1", "100", "2.50"))...).
			When(func(a *account.Account) error {
				return a.ApproveWithdrawal("w1", account.Payout{TxHash: " 0x" + strings.ToUpper(payHash) + " ", OnChainAmount: "97.51", USDRate: "0.9999"}, staffID, t1)
			}).
			Then(t, account.WithdrawalApproved{WithdrawalID: "w1", Amount: m("100"), Fee: m("2.50"), TxHash: payHash, OnChainAmount: "97.51", USDRate: "0.9999", StaffID: staffID, At: t1})
		wantBalances(t, a, "400", "0", "0", "0", "2.50", "0")
		if h, _ := a.Hold("w1"); h.Status != account.HoldPosted || !h.Posted.Equal(m("100")) {
			t.Errorf("hold %+v", h)
		}
	})
	t.Run("approval needs the payout transaction", func(t *testing.T) {
		t.Parallel()
		s := accounts.Given(history(funded(), wdRequested("w1", "100", "2.50"))...)
		s.When(func(a *account.Account) error { return a.ApproveWithdrawal("w1", account.Payout{}, staffID, t1) }).ThenError(t, account.ErrPayoutTxRequired)
		for _, bad := range []string{"0xpay", payHash[:63], payHash + "\u200b", "\ufeff" + payHash, payHash[:32] + "\u202e" + payHash[32:]} {
			s.When(func(a *account.Account) error {
				return a.ApproveWithdrawal("w1", account.Payout{TxHash: bad}, staffID, t1)
			}).ThenError(t, account.ErrInvalidTxHash)
		}
		s.When(func(a *account.Account) error {
			return a.ApproveWithdrawal("w1", account.Payout{TxHash: payHash, OnChainAmount: "1,5"}, staffID, t1)
		}).ThenError(t, account.ErrInvalidOnChain)
		s.When(func(a *account.Account) error {
			return a.ApproveWithdrawal("w1", account.Payout{TxHash: payHash, USDRate: "0"}, staffID, t1)
		}).ThenError(t, account.ErrInvalidRate)
	})
	t.Run("rejection releases the hold without a fee", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(history(funded(), wdRequested("w1", "100", "2.50"))...).
			When(func(a *account.Account) error { return a.RejectWithdrawal("w1", "address on a blocklist", staffID, t1) }).
			Then(t, account.WithdrawalRejected{WithdrawalID: "w1", Amount: m("100"), Reason: "address on a blocklist", StaffID: staffID, At: t1})
		wantBalances(t, a, "500", "0", "0", "0", "0", "0")
		if h, _ := a.Hold("w1"); h.Status != account.HoldVoided {
			t.Errorf("hold %+v", h)
		}
	})
	t.Run("decided once", func(t *testing.T) {
		t.Parallel()
		for _, decided := range []aggregate.Event{
			wdApproved("w1", "100", "2.50"),
			account.WithdrawalRejected{WithdrawalID: "w1", Amount: m("100"), Reason: "r", StaffID: staffID},
		} {
			s := accounts.Given(history(funded(), wdRequested("w1", "100", "2.50"), decided)...)
			s.When(func(a *account.Account) error {
				return a.ApproveWithdrawal("w1", account.Payout{TxHash: payHash}, staffID, t1)
			}).ThenError(t, account.ErrWithdrawalDecided)
			s.When(func(a *account.Account) error { return a.RejectWithdrawal("w1", "r", staffID, t1) }).ThenError(t, account.ErrWithdrawalDecided)
		}
		accounts.Given().When(func(a *account.Account) error { return a.RejectWithdrawal("w1", "r", staffID, t1) }).ThenError(t, account.ErrWithdrawalNotFound)
		wantMessage(t, account.ErrWithdrawalDecided, domainerr.Conflict, "This withdrawal was already decided")
	})
}

func TestFeeWaivers(t *testing.T) {
	t.Parallel()
	approved := history(funded(), wdRequested("w1", "100", "2.50"), wdApproved("w1", "100", "2.50"))
	t.Run("a waiver refunds the fee", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(approved...).
			When(func(a *account.Account) error { return a.WaiveFee("w1", m("2.50"), "first withdrawal", staffID, t1) }).
			Then(t, account.FeeWaived{WithdrawalID: "w1", Amount: m("2.50"), Reason: "first withdrawal", StaffID: staffID, At: t1})
		wantBalances(t, a, "402.50", "0", "0", "0", "0", "0")
	})
	t.Run("in parts, never more than was charged", func(t *testing.T) {
		t.Parallel()
		part := history(approved, account.FeeWaived{WithdrawalID: "w1", Amount: m("1"), Reason: "r", StaffID: staffID})
		a := account.New(userID)
		aggregate.Load(a, int64(len(part)), part...)
		err := a.WaiveFee("w1", m("1.51"), "r", staffID, t1)
		if !errors.Is(err, account.ErrWaiverTooLarge) {
			t.Fatal(err)
		}
		wantMessage(t, err, domainerr.RuleBroken, "The waiver cannot be more than the fee charged: $1.50 can still be waived")
		accounts.Given(part...).When(func(a *account.Account) error { return a.WaiveFee("w1", m("1.50"), "r", staffID, t1) }).
			Then(t, account.FeeWaived{WithdrawalID: "w1", Amount: m("1.50"), Reason: "r", StaffID: staffID, At: t1})
		all := history(part, account.FeeWaived{WithdrawalID: "w1", Amount: m("1.50"), Reason: "r", StaffID: staffID})
		accounts.Given(all...).When(func(a *account.Account) error { return a.WaiveFee("w1", m("0.01"), "r", staffID, t1) }).ThenError(t, account.ErrNoFeeToWaive)
	})
	t.Run("only an approved withdrawal's fee", func(t *testing.T) {
		t.Parallel()
		accounts.Given(history(funded(), wdRequested("w1", "100", "2.50"))...).
			When(func(a *account.Account) error { return a.WaiveFee("w1", m("1"), "r", staffID, t1) }).ThenError(t, account.ErrNotApproved)
		accounts.Given(funded()...).When(func(a *account.Account) error { return a.WaiveFee("w1", m("1"), "r", staffID, t1) }).ThenError(t, account.ErrWithdrawalNotFound)
		free := history(funded(), wdRequested("w1", "100", "0"), wdApproved("w1", "100", "0"))
		accounts.Given(free...).When(func(a *account.Account) error { return a.WaiveFee("w1", m("1"), "r", staffID, t1) }).ThenError(t, account.ErrNoFeeToWaive)
	})
	t.Run("amount positive, reason required", func(t *testing.T) {
		t.Parallel()
		accounts.Given(approved...).When(func(a *account.Account) error { return a.WaiveFee("w1", money.Zero, "r", staffID, t1) }).ThenError(t, money.ErrNotPositive)
		accounts.Given(approved...).When(func(a *account.Account) error { return a.WaiveFee("w1", m("1"), "", staffID, t1) }).ThenError(t, account.ErrReasonRequired)
		wantMessage(t, account.ErrReasonRequired, domainerr.Invalid, "Please enter a reason")
	})
}

func TestReferralBonus(t *testing.T) {
	t.Parallel()
	a := accounts.Given().
		When(func(a *account.Account) error { return a.CreditReferralBonus(friend, m("5"), t0) }).
		Then(t, account.ReferralBonusCredited{ReferredUserID: friend, Amount: m("5"), At: t0})
	if !a.Available().Equal(m("5")) || !a.Balances().Referrals.Equal(m("5")) || !a.ReferralCredited(friend) {
		t.Errorf("balances %+v", a.Balances())
	}
	credited := accounts.Given(account.ReferralBonusCredited{ReferredUserID: friend, Amount: m("5"), At: t0})
	credited.When(func(a *account.Account) error { return a.CreditReferralBonus(friend, m("5"), t1) }).ThenError(t, account.ErrReferralCredited)
	credited.When(func(a *account.Account) error { return a.CreditReferralBonus("other", m("5"), t1) }).
		Then(t, account.ReferralBonusCredited{ReferredUserID: "other", Amount: m("5"), At: t1})
	accounts.Given().When(func(a *account.Account) error { return a.CreditReferralBonus(userID, m("5"), t0) }).ThenError(t, account.ErrSelfReferral)
	accounts.Given().When(func(a *account.Account) error { return a.CreditReferralBonus("", m("5"), t0) }).ThenError(t, account.ErrInvalidReferred)
	accounts.Given().When(func(a *account.Account) error { return a.CreditReferralBonus(friend, money.Zero, t0) }).ThenError(t, money.ErrNotPositive)
	wantMessage(t, account.ErrReferralCredited, domainerr.Conflict, "The bonus for this referral was already credited")
}

func TestAdjustments(t *testing.T) {
	t.Parallel()
	adj := func(id, amount string) account.Adjustment {
		return account.Adjustment{AdjustmentID: id, Amount: m(amount), Category: account.CategoryCorrection, Reason: " double credit on 1 May "}
	}
	posted := func(id, amount string) account.AdjustmentPosted {
		return account.AdjustmentPosted{AdjustmentID: id, Amount: m(amount), Category: account.CategoryCorrection, Reason: "double credit on 1 May", StaffID: staffID, At: t0}
	}
	t.Run("credit and debit", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given(funded()...).
			When(func(a *account.Account) error { return a.PostAdjustment(adj("a1", "-500"), staffID, t0) }).
			Then(t, posted("a1", "-500"))
		wantBalances(t, a, "0", "0", "0", "0", "0", "-500")
		a = accounts.Given().
			When(func(a *account.Account) error { return a.PostAdjustment(adj("a1", "0.01"), staffID, t0) }).
			Then(t, posted("a1", "0.01"))
		wantBalances(t, a, "0.01", "0", "0", "0", "0", "0.01")
	})
	t.Run("never below zero", func(t *testing.T) {
		t.Parallel()
		a := account.New(userID)
		aggregate.Load(a, 2, funded()...)
		err := a.PostAdjustment(adj("a1", "-500.01"), staffID, t0)
		if !errors.Is(err, account.ErrAdjustmentNegative) {
			t.Fatal(err)
		}
		wantMessage(t, err, domainerr.RuleBroken, "A deduction cannot take the available balance below zero: $500.00 is available, so at most $500.00 can be deducted")
		// Held money is not available to a correction either.
		accounts.Given(history(funded(), wdRequested("w1", "400", "0"))...).
			When(func(a *account.Account) error { return a.PostAdjustment(adj("a1", "-100.01"), staffID, t0) }).
			ThenError(t, account.ErrAdjustmentNegative)
	})
	t.Run("bad adjustments", func(t *testing.T) {
		t.Parallel()
		s := accounts.Given(history(funded(), posted("a1", "1"))...)
		s.When(func(a *account.Account) error { return a.PostAdjustment(adj("a1", "1"), staffID, t0) }).ThenError(t, account.ErrDuplicateID)
		s.When(func(a *account.Account) error { return a.PostAdjustment(adj("a2", "0"), staffID, t0) }).ThenError(t, account.ErrAdjustmentZero)
		s.When(func(a *account.Account) error { return a.PostAdjustment(adj("", "1"), staffID, t0) }).ThenError(t, account.ErrInvalidID)
		noReason := adj("a2", "1")
		noReason.Reason = " "
		s.When(func(a *account.Account) error { return a.PostAdjustment(noReason, staffID, t0) }).ThenError(t, account.ErrReasonRequired)
		badCategory := adj("a2", "1")
		badCategory.Category = "bonus"
		s.When(func(a *account.Account) error { return a.PostAdjustment(badCategory, staffID, t0) }).ThenError(t, account.ErrInvalidCategory)
	})
}

func TestCountersignedAdjustment(t *testing.T) {
	t.Parallel()
	const second = "0191f3c2-7a4e-7b1c-9e2d-000000000002"
	adj := account.Adjustment{AdjustmentID: "a1", Amount: m("900"), Category: account.CategoryGoodwill, Reason: "outage"}
	accounts.Given().
		When(func(a *account.Account) error {
			return a.PostAdjustmentCountersigned(adj, staffID, account.Countersign{ProposalID: "p1", ApproverID: second}, t0)
		}).
		Then(t, account.AdjustmentPosted{AdjustmentID: "a1", Amount: m("900"), Category: account.CategoryGoodwill, Reason: "outage",
			StaffID: staffID, ProposalID: "p1", ApprovedBy: second, At: t0})
	accounts.Given().
		When(func(a *account.Account) error {
			return a.PostAdjustmentCountersigned(adj, staffID, account.Countersign{ProposalID: "p1", ApproverID: staffID}, t0)
		}).ThenError(t, account.ErrSamePerson)
	accounts.Given().
		When(func(a *account.Account) error {
			return a.PostAdjustmentCountersigned(adj, staffID, account.Countersign{ProposalID: "p1", ApproverID: userID}, t0)
		}).ThenError(t, account.ErrOwnAccount)
}

func TestFeeExemption(t *testing.T) {
	t.Parallel()
	on := account.FeeExemptionSet{Exempt: true, Reason: "VIP agreement", StaffID: staffID, At: t0}
	t.Run("on, then off", func(t *testing.T) {
		t.Parallel()
		a := accounts.Given().
			When(func(a *account.Account) error { return a.SetFeeExemption(true, " VIP agreement ", staffID, t0) }).
			Then(t, on)
		if !a.FeeExempt() {
			t.Fatal("the account is not exempt after the exemption was set")
		}
		a = accounts.Given(on).
			When(func(a *account.Account) error { return a.SetFeeExemption(false, "agreement ended", staffID, t1) }).
			Then(t, account.FeeExemptionSet{Exempt: false, Reason: "agreement ended", StaffID: staffID, At: t1})
		if a.FeeExempt() {
			t.Fatal("the account is still exempt after the exemption was lifted")
		}
		wantBalances(t, a, "0", "0", "0", "0", "0", "0")
	})
	t.Run("what is in force raises nothing", func(t *testing.T) {
		t.Parallel()
		accounts.Given(on).When(func(a *account.Account) error { return a.SetFeeExemption(true, "again", staffID, t1) }).Then(t)
		accounts.Given().When(func(a *account.Account) error { return a.SetFeeExemption(false, "never on", staffID, t1) }).Then(t)
	})
	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		accounts.Given().When(func(a *account.Account) error { return a.SetFeeExemption(true, " ", staffID, t0) }).ThenError(t, account.ErrReasonRequired)
		accounts.Given().When(func(a *account.Account) error { return a.SetFeeExemption(true, "r", userID, t0) }).ThenError(t, account.ErrOwnAccount)
		accounts.Given().When(func(a *account.Account) error { return a.SetFeeExemption(true, "r", "", t0) }).ThenError(t, account.ErrInvalidStaffID)
	})
	t.Run("the audit replays it", func(t *testing.T) {
		t.Parallel()
		a := account.New(userID)
		if _, err := a.Check(on); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMaturityInstructions(t *testing.T) {
	t.Parallel()
	active := history(funded(), invRequested("i1", "200"), invActivated("i1", "200", "2.50"))
	end := t1.AddDate(0, 0, 30)
	t.Run("reinvest on a pending or active investment", func(t *testing.T) {
		t.Parallel()
		accounts.Given(history(funded(), invRequested("i1", "200"))...).
			When(func(a *account.Account) error { return a.SetMaturityInstruction("i1", account.InstructionReinvest, t1) }).
			Then(t, account.InvestmentInstructionSet{InvestmentID: "i1", Instruction: account.InstructionReinvest, At: t1})
		a := accounts.Given(active...).
			When(func(a *account.Account) error { return a.SetMaturityInstruction("i1", account.InstructionReinvest, t1) }).
			Then(t, account.InvestmentInstructionSet{InvestmentID: "i1", Instruction: account.InstructionReinvest, At: t1})
		wantBalances(t, a, "300", "0", "200", "0", "0", "0")
	})
	t.Run("the instruction it already has changes nothing", func(t *testing.T) {
		t.Parallel()
		accounts.Given(active...).
			When(func(a *account.Account) error { return a.SetMaturityInstruction("i1", account.InstructionPayOut, t1) }).
			Then(t)
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		accounts.Given(active...).
			When(func(a *account.Account) error { return a.SetMaturityInstruction("i1", "hold", t1) }).
			ThenError(t, account.ErrInvalidInstruction)
		accounts.Given(active...).
			When(func(a *account.Account) error {
				return a.SetMaturityInstruction("nope", account.InstructionReinvest, t1)
			}).
			ThenError(t, account.ErrInvestmentNotFound)
		matured := history(active, account.InvestmentMatured{InvestmentID: "i1", Principal: m("200"), Return: m("2.50"), At: end})
		accounts.Given(matured...).
			When(func(a *account.Account) error {
				return a.SetMaturityInstruction("i1", account.InstructionReinvest, end)
			}).
			ThenError(t, account.ErrInvestmentEnded)
	})
	t.Run("reinvest at maturity starts a new active investment at the old end", func(t *testing.T) {
		t.Parallel()
		late := end.Add(72 * time.Hour)
		newID := account.ReinvestmentID("i1")
		a := accounts.Given(history(active, account.InvestmentInstructionSet{InvestmentID: "i1", Instruction: account.InstructionReinvest, At: t1})...).
			When(func(a *account.Account) error { return a.MatureDue(late) }).
			Then(t,
				account.InvestmentMatured{InvestmentID: "i1", Principal: m("200"), Return: m("2.50"), At: late},
				account.InvestmentReinvested{
					InvestmentID: "i1", NewInvestmentID: newID, Terms: basic(), Amount: m("202.50"),
					Return: m("2.53"), Start: end, End: end.AddDate(0, 0, 30),
				})
		wantBalances(t, a, "300", "0", "202.50", "2.50", "0", "0")
		old, _ := a.Investment("i1")
		next, ok := a.Investment(newID)
		if old.ReinvestedAs != newID || !ok || next.ReinvestedFrom != "i1" || next.Status != account.StatusActive ||
			next.Instruction != "" || !next.Payout().Equal(m("205.03")) {
			t.Errorf("old %+v\nnew %+v", old, next)
		}
	})
	t.Run("a reinvestment already due matures in the same run and pays out", func(t *testing.T) {
		t.Parallel()
		farLate := end.AddDate(0, 0, 31)
		newID := account.ReinvestmentID("i1")
		a := accounts.Given(history(active, account.InvestmentInstructionSet{InvestmentID: "i1", Instruction: account.InstructionReinvest, At: t1})...).
			When(func(a *account.Account) error { return a.MatureDue(farLate) }).
			Then(t,
				account.InvestmentMatured{InvestmentID: "i1", Principal: m("200"), Return: m("2.50"), At: farLate},
				account.InvestmentReinvested{
					InvestmentID: "i1", NewInvestmentID: newID, Terms: basic(), Amount: m("202.50"),
					Return: m("2.53"), Start: end, End: end.AddDate(0, 0, 30),
				},
				account.InvestmentMatured{InvestmentID: newID, Principal: m("202.50"), Return: m("2.53"), At: farLate})
		wantBalances(t, a, "505.03", "0", "0", "5.03", "0", "0")
	})
	t.Run("the reinvestment id is derived, the same every time", func(t *testing.T) {
		t.Parallel()
		id := account.ReinvestmentID("i1")
		if id != account.ReinvestmentID("i1") || id == account.ReinvestmentID("i2") || len(id) != 36 || id[14] != '5' {
			t.Errorf("id %q", id)
		}
	})
}

func TestEarlyRedemption(t *testing.T) {
	t.Parallel()
	active := history(funded(), invRequested("i1", "200"), invActivated("i1", "200", "2.50"))
	end := t1.AddDate(0, 0, 30)
	t.Run("preview and redeem: principal back, return forfeited", func(t *testing.T) {
		t.Parallel()
		a := account.New(userID)
		aggregate.Load(a, 3, active...)
		r, err := a.EarlyRedemption("i1", end.Add(-time.Second))
		if err != nil || !r.Principal.Equal(m("200")) || !r.Forfeited.Equal(m("2.50")) {
			t.Fatalf("preview %+v, %v", r, err)
		}
		if len(a.Changes()) != 0 {
			t.Errorf("a preview raised %v", a.Changes())
		}
		a = accounts.Given(active...).
			When(func(a *account.Account) error { return a.RedeemEarly("i1", t1.Add(time.Hour)) }).
			Then(t, account.InvestmentRedeemed{InvestmentID: "i1", Principal: m("200"), Forfeited: m("2.50"), At: t1.Add(time.Hour)})
		wantBalances(t, a, "500", "0", "0", "0", "0", "0")
		if inv, _ := a.Investment("i1"); inv.Status != account.StatusEnded || !inv.ClosedEarly {
			t.Errorf("investment %+v", inv)
		}
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		accounts.Given(active...).
			When(func(a *account.Account) error { return a.RedeemEarly("i1", end) }).
			ThenError(t, account.ErrPastEnd)
		accounts.Given(history(funded(), invRequested("i1", "200"))...).
			When(func(a *account.Account) error { return a.RedeemEarly("i1", t1) }).
			ThenError(t, account.ErrNotActive)
		accounts.Given(active...).
			When(func(a *account.Account) error { return a.RedeemEarly("i9", t1) }).
			ThenError(t, account.ErrInvestmentNotFound)
		redeemed := history(active, account.InvestmentRedeemed{InvestmentID: "i1", Principal: m("200"), Forfeited: m("2.50"), At: t1})
		accounts.Given(redeemed...).
			When(func(a *account.Account) error { return a.RedeemEarly("i1", t1) }).
			ThenError(t, account.ErrNotActive)
		accounts.Given(redeemed...).
			When(func(a *account.Account) error { return a.MatureDue(end) }).
			Then(t)
	})
}

func TestEventNamesAreStable(t *testing.T) {
	t.Parallel()
	want := []string{
		"account.deposit_requested", "account.deposit_confirmed", "account.deposit_rejected",
		"account.investment_requested", "account.investment_activated", "account.investment_rejected", "account.investment_matured",
		"account.investment_instruction_set", "account.investment_redeemed", "account.investment_reinvested",
		"account.withdrawal_requested", "account.withdrawal_approved", "account.withdrawal_rejected",
		"account.fee_waived", "account.referral_bonus_credited", "account.adjustment_posted", "account.fee_exemption_set",
		"account.deposit_linked_to_chain",
	}
	events := account.Events()
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for i, e := range events {
		if e.EventName() != want[i] {
			t.Errorf("event %d is %q, want %q", i, e.EventName(), want[i])
		}
	}
	if account.Stream(userID) != "account-"+userID {
		t.Errorf("stream %q", account.Stream(userID))
	}
}

func TestOpenDepositQuota(t *testing.T) {
	t.Parallel()
	requested := func(n int) account.DepositRequested {
		e := depositRequested()
		e.DepositID, e.TransactionID = "d"+strconv.Itoa(n), "TX-"+strconv.Itoa(n)
		return e
	}
	pending := func(n int) []aggregate.Event {
		var out []aggregate.Event
		for i := 1; i <= n; i++ {
			out = append(out, requested(i))
		}
		return out
	}
	t.Run("below the quota another deposit may be declared", func(t *testing.T) {
		t.Parallel()
		accounts.Given(pending(4)...).When(func(a *account.Account) error { return a.AllowAnotherDeposit(5) }).Then(t)
	})
	t.Run("at the quota the next one is refused with the count", func(t *testing.T) {
		t.Parallel()
		accounts.Given(pending(5)...).When(func(a *account.Account) error { return a.AllowAnotherDeposit(5) }).ThenError(t, account.ErrTooManyOpenDeposits)
		a := account.NewFor(userID)()
		for _, e := range pending(5) {
			a.Apply(e)
		}
		err := a.AllowAnotherDeposit(5)
		if err == nil || !strings.HasPrefix(err.Error(), "You have 5 deposits waiting for confirmation.") {
			t.Fatalf("message %v", err)
		}
	})
	t.Run("decided deposits do not count", func(t *testing.T) {
		t.Parallel()
		h := pending(5)
		c := confirmed("500")
		c.DepositID = "d2"
		r := account.DepositRejected{DepositID: "d4", StaffID: staffID, At: t0}
		accounts.Given(append(h, c, r)...).When(func(a *account.Account) error { return a.AllowAnotherDeposit(5) }).Then(t)
		accounts.Given(append(h, c)...).When(func(a *account.Account) error { return a.AllowAnotherDeposit(5) }).Then(t)
	})
	t.Run("deposits the network confirms do not count", func(t *testing.T) {
		t.Parallel()
		h := pending(5)
		c := h[0].(account.DepositRequested)
		c.Source = account.SourceChain
		h[0] = c
		l := account.DepositLinkedToChain{DepositID: "d2", TransactionID: "TX-2", ChainDepositID: "c2", TxHash: depHash, Asset: "USDT", OnChainAmount: "1", At: t0}
		accounts.Given(append(h, l)...).When(func(a *account.Account) error { return a.AllowAnotherDeposit(4) }).Then(t)
		accounts.Given(h...).When(func(a *account.Account) error { return a.AllowAnotherDeposit(4) }).ThenError(t, account.ErrTooManyOpenDeposits)
	})
	t.Run("a quota of one says a deposit", func(t *testing.T) {
		t.Parallel()
		a := account.NewFor(userID)()
		a.Apply(requested(1))
		if err := a.AllowAnotherDeposit(1); err == nil || !strings.HasPrefix(err.Error(), "You have a deposit waiting for confirmation.") {
			t.Fatalf("message %v", err)
		}
	})
}

package aggregate_test

import (
	"testing"

	"clearvest/domain/aggregate"
	"clearvest/domain/aggregate/aggregatetest"
)

var bank = aggregatetest.For(NewPiggyBank)

func TestPiggyBankRules(t *testing.T) {
	t.Parallel()

	t.Run("deposit into a new bank", func(t *testing.T) {
		t.Parallel()
		b := bank.Given().
			When(func(b *PiggyBank) error { return b.Deposit(500) }).
			Then(t, Deposited{Cents: 500})
		if b.Balance() != 500 {
			t.Errorf("balance = %d, want 500", b.Balance())
		}
	})
	t.Run("deposit must be positive", func(t *testing.T) {
		t.Parallel()
		bank.Given().
			When(func(b *PiggyBank) error { return b.Deposit(0) }).
			ThenError(t, ErrNotPositive)
	})
	t.Run("withdraw up to the balance", func(t *testing.T) {
		t.Parallel()
		bank.Given(Deposited{Cents: 500}, Withdrawn{Cents: 200}).
			When(func(b *PiggyBank) error { return b.Withdraw(300) }).
			Then(t, Withdrawn{Cents: 300})
	})
	t.Run("withdraw more than the balance", func(t *testing.T) {
		t.Parallel()
		bank.Given(Deposited{Cents: 500}).
			When(func(b *PiggyBank) error { return b.Withdraw(501) }).
			ThenError(t, ErrInsufficientFunds)
	})
	t.Run("smashing pays out the balance", func(t *testing.T) {
		t.Parallel()
		bank.Given(Deposited{Cents: 700}).
			When(func(b *PiggyBank) error { return b.Smash() }).
			Then(t, Withdrawn{Cents: 700}, Smashed{})
	})
	t.Run("smashing an empty bank", func(t *testing.T) {
		t.Parallel()
		bank.Given().
			When(func(b *PiggyBank) error { return b.Smash() }).
			Then(t, Smashed{})
	})
	t.Run("a smashed bank accepts nothing", func(t *testing.T) {
		t.Parallel()
		smashed := bank.Given(Deposited{Cents: 100}, Withdrawn{Cents: 100}, Smashed{})
		smashed.When(func(b *PiggyBank) error { return b.Deposit(1) }).ThenError(t, ErrSmashed)
		smashed.When(func(b *PiggyBank) error { return b.Smash() }).ThenError(t, ErrSmashed)
	})
	t.Run("history is replayed without checking rules", func(t *testing.T) {
		t.Parallel()
		// A rule added later (here: deposits must be positive) must not make old history
		// unreadable; the events happened.
		b := bank.Given(Deposited{Cents: 0}, Deposited{Cents: -5}).
			When(func(*PiggyBank) error { return nil }).
			Then(t)
		if b.Balance() != -5 {
			t.Errorf("balance = %d, want -5", b.Balance())
		}
	})
}

func TestRaiseAppliesImmediately(t *testing.T) {
	t.Parallel()
	// The withdrawal is only allowed because the deposit raised in the same command is already
	// applied when the withdrawal checks the balance.
	bank.Given().
		When(func(b *PiggyBank) error {
			if err := b.Deposit(300); err != nil {
				return err
			}
			if b.Balance() != 300 {
				t.Errorf("balance right after Raise = %d, want 300", b.Balance())
			}
			return b.Withdraw(300)
		}).
		Then(t, Deposited{Cents: 300}, Withdrawn{Cents: 300})
}

func TestLoadSetsVersionAndClearsChanges(t *testing.T) {
	t.Parallel()
	b := NewPiggyBank()
	if err := b.Deposit(1); err != nil {
		t.Fatal(err)
	}
	aggregate.Load(b, 7, Deposited{Cents: 40}, Deposited{Cents: 2})
	if b.Balance() != 43 {
		t.Errorf("balance = %d, want 43 (Load applies on top of current state)", b.Balance())
	}
	if got := b.Changes(); len(got) != 0 {
		t.Errorf("Changes() after Load = %v, want none", got)
	}
	if b.LoadedVersion() != 7 || b.Version() != 7 {
		t.Errorf("LoadedVersion, Version = %d, %d; want 7, 7", b.LoadedVersion(), b.Version())
	}
}

func TestVersionIsLoadedPlusChanges(t *testing.T) {
	t.Parallel()
	b := NewPiggyBank()
	if b.Version() != 0 || b.LoadedVersion() != 0 {
		t.Fatalf("new aggregate: Version %d, LoadedVersion %d", b.Version(), b.LoadedVersion())
	}
	aggregate.Load(b, 3, Deposited{Cents: 10}, Deposited{Cents: 10}, Deposited{Cents: 10})
	for i, step := range []func() error{
		func() error { return b.Deposit(5) },
		func() error { return b.Withdraw(20) },
		func() error { return b.Smash() }, // raises two events
	} {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if got := len(b.Changes()); got != 4 {
		t.Fatalf("len(Changes()) = %d, want 4", got)
	}
	if b.LoadedVersion() != 3 || b.Version() != 7 {
		t.Errorf("LoadedVersion, Version = %d, %d; want 3, 7", b.LoadedVersion(), b.Version())
	}
}

func TestFailedRuleRaisesNothing(t *testing.T) {
	t.Parallel()
	b := NewPiggyBank()
	aggregate.Load(b, 1, Deposited{Cents: 10})
	if err := b.Withdraw(11); err == nil {
		t.Fatal("Withdraw(11) from 10 succeeded")
	}
	if len(b.Changes()) != 0 || b.Version() != 1 || b.Balance() != 10 {
		t.Errorf("after a refused withdrawal: changes %v, version %d, balance %d", b.Changes(), b.Version(), b.Balance())
	}
}

func TestChangesReturnsACopy(t *testing.T) {
	t.Parallel()
	b := NewPiggyBank()
	if err := b.Deposit(1); err != nil {
		t.Fatal(err)
	}
	got := b.Changes()
	got[0] = Smashed{}
	_ = append(got[:0], Withdrawn{Cents: 1})
	if again := b.Changes(); len(again) != 1 || again[0] != (Deposited{Cents: 1}) {
		t.Errorf("Changes() = %v after the caller edited its copy", again)
	}
}

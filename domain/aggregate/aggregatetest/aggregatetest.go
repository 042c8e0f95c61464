// Package aggregatetest writes aggregate tests as specifications:
//
//	bank := aggregatetest.For(NewPiggyBank)
//	bank.Given(Deposited{Cents: 500}).
//		When(func(b *PiggyBank) error { return b.Withdraw(300) }).
//		Then(t, Withdrawn{Cents: 300})
//	bank.Given().
//		When(func(b *PiggyBank) error { return b.Withdraw(1) }).
//		ThenError(t, ErrInsufficientFunds)
//
// Given events are loaded the way the event store would load them (no business rules run);
// When is one command; Then lists exactly the events it must raise, in order.
package aggregatetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"clearvest/domain/aggregate"
)

// tracked is every aggregate: anything that embeds aggregate.Root has Changes.
type tracked interface {
	aggregate.Aggregate
	Changes() []aggregate.Event
}

// Fixture builds scenarios for one aggregate type.
type Fixture[A tracked] struct {
	newAgg func() A
}

// For returns a fixture that starts every scenario from newAgg().
func For[A tracked](newAgg func() A) Fixture[A] {
	return Fixture[A]{newAgg: newAgg}
}

// Given starts a scenario whose aggregate has the given history.
func (f Fixture[A]) Given(history ...aggregate.Event) Scenario[A] {
	return Scenario[A]{newAgg: f.newAgg, given: history}
}

// Scenario is one given/when/then case. It is a value: branching from a shared Given is safe.
type Scenario[A tracked] struct {
	newAgg func() A
	given  []aggregate.Event
	when   func(A) error
}

// When sets the command under test.
func (s Scenario[A]) When(command func(A) error) Scenario[A] {
	s.when = command
	return s
}

// Then runs the scenario and requires that the command succeeds and raises exactly want, in
// order (Then(t) with no events means "succeeds and raises nothing"). It returns the aggregate
// for further checks of its state.
//
// It also replays given + raised events into a fresh aggregate and requires the same state: a
// behaviour method that changes state outside Apply would work in this command and then be lost
// on the next load, a bug no other test notices.
func (s Scenario[A]) Then(t testing.TB, want ...aggregate.Event) A {
	t.Helper()
	agg, err := s.run(t)
	if err != nil {
		t.Fatalf("When returned error %q, want events:\n%s", err, describe(t, want))
	}
	got := agg.Changes()
	if !sameEvents(t, got, want) {
		t.Fatalf("raised events differ\ngot:\n%s\nwant:\n%s", describe(t, got), describe(t, want))
	}
	replayed := s.load()
	for _, e := range got {
		aggregate.Raise(replayed, e)
	}
	if !reflect.DeepEqual(agg, replayed) {
		t.Fatalf("state after When differs from replaying its events: state was changed outside Apply\nafter When: %+v\nreplayed:   %+v", agg, replayed)
	}
	return agg
}

// ThenError runs the scenario and requires that the command fails with an error matching want
// under errors.Is. Events raised before the failure do not matter: nothing is stored when a
// command fails.
func (s Scenario[A]) ThenError(t testing.TB, want error) A {
	t.Helper()
	if want == nil {
		t.Fatal("ThenError(nil): use Then for commands that succeed")
	}
	agg, err := s.run(t)
	if err == nil {
		t.Fatalf("When succeeded, want error %q; raised:\n%s", want, describe(t, agg.Changes()))
	}
	if !errors.Is(err, want) {
		t.Fatalf("When returned error %q (%T), want %q", err, err, want)
	}
	return agg
}

func (s Scenario[A]) run(t testing.TB) (A, error) {
	t.Helper()
	if s.when == nil {
		t.Fatal("scenario has no When")
	}
	agg := s.load()
	return agg, s.when(agg)
}

func (s Scenario[A]) load() A {
	agg := s.newAgg()
	aggregate.Load(agg, int64(len(s.given)), s.given...)
	return agg
}

// sameEvents compares events as they would be stored: same type, same JSON. Comparing Go values
// with reflect.DeepEqual would call equal amounts different when their decimals are scaled
// differently, and it is the stored form that must match anyway.
func sameEvents(t testing.TB, got, want []aggregate.Event) bool {
	t.Helper()
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if reflect.TypeOf(got[i]) != reflect.TypeOf(want[i]) || encode(t, got[i]) != encode(t, want[i]) {
			return false
		}
	}
	return true
}

func describe(t testing.TB, events []aggregate.Event) string {
	t.Helper()
	if len(events) == 0 {
		return "  (no events)"
	}
	var b strings.Builder
	for i, e := range events {
		fmt.Fprintf(&b, "  %d. %s (%T) %s\n", i+1, e.EventName(), e, encode(t, e))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func encode(t testing.TB, e aggregate.Event) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("event %T cannot be encoded: %v", e, err)
	}
	return string(b)
}

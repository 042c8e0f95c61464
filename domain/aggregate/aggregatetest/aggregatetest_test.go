package aggregatetest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"clearvest/domain/aggregate"
	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/money"
)

type counter struct {
	aggregate.Root
	n     int
	total money.Money
}

type added struct {
	By     int
	Amount money.Money
}

func (added) EventName() string { return "counter.added" }

var errTooBig = errors.New("too big")

func (c *counter) Apply(e aggregate.Event) {
	if e, ok := e.(added); ok {
		c.n += e.By
		c.total = c.total.Add(e.Amount)
	}
}

func (c *counter) Add(by int) error {
	if c.n+by > 10 {
		return errTooBig
	}
	aggregate.Raise(c, added{By: by})
	return nil
}

// sloppyCounter changes state without an event: the change would vanish on the next load.
type sloppyCounter struct{ counter }

func (c *sloppyCounter) Add(by int) error {
	if err := c.counter.Add(by); err != nil {
		return err
	}
	c.n++
	return nil
}

var counters = aggregatetest.For(func() *counter { return &counter{} })

func TestPassingScenarios(t *testing.T) {
	t.Parallel()
	c := counters.Given(added{By: 2}, added{By: 3}).
		When(func(c *counter) error { return c.Add(4) }).
		Then(t, added{By: 4})
	if c.n != 9 || c.Version() != 3 || c.LoadedVersion() != 2 {
		t.Errorf("n, Version, LoadedVersion = %d, %d, %d; want 9, 3, 2", c.n, c.Version(), c.LoadedVersion())
	}
	counters.Given(added{By: 10}).
		When(func(c *counter) error { return c.Add(1) }).
		ThenError(t, errTooBig)
	counters.Given().
		When(func(*counter) error { return nil }).
		Then(t)
}

func TestEventsCompareByStoredForm(t *testing.T) {
	t.Parallel()
	// 1.5 and 1.50 are the same amount built differently; they are stored identically.
	counters.Given().
		When(func(c *counter) error {
			aggregate.Raise(c, added{Amount: money.MustParse("1.5")})
			return nil
		}).
		Then(t, added{Amount: money.FromCents(150)})
}

func TestFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(t testing.TB)
		want string
	}{
		{
			name: "wrong event",
			run: func(t testing.TB) {
				counters.Given().When(func(c *counter) error { return c.Add(1) }).Then(t, added{By: 2})
			},
			want: "raised events differ",
		},
		{
			name: "missing event",
			run: func(t testing.TB) {
				counters.Given().When(func(c *counter) error { return c.Add(1) }).Then(t)
			},
			want: "raised events differ",
		},
		{
			name: "unexpected error",
			run: func(t testing.TB) {
				counters.Given(added{By: 10}).When(func(c *counter) error { return c.Add(1) }).Then(t, added{By: 1})
			},
			want: `When returned error "too big"`,
		},
		{
			name: "expected error but succeeded",
			run: func(t testing.TB) {
				counters.Given().When(func(c *counter) error { return c.Add(1) }).ThenError(t, errTooBig)
			},
			want: "When succeeded",
		},
		{
			name: "different error",
			run: func(t testing.TB) {
				counters.Given(added{By: 10}).
					When(func(c *counter) error { return c.Add(1) }).
					ThenError(t, errors.New("too big"))
			},
			want: "want \"too big\"",
		},
		{
			name: "no when",
			run:  func(t testing.TB) { counters.Given().Then(t) },
			want: "no When",
		},
		{
			name: "state changed outside Apply",
			run: func(t testing.TB) {
				aggregatetest.For(func() *sloppyCounter { return &sloppyCounter{} }).Given().
					When(func(c *sloppyCounter) error { return c.Add(1) }).
					Then(t, added{By: 1})
			},
			want: "state was changed outside Apply",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spy := &spyTB{TB: t}
			spy.run(tt.run)
			if !spy.failed {
				t.Fatal("the scenario passed")
			}
			if !strings.Contains(spy.msg, tt.want) {
				t.Errorf("failure message %q does not contain %q", spy.msg, tt.want)
			}
		})
	}
}

// spyTB records a failure instead of failing the real test.
type spyTB struct {
	testing.TB
	failed bool
	msg    string
}

type stop struct{}

func (s *spyTB) Helper() {}

func (s *spyTB) Fatal(args ...any) {
	s.failed, s.msg = true, fmt.Sprint(args...)
	panic(stop{})
}

func (s *spyTB) Fatalf(format string, args ...any) {
	s.failed, s.msg = true, fmt.Sprintf(format, args...)
	panic(stop{})
}

func (s *spyTB) run(f func(testing.TB)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(stop); !ok {
				panic(r)
			}
		}
	}()
	f(s)
}

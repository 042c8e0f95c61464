// Package clock is how the current time reaches code that must not read it on its own. The
// domain is given times, never asks the system: that keeps decisions replayable and lets tests
// (and the development-only test clock) move time, for example to make an investment mature.
package clock

import (
	"sync"
	"sync/atomic"
	"time"

	"clearvest/domain/domainerr"
)

// Clock tells the time. Every implementation returns UTC.
type Clock interface {
	Now() time.Time
}

// System returns the machine's clock, in UTC so that stored times never depend on the host's
// time zone.
func System() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC() }

// Fixed returns a clock that always says t (in UTC).
func Fixed(t time.Time) Clock { return fixedClock(t.UTC()) }

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// Manual is a clock that moves only when told to. It is safe for concurrent use, so one test can
// advance it while the code under test reads it.
type Manual struct {
	mu  sync.Mutex
	now time.Time
}

// NewManual returns a manual clock reading t.
func NewManual(t time.Time) *Manual { return &Manual{now: t.UTC()} }

// Now returns the current reading.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock by d and returns the new reading. A negative d moves it back, which
// tests of clock skew need.
func (m *Manual) Advance(d time.Duration) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
	return m.now
}

// Set moves the clock to t.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = t.UTC()
}

// MaxAdvance is the most one Advance of an Offset clock may move it: ten years (3650 days).
const MaxAdvance = 3650 * 24 * time.Hour

// maxOffset bounds the sum of all advances, far below time.Duration's limit of 292 years.
const maxOffset = 100 * 365 * 24 * time.Hour

// ErrBadAdvance is returned by Offset.Advance for a step it refuses.
var ErrBadAdvance = domainerr.New(domainerr.Invalid, "Advance must be a positive duration such as 72h, of at most 3650 days")

// Offset is a clock that runs with its base clock, shifted forward by an offset that only grows.
// It is the development test clock: installed as the application's clock, it lets a developer
// move the whole process into the future (to make an investment mature, say) while time keeps
// running. It is safe for concurrent use.
type Offset struct {
	base   Clock
	offset atomic.Int64 // nanoseconds
}

// NewOffset returns an Offset clock reading base, not shifted yet.
func NewOffset(base Clock) *Offset { return &Offset{base: base} }

// Now returns the base clock's reading plus the offset, in UTC.
func (o *Offset) Now() time.Time { return o.base.Now().Add(o.Offset()).UTC() }

// Offset is how far ahead of its base the clock is.
func (o *Offset) Offset() time.Duration { return time.Duration(o.offset.Load()) }

// Advance moves the clock forward by d and returns the new offset. It refuses (ErrBadAdvance)
// a d that is zero, negative or larger than MaxAdvance, and a total offset above a hundred
// years; time never goes backwards.
func (o *Offset) Advance(d time.Duration) (time.Duration, error) {
	if d <= 0 || d > MaxAdvance {
		return o.Offset(), ErrBadAdvance
	}
	for {
		cur := o.offset.Load()
		next := cur + int64(d)
		if next > int64(maxOffset) {
			return time.Duration(cur), domainerr.New(domainerr.Invalid, "The test clock is already a hundred years ahead")
		}
		if o.offset.CompareAndSwap(cur, next) {
			return time.Duration(next), nil
		}
	}
}

// Package clock is how the current time reaches code that must not read it on its own. The
// domain is given times, never asks the system: that keeps decisions replayable and lets tests
// (and the development-only test clock) move time, for example to make an investment mature.
package clock

import (
	"sync"
	"time"
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

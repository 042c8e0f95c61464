package chainwatch

import (
	"testing"
	"time"
)

func TestStateNamesTheWorstOfWhatTheLastPassesSaw(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	every := 5 * time.Second
	for _, c := range []struct {
		name string
		s    NetworkStatus
		want State
	}{
		{"no pass yet", NetworkStatus{}, StateStarting},
		{"failing from the start", NetworkStatus{LastError: "refused", LastErrorAt: now}, StateDown},
		{"failed after a success", NetworkStatus{LastSuccess: now.Add(-time.Minute), LastErrorAt: now}, StateDown},
		{"recovered after a failure", NetworkStatus{LastSuccess: now, LastErrorAt: now.Add(-time.Minute), Tip: 100, Cursor: 100}, StateOK},
		{"a few blocks to read", NetworkStatus{LastSuccess: now, Tip: 110, Cursor: 100}, StateOK},
		{"many blocks to read", NetworkStatus{LastSuccess: now, Tip: 111, Cursor: 100}, StateBehind},
		{"no pass for a long time", NetworkStatus{LastSuccess: now.Add(-2 * time.Minute), Tip: 5, Cursor: 5}, StateBehind},
	} {
		if got := state(c.s, now, every); got != c.want {
			t.Errorf("%s: state %q, want %q", c.name, got, c.want)
		}
	}
}

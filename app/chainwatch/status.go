package chainwatch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/payout"
)

// State is how a watched network stands, as staff read it.
type State string

const (
	// StateStarting: no pass has succeeded yet.
	StateStarting State = "starting"
	// StateOK: the last pass succeeded recently and the cursor is near the tip.
	StateOK State = "ok"
	// StateBehind: passes succeed but blocks wait to be read, or no pass has succeeded for a
	// while although none failed (no process is watching).
	StateBehind State = "behind"
	// StateDown: the last pass failed; the node is down or refuses the watcher.
	StateDown State = "down"
)

// NetworkStatus is one watched network as every process sees it: the shared cursor and the
// health the last pass wrote, not one process's memory.
type NetworkStatus struct {
	Network       payout.Network
	State         State
	Tip, Cursor   uint64
	Confirmations uint64
	LastSuccess   time.Time // zero: none yet
	LastError     string
	LastErrorAt   time.Time
	// Waiting counts transfers whose deposit waits for a price; Orphaned, credited transfers
	// whose block left the chain.
	Waiting, Orphaned int
}

// behindBlocks is how many blocks the cursor may trail the tip before a network counts as
// behind: a pass reads at most MaxBlocks, so a longer gap lasts several passes.
const behindBlocks = 10

// Status answers each network this watcher follows, in network order.
func (w *Watcher) Status(ctx context.Context) ([]NetworkStatus, error) {
	now := w.d.Clock.Now()
	out := make([]NetworkStatus, 0, len(w.d.Sources))
	for _, src := range w.d.Sources {
		n := src.Network()
		s := NetworkStatus{Network: n, State: StateStarting, Confirmations: w.needed(n)}
		var tip, cursor int64
		var success, errorAt *time.Time
		err := w.d.Pool.QueryRow(ctx, `SELECT tip, height, last_success, last_error, last_error_at FROM chain_cursors WHERE network = $1`,
			string(n)).Scan(&tip, &cursor, &success, &s.LastError, &errorAt)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("chainwatch: status of %s: %w", n, err)
		}
		s.Tip, s.Cursor = uint64(tip), uint64(cursor)
		if success != nil {
			s.LastSuccess = success.UTC()
		}
		if errorAt != nil {
			s.LastErrorAt = errorAt.UTC()
		}
		if err := w.d.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'detected' AND NOT deposit_recorded),
			count(*) FILTER (WHERE status = 'orphaned') FROM chain_transfers WHERE network = $1`, string(n)).Scan(&s.Waiting, &s.Orphaned); err != nil {
			return nil, fmt.Errorf("chainwatch: transfers of %s: %w", n, err)
		}
		s.State = state(s, now, w.cfg.Every)
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Network < out[j].Network })
	return out, nil
}

func state(s NetworkStatus, now time.Time, every time.Duration) State {
	switch {
	case !s.LastErrorAt.IsZero() && s.LastErrorAt.After(s.LastSuccess):
		return StateDown
	case s.LastSuccess.IsZero():
		return StateStarting
	case s.Tip > s.Cursor+behindBlocks, now.Sub(s.LastSuccess) > 12*every:
		return StateBehind
	}
	return StateOK
}

package chainwatch

import (
	"context"

	"github.com/jackc/pgx/v5"

	"clearvest/domain/chain"
	"clearvest/domain/payout"
)

// Progress is how far a pending chain deposit's transfer has come: its confirmations at the
// network's tip as the watcher last read it, and how many it is credited at.
type Progress struct {
	Confirmations uint64
	Needed        uint64
}

// Querier is what the progress read needs of a pool.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Needed is the number of confirmations a network's deposits wait for when its watcher has not
// said yet: the network's default.
func Needed(network string) uint64 { return uint64(max(payout.Network(network).Confirmations(), 1)) }

// ProgressReader reads the progress of pending chain deposits for the pages that show it.
type ProgressReader struct{ db Querier }

// NewProgressReader reads from db, the pool the watcher writes to.
func NewProgressReader(db Querier) *ProgressReader { return &ProgressReader{db: db} }

// Progress returns the progress of the deposits named whose transfer the watcher is following
// (detected, not yet credited), by deposit id. A deposit the watcher has no row for is absent:
// it has no confirmations yet.
func (r *ProgressReader) Progress(ctx context.Context, depositIDs []string) (map[string]Progress, error) {
	out := map[string]Progress{}
	if len(depositIDs) == 0 {
		return out, nil
	}
	rows, err := r.db.Query(ctx, `SELECT t.deposit_id, t.network, t.height, coalesce(c.tip, 0), coalesce(c.confirmations, 0)
		FROM chain_transfers t LEFT JOIN chain_cursors c ON c.network = t.network
		WHERE t.deposit_id = ANY($1) AND t.status = 'detected'`, depositIDs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, network string
		var height, tip, needed int64
		if err := rows.Scan(&id, &network, &height, &tip, &needed); err != nil {
			return nil, err
		}
		p := Progress{Needed: uint64(max(needed, 0))}
		if p.Needed == 0 {
			p.Needed = Needed(network)
		}
		if tip > 0 && height > 0 {
			p.Confirmations = min(chain.Confirmations(uint64(tip), uint64(height)), p.Needed)
		}
		out[id] = p
	}
	return out, rows.Err()
}

package chainwatch

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"clearvest/app/command"
	"clearvest/domain/chain"
	"clearvest/eventstore"
)

const (
	// payoutsPerPass bounds the node calls one pass spends on payouts; the payouts looked at
	// longest ago go first, so every one gets its turn.
	payoutsPerPass = 100
	// payoutLookback is how long after staff recorded it a payout never found on the chain is
	// looked for: past that it is a mistyped hash or a transaction never sent, for staff.
	payoutLookback = 30 * 24 * time.Hour
)

func payoutStream(withdrawalID string) eventstore.StreamID {
	return eventstore.StreamID(chain.PayoutStream(withdrawalID))
}

// checkPayouts looks up, on the pass's network, the payouts staff recorded that are not done
// yet, and records on each payout's stream what changed: seen in a block, one more
// confirmation, final, failed (reverted: never read as paid), or gone from the best chain.
func (w *Watcher) checkPayouts(ctx context.Context, src Source, tip uint64) error {
	n := src.Network()
	now := w.d.Clock.Now()
	rows, err := w.d.Pool.Query(ctx, `SELECT h.ref, h.tx_hash FROM money_chain_tx_hashes h
		LEFT JOIN chain_payouts p ON p.withdrawal_id = h.ref
		WHERE h.kind = 'payout' AND h.network = $1 AND NOT coalesce(p.done, false)
			AND (p.status <> '' OR h.created_at > $2)
		ORDER BY p.checked_at NULLS FIRST, h.created_at LIMIT $3`, string(n), now.Add(-payoutLookback), payoutsPerPass)
	if err != nil {
		return fmt.Errorf("chainwatch: payouts: %w", err)
	}
	type recorded struct{ withdrawalID, txHash string }
	open, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (recorded, error) {
		var x recorded
		return x, r.Scan(&x.withdrawalID, &x.txHash)
	})
	if err != nil {
		return fmt.Errorf("chainwatch: payouts: %w", err)
	}
	need := w.needed(n)
	for _, p := range open {
		tx, err := src.TxStatus(ctx, p.txHash)
		if err != nil {
			return fmt.Errorf("chainwatch: payout %s: %w", p.txHash, err)
		}
		// The transaction may be in a block above the tip this pass read.
		at := max(tip, tx.Height)
		if err := step(ctx, func() error { return w.observePayout(ctx, p.withdrawalID, p.txHash, string(n), tx, at, need) }); err != nil {
			return fmt.Errorf("chainwatch: payout of withdrawal %s: %w", p.withdrawalID, err)
		}
	}
	return nil
}

func (w *Watcher) observePayout(ctx context.Context, withdrawalID, txHash, network string, seen chain.TxState, tip, need uint64) error {
	now := w.d.Clock.Now()
	var (
		was, last chain.PayoutSeen
		done      bool
	)
	// One round trip when the status or the confirmations moved on; none but a read of the
	// stream's tail when they did not. The aggregate is the runner's: what is needed after is
	// copied out of it.
	_, err := command.Submit(ctx, w.d.Commands, payoutStream(withdrawalID), chain.NewPayoutState, systemMeta,
		func(st *chain.PayoutState, _ *command.Writes) error {
			was = st.Last()
			st.Observe(withdrawalID, network, txHash, seen, tip, need, now)
			last, done = st.Last(), st.Done(need)
			return nil
		})
	if err != nil {
		return err
	}
	// Staff hear of a change of status once, not of every confirmation.
	if last.Status != was.Status {
		switch last.Status {
		case chain.PayoutFailed:
			w.d.Logger.ErrorContext(ctx, "chainwatch: a recorded payout failed on the chain and moved nothing; staff must look",
				"network", network, "withdrawal", withdrawalID, "tx", txHash, "height", last.Height)
		case chain.PayoutMissing:
			w.d.Logger.WarnContext(ctx, "chainwatch: a recorded payout left the best chain", "network", network, "withdrawal", withdrawalID, "tx", txHash)
		}
	}
	_, err = w.d.Pool.Exec(ctx, `INSERT INTO chain_payouts (withdrawal_id, network, tx_hash, status, height, confirmations, done, checked_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (withdrawal_id) DO UPDATE SET status = EXCLUDED.status, height = EXCLUDED.height,
			confirmations = EXCLUDED.confirmations, done = EXCLUDED.done, checked_at = EXCLUDED.checked_at`,
		withdrawalID, network, txHash, string(last.Status), int64(last.Height), int64(last.Confirmations), done, now)
	return err
}

// FailedPayout is a payout staff recorded whose transaction failed on the chain: it moved
// nothing, and the withdrawal is not paid.
type FailedPayout struct {
	WithdrawalID, Network, TxHash string
	Height                        uint64
	At                            time.Time
}

// FailedPayouts lists the recorded payouts whose transaction failed on the chain, for staff.
func FailedPayouts(ctx context.Context, db interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}) ([]FailedPayout, error) {
	rows, err := db.Query(ctx, `SELECT withdrawal_id, network, tx_hash, height, checked_at FROM chain_payouts
		WHERE status = 'failed' ORDER BY checked_at, withdrawal_id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (FailedPayout, error) {
		var f FailedPayout
		var h int64
		err := r.Scan(&f.WithdrawalID, &f.Network, &f.TxHash, &h, &f.At)
		f.Height = uint64(h)
		return f, err
	})
}

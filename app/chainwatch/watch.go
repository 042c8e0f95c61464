// Package chainwatch credits deposits by itself: one job per watched network follows the node's
// blocks from a recorded cursor, records transfers to investors' addresses as pending deposits,
// credits them once they have enough confirmations, and withdraws (or flags to staff) those a
// reorganisation removes (docs/chain.md, "Watchers").
//
// Every serve process runs the jobs. A lease on the network's cursor normally lets one process
// work a network at a time; the effects are idempotent anyway (a stream per transfer, ids
// derived from the transfer's key, appends at expected versions), so two jobs racing still
// credit once.
package chainwatch

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"clearvest/app/command"
	"clearvest/app/money"
	"clearvest/domain/aggregate"
	"clearvest/domain/asset"
	"clearvest/domain/chain"
	"clearvest/domain/clock"
	dmoney "clearvest/domain/money"
	"clearvest/domain/payout"
	"clearvest/eventstore"
	"clearvest/platform/correlation"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the watcher's tables (chain_cursors, chain_blocks, chain_transfers,
// chain_payouts).
var Migrations = pgmigrate.MustFromFS("chainwatch", migrationFS, "migrations")

// DroppedReason is what the investor reads on a deposit whose transfer left the chain.
const DroppedReason = "The network dropped this transfer before it was confirmed. Nothing was credited; if you sent it again, it will appear as a new deposit."

// depositNamespace derives deposit ids from transfer keys (uuid v5): every process names a
// transfer's deposit alike.
var depositNamespace = uuid.MustParse("6f1d3c1e-8f7a-4c55-9a53-2f1b8c0e7d41")

// DepositID is the id of the deposit recorded for the transfer with key when first detected.
func DepositID(key string) string { return DepositIDAt(key, 1) }

// DepositIDAt is the id of the deposit of the transfer's nth detection: a transfer dropped by a
// reorganisation (its deposit rejected) that comes back is a new deposit.
func DepositIDAt(key string, n int) string {
	if n <= 1 {
		return uuid.NewSHA1(depositNamespace, []byte(key)).String()
	}
	return uuid.NewSHA1(depositNamespace, []byte(fmt.Sprintf("%s/%d", key, n))).String()
}

// Network is one watched network's settings.
type Network struct {
	// Confirmations a transfer needs before it is credited; 0 takes the network's default
	// (payout.Network.Confirmations).
	Confirmations uint64
	// StartHeight is the first block read when the network has no cursor yet.
	StartHeight uint64
}

// Config is the watcher's settings.
type Config struct {
	Networks map[payout.Network]Network
	// Every is how often a pass runs (and whenever Wake is called); default 5 s.
	Every time.Duration
	// Lease is how long a pass keeps other processes off a network; 0 takes 30 s, below zero
	// takes none (every job works every pass; tests of racing jobs).
	Lease time.Duration
	// KeepBlocks is how many recent block hashes are kept to find a fork point; default 100.
	KeepBlocks uint64
	// MaxBlocks is how many blocks a pass processes at most; default 500.
	MaxBlocks int
}

// Deps are the watcher's collaborators.
type Deps struct {
	Pool     *pgxpool.Pool
	Commands *command.Runner
	Money    *money.Service
	Sources  []Source
	Owners   Owners
	Rates    Rates
	Clock    clock.Clock
	Logger   *slog.Logger
	// ID names this process in leases; default a random id.
	ID string
}

// Watcher runs one job per configured source.
type Watcher struct {
	cfg  Config
	d    Deps
	wake chan struct{}

	mu     sync.Mutex
	health map[payout.Network]*Health

	tip, cursor *prometheus.GaugeVec
	up          *prometheus.GaugeVec
	errs        *prometheus.CounterVec
	credited    *prometheus.CounterVec
}

// Health is what one process last saw of a network.
type Health struct {
	Tip, Cursor   uint64
	LastSuccess   time.Time
	LastError     string
	LastErrorAt   time.Time
	WaitingRate   int // transfers waiting for a rate before they are recorded or credited
	Orphaned      int // credited transfers whose block left the chain, for staff
	tipSeenAt     time.Time
	lastTipHeight uint64
}

// New returns the watcher; nothing runs before Run.
func New(cfg Config, d Deps) (*Watcher, error) {
	if d.Pool == nil || d.Commands == nil || d.Money == nil || d.Owners == nil || d.Rates == nil {
		return nil, errors.New("chainwatch: pool, commands, money, owners and rates are required")
	}
	if cfg.Every <= 0 {
		cfg.Every = 5 * time.Second
	}
	if cfg.Lease == 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.KeepBlocks == 0 {
		cfg.KeepBlocks = 100
	}
	if cfg.MaxBlocks <= 0 {
		cfg.MaxBlocks = 500
	}
	if d.Clock == nil {
		d.Clock = clock.System()
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.ID == "" {
		d.ID = uuid.NewString()
	}
	w := &Watcher{cfg: cfg, d: d, wake: make(chan struct{}, 1), health: map[payout.Network]*Health{},
		tip:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "clearvest_chain_tip_height", Help: "The best block height the network's node last answered."}, []string{"network"}),
		cursor:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "clearvest_chain_cursor_height", Help: "The last block the watcher fully processed."}, []string{"network"}),
		up:       prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "clearvest_chain_node_up", Help: "1 when the network's node answered the last pass."}, []string{"network"}),
		errs:     prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clearvest_chain_errors_total", Help: "Watcher passes that failed."}, []string{"network"}),
		credited: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "clearvest_chain_transfers_credited_total", Help: "Transfers the watcher credited."}, []string{"network"}),
	}
	for _, s := range d.Sources {
		w.health[s.Network()] = &Health{}
	}
	return w, nil
}

// Register adds the watcher's metrics to reg.
func (w *Watcher) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{w.tip, w.cursor, w.up, w.errs, w.credited} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Wake makes the jobs run a pass now.
func (w *Watcher) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run runs a pass over every network every interval (and on Wake) until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	t := time.NewTicker(w.cfg.Every)
	defer t.Stop()
	for {
		w.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake:
		}
	}
}

// RunOnce runs one pass over every network; a network that fails is recorded in its health and
// the others go on.
func (w *Watcher) RunOnce(ctx context.Context) {
	for _, s := range w.d.Sources {
		if err := w.Pass(ctx, s); err != nil && ctx.Err() == nil {
			w.d.Logger.WarnContext(ctx, "chainwatch: pass failed", "network", s.Network(), "err", err)
		}
	}
}

// Health returns what this process last saw of each network.
func (w *Watcher) Health() map[payout.Network]Health {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[payout.Network]Health{}
	for n, h := range w.health {
		out[n] = *h
	}
	return out
}

func (w *Watcher) needed(n payout.Network) uint64 {
	if c := w.cfg.Networks[n].Confirmations; c > 0 {
		return c
	}
	return uint64(max(n.Confirmations(), 1))
}

func (w *Watcher) note(n payout.Network, f func(h *Health)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.health[n]
	if h == nil {
		h = &Health{}
		w.health[n] = h
	}
	f(h)
}

// Pass works one network once: it takes the lease (or leaves the network to the process that
// holds it), follows the node from the cursor, then credits what has its confirmations.
func (w *Watcher) Pass(ctx context.Context, src Source) (err error) {
	n := src.Network()
	defer func() {
		now := w.d.Clock.Now()
		if err != nil {
			w.errs.WithLabelValues(string(n)).Inc()
			w.up.WithLabelValues(string(n)).Set(0)
			w.note(n, func(h *Health) { h.LastError, h.LastErrorAt = err.Error(), now })
			_, _ = w.d.Pool.Exec(context.WithoutCancel(ctx), `UPDATE chain_cursors SET last_error = $2, last_error_at = $3 WHERE network = $1`,
				string(n), err.Error(), now)
			return
		}
		w.up.WithLabelValues(string(n)).Set(1)
		w.note(n, func(h *Health) { h.LastSuccess = now })
	}()
	cur, ok, err := w.lease(ctx, n)
	if err != nil || !ok {
		return err
	}
	tip, err := src.Tip(ctx)
	if err != nil {
		return fmt.Errorf("tip: %w", err)
	}
	now := w.d.Clock.Now()
	w.tip.WithLabelValues(string(n)).Set(float64(tip))
	w.note(n, func(h *Health) {
		if tip != h.lastTipHeight {
			h.lastTipHeight, h.tipSeenAt = tip, now
		}
		h.Tip = tip
	})
	// Readers count a pending deposit's confirmations from here (ProgressReader).
	if _, err := w.d.Pool.Exec(ctx, `UPDATE chain_cursors SET tip = $2, confirmations = $3 WHERE network = $1`,
		string(n), int64(tip), int64(w.needed(n))); err != nil {
		return err
	}
	for done := 0; cur.Height < tip && done < w.cfg.MaxBlocks; done++ {
		b, err := src.Block(ctx, cur.Height+1)
		if err != nil {
			return fmt.Errorf("block %d: %w", cur.Height+1, err)
		}
		if cur.Hash != "" && b.Parent != cur.Hash {
			fork, err := w.reorganise(ctx, src, cur)
			if err != nil {
				return err
			}
			cur = fork
			continue
		}
		if err := w.process(ctx, n, b); err != nil {
			return err
		}
		moved, err := w.advance(ctx, n, cur, chain.Ref{Height: b.Height, Hash: b.Hash})
		if err != nil {
			return err
		}
		if !moved {
			return nil // another job moved the cursor; it carries on
		}
		cur = chain.Ref{Height: b.Height, Hash: b.Hash}
	}
	w.cursor.WithLabelValues(string(n)).Set(float64(cur.Height))
	w.note(n, func(h *Health) { h.Cursor = cur.Height })
	if err := w.recordPending(ctx, n); err != nil {
		return err
	}
	if err := w.credit(ctx, n, tip, cur); err != nil {
		return err
	}
	if err := w.checkPayouts(ctx, src, tip); err != nil {
		return err
	}
	_, err = w.d.Pool.Exec(ctx, `UPDATE chain_cursors SET tip = $2, last_success = $3, updated_at = $3 WHERE network = $1`,
		string(n), int64(tip), w.d.Clock.Now())
	return err
}

// lease reads the cursor, creating it at the start height, and takes the network for this
// process unless another holds it.
func (w *Watcher) lease(ctx context.Context, n payout.Network) (chain.Ref, bool, error) {
	now := w.d.Clock.Now()
	start := w.cfg.Networks[n].StartHeight
	if _, err := w.d.Pool.Exec(ctx, `INSERT INTO chain_cursors (network, height, hash, updated_at) VALUES ($1, $2, '', $3)
		ON CONFLICT DO NOTHING`, string(n), int64(max(start, 1)-1), now); err != nil {
		return chain.Ref{}, false, fmt.Errorf("chainwatch: cursor: %w", err)
	}
	var h int64
	var hash string
	var err error
	if w.cfg.Lease < 0 {
		err = w.d.Pool.QueryRow(ctx, `SELECT height, hash FROM chain_cursors WHERE network = $1`, string(n)).Scan(&h, &hash)
	} else {
		err = w.d.Pool.QueryRow(ctx, `UPDATE chain_cursors SET lease_owner = $2, lease_until = $3
			WHERE network = $1 AND (lease_owner = $2 OR lease_until < $4) RETURNING height, hash`,
			string(n), w.d.ID, now.Add(w.cfg.Lease), now).Scan(&h, &hash)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return chain.Ref{}, false, nil
	}
	if err != nil {
		return chain.Ref{}, false, fmt.Errorf("chainwatch: lease: %w", err)
	}
	return chain.Ref{Height: uint64(h), Hash: hash}, true, nil
}

// advance moves the cursor from cur to next, only if it still stands at cur: a job that lost a
// race leaves it to the winner. The block's hash is kept for finding fork points.
func (w *Watcher) advance(ctx context.Context, n payout.Network, cur, next chain.Ref) (bool, error) {
	tx, err := w.d.Pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after the commit
	tag, err := tx.Exec(ctx, `UPDATE chain_cursors SET height = $2, hash = $3, updated_at = $6
		WHERE network = $1 AND height = $4 AND hash = $5`, string(n), int64(next.Height), next.Hash, int64(cur.Height), cur.Hash, w.d.Clock.Now())
	if err != nil {
		return false, fmt.Errorf("chainwatch: cursor: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return false, nil
	}
	if _, err := tx.Exec(ctx, `INSERT INTO chain_blocks (network, height, hash) VALUES ($1, $2, $3)
		ON CONFLICT (network, height) DO UPDATE SET hash = EXCLUDED.hash`, string(n), int64(next.Height), next.Hash); err != nil {
		return false, err
	}
	if next.Height > w.cfg.KeepBlocks {
		if _, err := tx.Exec(ctx, `DELETE FROM chain_blocks WHERE network = $1 AND height <= $2`, string(n), int64(next.Height-w.cfg.KeepBlocks)); err != nil {
			return false, err
		}
	}
	return true, tx.Commit(ctx)
}

// reorganise walks back from the cursor to the highest recorded block still on the node's best
// chain, withdraws or flags the transfers of the blocks above it, and moves the cursor there.
func (w *Watcher) reorganise(ctx context.Context, src Source, cur chain.Ref) (chain.Ref, error) {
	n := src.Network()
	rows, err := w.d.Pool.Query(ctx, `SELECT height, hash FROM chain_blocks WHERE network = $1 AND height <= $2`, string(n), int64(cur.Height))
	if err != nil {
		return chain.Ref{}, err
	}
	recorded, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (chain.Ref, error) {
		var h int64
		var ref chain.Ref
		err := r.Scan(&h, &ref.Hash)
		ref.Height = uint64(h)
		return ref, err
	})
	if err != nil {
		return chain.Ref{}, err
	}
	fork, err := chain.ForkPoint(recorded, func(h uint64) (string, error) {
		b, err := src.Block(ctx, h)
		return b.Hash, err
	})
	if err != nil {
		return chain.Ref{}, fmt.Errorf("chainwatch: reorganisation at %d: %w", cur.Height, err)
	}
	w.d.Logger.WarnContext(ctx, "chainwatch: reorganisation", "network", n, "from", cur.Height, "fork", fork.Height)
	// Every transfer recorded above the fork point lost its block.
	trs, err := w.transfers(ctx, `WHERE network = $1 AND height > $2 AND status IN ('detected', 'credited')`, string(n), int64(fork.Height))
	if err != nil {
		return chain.Ref{}, err
	}
	for _, t := range trs {
		if err := w.remove(ctx, n, t); err != nil {
			return chain.Ref{}, err
		}
	}
	tx, err := w.d.Pool.Begin(ctx)
	if err != nil {
		return chain.Ref{}, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after the commit
	tag, err := tx.Exec(ctx, `UPDATE chain_cursors SET height = $2, hash = $3, updated_at = $6 WHERE network = $1 AND height = $4 AND hash = $5`,
		string(n), int64(fork.Height), fork.Hash, int64(cur.Height), cur.Hash, w.d.Clock.Now())
	if err != nil {
		return chain.Ref{}, err
	}
	if tag.RowsAffected() == 0 {
		return chain.Ref{}, errors.New("chainwatch: the cursor moved during a reorganisation; next pass")
	}
	if _, err := tx.Exec(ctx, `DELETE FROM chain_blocks WHERE network = $1 AND height > $2`, string(n), int64(fork.Height)); err != nil {
		return chain.Ref{}, err
	}
	return fork, tx.Commit(ctx)
}

// row is one chain_transfers row.
type row struct {
	Key, UserID, DepositID, Asset, Amount, TxHash, Address, BlockHash, Status string
	Height                                                                    uint64
	DepositRecorded                                                           bool
}

func (w *Watcher) transfers(ctx context.Context, where string, args ...any) ([]row, error) {
	rows, err := w.d.Pool.Query(ctx, `SELECT key, user_id, deposit_id, asset, amount, tx_hash, address, block_hash, status, height, deposit_recorded
		FROM chain_transfers `+where+` ORDER BY height, key`, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		var h int64
		err := r.Scan(&x.Key, &x.UserID, &x.DepositID, &x.Asset, &x.Amount, &x.TxHash, &x.Address, &x.BlockHash, &x.Status, &h, &x.DepositRecorded)
		x.Height = uint64(h)
		return x, err
	})
}

func (w *Watcher) setRow(ctx context.Context, n payout.Network, x row) error {
	_, err := w.d.Pool.Exec(ctx, `INSERT INTO chain_transfers (network, key, user_id, deposit_id, asset, amount, tx_hash, address, block_hash, height, status, deposit_recorded, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (network, key) DO UPDATE SET block_hash = EXCLUDED.block_hash, height = EXCLUDED.height, status = EXCLUDED.status,
			deposit_recorded = CASE WHEN chain_transfers.deposit_id = EXCLUDED.deposit_id
				THEN chain_transfers.deposit_recorded OR EXCLUDED.deposit_recorded ELSE EXCLUDED.deposit_recorded END,
			deposit_id = EXCLUDED.deposit_id, updated_at = EXCLUDED.updated_at`,
		string(n), x.Key, x.UserID, x.DepositID, x.Asset, x.Amount, x.TxHash, x.Address, x.BlockHash, int64(x.Height), x.Status, x.DepositRecorded, w.d.Clock.Now())
	return err
}

// step runs one idempotent effect, again after a conflict with another job: each attempt
// reloads the transfer's stream, so the loser sees what the winner did and raises nothing.
func step(ctx context.Context, f func() error) error {
	var err error
	for range 4 {
		if err = f(); err == nil || !errors.Is(err, eventstore.ErrConcurrency) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return err
}

func transferStream(key string) eventstore.StreamID { return eventstore.StreamID(chain.Stream(key)) }

var systemMeta = eventstore.Metadata{ActorRole: "system"}

// appendAlone appends the transfer stream's new events without any account change, in one
// round trip (command.Submit). st was decided on as it was loaded, often for a choice between
// this and an account change carrying st alongside (command.WithAlongside); the runner's
// aggregate takes its events only when it stands where st was loaded. When the stream moved
// on, nothing is appended and the answer is a conflict, on which step loads and decides again.
func (w *Watcher) appendAlone(ctx context.Context, key string, st *chain.TransferState) error {
	stream := transferStream(key)
	_, err := command.Submit(ctx, w.d.Commands, stream, chain.NewTransferState, systemMeta,
		func(cur *chain.TransferState, _ *command.Writes) error {
			if cur.Version() != st.LoadedVersion() {
				return &eventstore.ConcurrencyError{Stream: stream, Expected: st.LoadedVersion(), Actual: cur.Version()}
			}
			for _, e := range st.Changes() {
				aggregate.Raise(cur, e)
			}
			return nil
		})
	return err
}

// process records the block's transfers to investors' addresses.
func (w *Watcher) process(ctx context.Context, n payout.Network, b chain.Block) error {
	if len(b.Transfers) == 0 {
		return nil
	}
	addresses := make([]string, len(b.Transfers))
	for i, t := range b.Transfers {
		addresses[i] = t.Address
	}
	owners, err := w.d.Owners.Owners(ctx, n, addresses)
	if err != nil {
		return fmt.Errorf("chainwatch: owners of block %d's addresses: %w", b.Height, err)
	}
	for _, t := range b.Transfers {
		userID, ok := owners[t.Address]
		if !ok {
			continue
		}
		if err := step(ctx, func() error { return w.detect(ctx, n, b, t, userID) }); err != nil {
			return fmt.Errorf("chainwatch: transfer %s: %w", t.Key(n), err)
		}
	}
	return nil
}

func (w *Watcher) detect(ctx context.Context, n payout.Network, b chain.Block, t chain.Transfer, userID string) error {
	key := t.Key(n)
	// A transfer is one cause from its sighting to its credit: its key is the correlation id of
	// every event and e-mail it leads to.
	ctx = correlation.With(ctx, key)
	st, err := command.Load(ctx, w.d.Commands, transferStream(key), chain.NewTransferState)
	if err != nil {
		return err
	}
	x := row{Key: key, UserID: userID, Asset: string(t.Asset), Amount: t.Amount, TxHash: t.TxHash,
		Address: t.Address, BlockHash: b.Hash, Height: b.Height, Status: string(chain.StatusDetected)}
	if !st.Detect(chain.TransferDetected{Network: string(n), Asset: string(t.Asset), TxHash: t.TxHash, Index: t.Index, Address: t.Address,
		UserID: userID, Amount: t.Amount, BlockHash: b.Hash, Height: b.Height, At: w.d.Clock.Now().UTC()}) {
		x.DepositID = DepositIDAt(key, st.Detections())
		// Seen before in this block, or already credited: the row says where it stands.
		x.Status = string(st.Status())
		if st.Status() != chain.StatusDetected {
			return nil
		}
		// The row of this sighting keeps the deposit it named: the investor's declared one,
		// when the transfer was linked to it.
		prior, err := w.transfers(ctx, `WHERE network = $1 AND key = $2 AND block_hash = $3`, string(n), key, b.Hash)
		if err != nil {
			return err
		}
		if len(prior) == 1 {
			x.DepositID, x.DepositRecorded = prior[0].DepositID, prior[0].DepositRecorded
		}
		return w.setRow(ctx, n, x)
	}
	x.DepositID = DepositIDAt(key, st.Detections())
	recorded, err := w.recordDeposit(ctx, n, x, st)
	if err != nil {
		return err
	}
	return w.recorded(ctx, n, x, recorded)
}

// recorded notes where a transfer's deposit stands once recordDeposit answered: the deposit it
// is credited on (the investor's declared one, when the transfer was linked to it), or, when
// staff had already confirmed that one, the transfer credited by hand.
func (w *Watcher) recorded(ctx context.Context, n payout.Network, x row, r recordedDeposit) error {
	if !r.ok {
		return w.setRow(ctx, n, x)
	}
	x.DepositID, x.DepositRecorded = r.DepositID, true
	if !r.ByHand {
		return w.setRow(ctx, n, x)
	}
	err := step(ctx, func() error {
		st, err := command.Load(ctx, w.d.Commands, transferStream(x.Key), chain.NewTransferState)
		if err != nil {
			return err
		}
		if !st.Credit(chain.TransferCredited{DepositID: r.DepositID, ByHand: true, Received: r.Received.String(), At: w.d.Clock.Now().UTC()}) {
			return nil
		}
		return w.appendAlone(ctx, x.Key, st)
	})
	if err != nil {
		return err
	}
	w.d.Logger.InfoContext(ctx, "chainwatch: transfer already credited by staff on the deposit the investor declared", "network", n, "key", x.Key, "deposit", r.DepositID)
	x.Status = string(chain.StatusCredited)
	return w.setRow(ctx, n, x)
}

// recordedDeposit is recordDeposit's answer: ok false while the transfer waits for a rate.
type recordedDeposit struct {
	money.ChainRecorded
	ok bool
}

// recordDeposit records the investor's pending deposit, with the transfer stream's events when
// st carries some; without a rate it records only those, and the deposit waits (false).
// x.DepositID is the id derived for the transfer; the answer names the deposit actually used.
func (w *Watcher) recordDeposit(ctx context.Context, n payout.Network, x row, st *chain.TransferState) (recordedDeposit, error) {
	a := asset.Asset(x.Asset)
	rate, _, ok, err := w.d.Rates.Rate(ctx, a)
	if err != nil {
		return recordedDeposit{}, err
	}
	var usd dmoney.Money
	if ok {
		usd, err = usdOf(a, x.Amount, rate)
		if err != nil {
			return recordedDeposit{}, err
		}
	}
	if !ok || !usd.IsPositive() {
		w.d.Logger.InfoContext(ctx, "chainwatch: transfer waits for a rate before its deposit is recorded", "network", n, "key", x.Key, "asset", a)
		if st != nil {
			return recordedDeposit{}, w.appendAlone(ctx, x.Key, st)
		}
		return recordedDeposit{}, nil
	}
	actx := ctx
	if st != nil {
		actx, _ = command.WithAlongside(ctx, command.Change{Stream: transferStream(x.Key), Aggregate: st})
	}
	r, err := w.d.Money.RecordChainDeposit(actx, money.ChainDeposit{UserID: x.UserID, DepositID: x.DepositID, Amount: usd, Asset: x.Asset,
		Network: string(n), OnChainAmount: x.Amount, USDRate: rate, TxHash: x.TxHash, Address: x.Address})
	if err != nil {
		return recordedDeposit{}, err
	}
	return recordedDeposit{ChainRecorded: r, ok: true}, nil
}

// usdOf is amount of a at rate, in USD cents, rounded half to even.
func usdOf(a asset.Asset, amount, rate string) (dmoney.Money, error) {
	x, err := asset.ParseAmount(a, amount)
	if err != nil {
		return dmoney.Money{}, err
	}
	r, err := asset.ParseRate(rate)
	if err != nil {
		return dmoney.Money{}, err
	}
	return asset.USDValue(x, r), nil
}

// recordPending records the deposits of detected transfers that waited for a rate.
func (w *Watcher) recordPending(ctx context.Context, n payout.Network) error {
	trs, err := w.transfers(ctx, `WHERE network = $1 AND status = 'detected' AND NOT deposit_recorded`, string(n))
	if err != nil {
		return err
	}
	waiting := 0
	for _, x := range trs {
		// The row may name the deposit a link chose; the transfer's own derived id finds it.
		st, err := command.Load(ctx, w.d.Commands, transferStream(x.Key), chain.NewTransferState)
		if err != nil {
			return err
		}
		x.DepositID = DepositIDAt(x.Key, st.Detections())
		r, err := w.recordDeposit(ctx, n, x, nil)
		if err != nil {
			return err
		}
		if !r.ok {
			waiting++
			continue
		}
		if err := w.recorded(ctx, n, x, r); err != nil {
			return err
		}
	}
	w.note(n, func(h *Health) { h.WaitingRate = waiting })
	return nil
}

// credit confirms the deposits of the detected transfers with enough confirmations at tip, in
// blocks the cursor has passed.
func (w *Watcher) credit(ctx context.Context, n payout.Network, tip uint64, cur chain.Ref) error {
	need := w.needed(n)
	trs, err := w.transfers(ctx, `WHERE network = $1 AND status = 'detected' AND deposit_recorded AND height <= $2`, string(n), int64(cur.Height))
	if err != nil {
		return err
	}
	for _, x := range trs {
		if !chain.Confirmed(tip, x.Height, need) {
			continue
		}
		if err := step(ctx, func() error { return w.creditOne(ctx, n, x, chain.Confirmations(tip, x.Height)) }); err != nil {
			return fmt.Errorf("chainwatch: crediting %s: %w", x.Key, err)
		}
	}
	return nil
}

func (w *Watcher) creditOne(ctx context.Context, n payout.Network, x row, confirmations uint64) error {
	ctx = correlation.With(ctx, x.Key) // as detect
	st, err := command.Load(ctx, w.d.Commands, transferStream(x.Key), chain.NewTransferState)
	if err != nil {
		return err
	}
	if st.Status() != chain.StatusDetected || st.Detected().BlockHash != x.BlockHash {
		x.Status = string(st.Status())
		return w.setRow(ctx, n, x)
	}
	a := asset.Asset(x.Asset)
	rate, at, ok, err := w.d.Rates.Rate(ctx, a)
	if err != nil {
		return err
	}
	if !ok {
		return nil // waits for a rate; counted by recordPending's next pass
	}
	usd, err := usdOf(a, x.Amount, rate)
	if err != nil {
		return err
	}
	now := w.d.Clock.Now()
	st.Credit(chain.TransferCredited{DepositID: x.DepositID, Confirmations: confirmations, Received: usd.String(), Rate: rate, RateAt: at.UTC(), At: now.UTC()})
	actx, al := command.WithAlongside(ctx, command.Change{Stream: transferStream(x.Key), Aggregate: st})
	if _, err := w.d.Money.ConfirmChainDeposit(actx, x.UserID, x.DepositID, usd, rate, at, confirmations); err != nil {
		return err
	}
	if al.Appended() {
		w.credited.WithLabelValues(string(n)).Inc()
	}
	x.Status = string(chain.StatusCredited)
	return w.setRow(ctx, n, x)
}

// remove handles a transfer whose block left the chain: not yet credited, it is dropped and its
// deposit rejected; credited, it is flagged to staff (orphaned) and nothing is debited.
func (w *Watcher) remove(ctx context.Context, n payout.Network, x row) error {
	return step(ctx, func() error {
		st, err := command.Load(ctx, w.d.Commands, transferStream(x.Key), chain.NewTransferState)
		if err != nil {
			return err
		}
		switch st.Remove(x.BlockHash, x.Height, w.d.Clock.Now()) {
		case chain.StatusDropped:
			if x.DepositRecorded {
				actx, _ := command.WithAlongside(ctx, command.Change{Stream: transferStream(x.Key), Aggregate: st})
				if _, err := w.d.Money.RejectChainDeposit(actx, x.UserID, x.DepositID, DroppedReason); err != nil {
					return err
				}
			} else if err := w.appendAlone(ctx, x.Key, st); err != nil {
				return err
			}
		case chain.StatusOrphaned:
			w.d.Logger.ErrorContext(ctx, "chainwatch: a credited transfer's block left the chain; staff must look", "network", n, "key", x.Key, "user", x.UserID)
			if err := w.appendAlone(ctx, x.Key, st); err != nil {
				return err
			}
		}
		x.Status = string(st.Status())
		return w.setRow(ctx, n, x)
	})
}

// Orphaned lists the transfers credited before their block left the chain: for staff to look at
// (docs/chain.md, "Confirmations and reorganisations").
func (w *Watcher) Orphaned(ctx context.Context) ([]Orphan, error) {
	return Orphans(ctx, w.d.Pool)
}

// Orphan is a credited transfer whose block left the chain.
type Orphan struct {
	Network, Key, UserID, DepositID, Asset, Amount, TxHash, BlockHash string
	Height                                                            uint64
	At                                                                time.Time
}

// Orphans reads the orphaned transfers.
func Orphans(ctx context.Context, db interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}) ([]Orphan, error) {
	rows, err := db.Query(ctx, `SELECT network, key, user_id, deposit_id, asset, amount, tx_hash, block_hash, height, updated_at
		FROM chain_transfers WHERE status = 'orphaned' ORDER BY updated_at, key`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Orphan, error) {
		var o Orphan
		var h int64
		err := r.Scan(&o.Network, &o.Key, &o.UserID, &o.DepositID, &o.Asset, &o.Amount, &o.TxHash, &o.BlockHash, &h, &o.At)
		o.Height = uint64(h)
		return o, err
	})
}

// Detail is the watcher's /readyz detail: a network whose node fails or whose tip has not moved
// for a long time, transfers waiting for a rate, orphaned credits, payouts that failed on the
// chain. Empty when all is well.
func (w *Watcher) Detail(ctx context.Context) (string, error) {
	var out []string
	orphans, err := Orphans(ctx, w.d.Pool)
	if err != nil {
		return "", err
	}
	if len(orphans) > 0 {
		out = append(out, fmt.Sprintf("chain: %d credited transfers left the chain; staff must look", len(orphans)))
	}
	failed, err := FailedPayouts(ctx, w.d.Pool)
	if err != nil {
		return "", err
	}
	if len(failed) > 0 {
		out = append(out, fmt.Sprintf("chain: %d recorded payouts failed on the chain and paid nothing; staff must look", len(failed)))
	}
	now := w.d.Clock.Now()
	for n, h := range w.Health() {
		switch {
		case h.LastErrorAt.After(h.LastSuccess):
			out = append(out, fmt.Sprintf("chain %s: node failing since the last success (%s)", n, h.LastError))
		case !h.tipSeenAt.IsZero() && now.Sub(h.tipSeenAt) > staleTip(n):
			out = append(out, fmt.Sprintf("chain %s: tip %d has not moved since %s", n, h.Tip, h.tipSeenAt.Format(time.RFC3339)))
		}
		if h.WaitingRate > 0 {
			out = append(out, fmt.Sprintf("chain %s: %d transfers wait for a rate", n, h.WaitingRate))
		}
	}
	return strings.Join(out, "; "), nil
}

// staleTip is how long a network's tip may stand still before it counts as behind: many times
// its usual block time.
func staleTip(n payout.Network) time.Duration {
	if n == payout.Bitcoin {
		return 90 * time.Minute
	}
	return 10 * time.Minute
}

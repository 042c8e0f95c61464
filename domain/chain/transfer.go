package chain

import (
	"errors"
	"sort"
	"time"

	"clearvest/domain/aggregate"
)

// Event types of a transfer's stream (one stream per Key).
const (
	TypeTransferDetected = "chain.transfer_detected"
	TypeTransferCredited = "chain.transfer_credited"
	TypeTransferDropped  = "chain.transfer_dropped"
	TypeTransferOrphaned = "chain.transfer_orphaned"
)

// TransferDetected records that a transfer to an investor's address was seen in a block of the
// best chain. Seen again after a reorganisation, it is detected again on the same stream.
type TransferDetected struct {
	Network   string    `json:"network"`
	Asset     string    `json:"asset"`
	TxHash    string    `json:"txHash"`
	Index     uint32    `json:"index"`
	Address   string    `json:"address"`
	UserID    string    `json:"userId"`
	Amount    string    `json:"amount"` // in the asset's own precision
	BlockHash string    `json:"blockHash"`
	Height    uint64    `json:"height"`
	At        time.Time `json:"at"`
}

// TransferCredited records that the transfer reached its confirmations and the investor's
// deposit was confirmed at Rate (USD per unit, as of RateAt). ByHand: staff had already
// confirmed the deposit the investor declared for the transaction (Received is what they
// credited; no rate, no confirmations); the watcher credits nothing.
type TransferCredited struct {
	DepositID     string    `json:"depositId"`
	ByHand        bool      `json:"byHand,omitempty"`
	Confirmations uint64    `json:"confirmations"`
	Received      string    `json:"received"` // USD credited
	Rate          string    `json:"rate"`
	RateAt        time.Time `json:"rateAt"`
	At            time.Time `json:"at"`
}

// TransferDropped records that the block holding a not yet credited transfer left the best
// chain; the deposit is rejected.
type TransferDropped struct {
	BlockHash string    `json:"blockHash"`
	Height    uint64    `json:"height"`
	At        time.Time `json:"at"`
}

// TransferOrphaned records that the block of an already credited transfer left the best chain.
// Nothing is debited: staff decide.
type TransferOrphaned struct {
	BlockHash string    `json:"blockHash"`
	Height    uint64    `json:"height"`
	At        time.Time `json:"at"`
}

func (TransferDetected) EventName() string { return TypeTransferDetected }
func (TransferCredited) EventName() string { return TypeTransferCredited }
func (TransferDropped) EventName() string  { return TypeTransferDropped }
func (TransferOrphaned) EventName() string { return TypeTransferOrphaned }

// Events returns a zero value of every event type of the package: a transfer's, a payout's and
// an address's.
func Events() []aggregate.Event {
	return []aggregate.Event{TransferDetected{}, TransferCredited{}, TransferDropped{}, TransferOrphaned{}, PayoutSeen{}, AddressAssigned{}}
}

// Confirmations is how many blocks, its own included, stand on a transfer at height when the
// best chain's tip is at tip: tip − height + 1, and 0 when the block is above the tip (the node
// is behind the block we saw, or the block is gone).
func Confirmations(tip, height uint64) uint64 {
	if height == 0 || tip < height {
		return 0
	}
	return tip - height + 1
}

// Confirmed reports whether a transfer at height has at least needed confirmations at tip. A
// needed of 0 is treated as 1: a transfer is never credited before it is in a block.
func Confirmed(tip, height, needed uint64) bool {
	if needed == 0 {
		needed = 1
	}
	return Confirmations(tip, height) >= needed
}

// Ref names one block of the chain as it was processed.
type Ref struct {
	Height uint64
	Hash   string
}

// ErrForkTooDeep is returned by ForkPoint when no recorded block is still on the best chain:
// the reorganisation is deeper than the hashes kept, and a person must look.
var ErrForkTooDeep = errors.New("chain: reorganisation deeper than the recorded blocks")

// ForkPoint finds the highest recorded block that is still on the best chain. recorded are the
// processed blocks, any order; onChain answers the best chain's hash at a height. Blocks of
// recorded above the returned one were removed by a reorganisation.
func ForkPoint(recorded []Ref, onChain func(height uint64) (string, error)) (Ref, error) {
	rs := append([]Ref(nil), recorded...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Height > rs[j].Height })
	// Highest first: a block still on the best chain has all its ancestors on it too.
	for _, r := range rs {
		h, err := onChain(r.Height)
		if err != nil {
			return Ref{}, err
		}
		if h == r.Hash {
			return r, nil
		}
	}
	return Ref{}, ErrForkTooDeep
}

// StreamCategory is the category of the transfer streams; Stream names one.
const StreamCategory = "chaintransfer"

// Stream is the stream of the transfer with the given Key.
func Stream(key string) string { return StreamCategory + "-" + key }

// Status is where a transfer stands.
type Status string

const (
	StatusNew      Status = ""         // never seen
	StatusDetected Status = "detected" // in a block of the best chain, not yet credited
	StatusCredited Status = "credited"
	StatusDropped  Status = "dropped"  // its block left the chain before it was credited
	StatusOrphaned Status = "orphaned" // its block left the chain after it was credited: staff look
)

// TransferState is the aggregate of one transfer's stream: what was seen of it and what was
// done. Its rules make every step idempotent, so a transfer seen again, by this process or
// another, raises nothing new unless something changed on the chain.
type TransferState struct {
	aggregate.Root
	status     Status
	detected   TransferDetected
	detections int
}

// Detections is how many times the transfer was detected: more than once when a
// reorganisation dropped it and it came back. Each detection is a deposit of its own.
func (t *TransferState) Detections() int { return t.detections }

// NewTransferState returns the state of a transfer never seen.
func NewTransferState() *TransferState { return &TransferState{} }

// Status is where the transfer stands.
func (t *TransferState) Status() Status { return t.status }

// Detected is the last sighting of the transfer.
func (t *TransferState) Detected() TransferDetected { return t.detected }

// Detect records a sighting in a block of the best chain. A transfer already detected in that
// block, or credited, raises nothing; one dropped (or detected in a block that was replaced)
// is detected again.
func (t *TransferState) Detect(d TransferDetected) bool {
	switch t.status {
	case StatusCredited, StatusOrphaned:
		return false
	case StatusDetected:
		if t.detected.BlockHash == d.BlockHash {
			return false
		}
	}
	aggregate.Raise(t, d)
	return true
}

// Credit records that the transfer was credited. Only a detected transfer is credited, once.
func (t *TransferState) Credit(c TransferCredited) bool {
	if t.status != StatusDetected {
		return false
	}
	aggregate.Raise(t, c)
	return true
}

// Remove records that the block at blockHash left the best chain: a detected transfer in it is
// dropped, a credited one orphaned. Anything else (another block, already removed) raises
// nothing. It returns what the transfer became, StatusNew when nothing changed.
func (t *TransferState) Remove(blockHash string, height uint64, at time.Time) Status {
	if t.detected.BlockHash != blockHash {
		return StatusNew
	}
	switch t.status {
	case StatusDetected:
		aggregate.Raise(t, TransferDropped{BlockHash: blockHash, Height: height, At: at.UTC()})
		return StatusDropped
	case StatusCredited:
		aggregate.Raise(t, TransferOrphaned{BlockHash: blockHash, Height: height, At: at.UTC()})
		return StatusOrphaned
	}
	return StatusNew
}

// Apply implements aggregate.Aggregate.
func (t *TransferState) Apply(e aggregate.Event) {
	switch e := e.(type) {
	case TransferDetected:
		if t.status != StatusDetected {
			t.detections++
		}
		t.status, t.detected = StatusDetected, e
	case TransferCredited:
		t.status = StatusCredited
	case TransferDropped:
		t.status = StatusDropped
	case TransferOrphaned:
		t.status = StatusOrphaned
	}
}

// EventRegistry is what RegisterEvents needs; *eventstore.Registry satisfies it.
type EventRegistry interface {
	RegisterEvent(e aggregate.Event, schemaVersion int)
}

// RegisterEvents registers every event type of the package at its current schema version.
func RegisterEvents(r EventRegistry) {
	for _, e := range Events() {
		r.RegisterEvent(e, 1)
	}
}

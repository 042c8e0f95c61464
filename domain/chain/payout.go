package chain

import (
	"time"

	"clearvest/domain/aggregate"
)

// TypePayoutSeen is the event type of a payout's stream (one stream per withdrawal).
const TypePayoutSeen = "chain.payout_seen"

// PayoutStreamCategory is the category of the payout streams; PayoutStream names one.
const PayoutStreamCategory = "chainpayout"

// PayoutStream is the stream of what the chain showed of the payout of a withdrawal.
func PayoutStream(withdrawalID string) string { return PayoutStreamCategory + "-" + withdrawalID }

// PayoutStatus is where a payout staff recorded stands on the chain.
type PayoutStatus string

const (
	// PayoutNotSeen: not found in a block yet (pending, unknown to the node, or a mistyped hash).
	PayoutNotSeen PayoutStatus = ""
	// PayoutConfirming: in a block of the best chain, with fewer confirmations than the network
	// needs.
	PayoutConfirming PayoutStatus = "confirming"
	// PayoutFinal: in a block of the best chain with the confirmations the network needs.
	PayoutFinal PayoutStatus = "final"
	// PayoutFailed: in a block, but the transaction reverted and moved nothing. Never "paid".
	PayoutFailed PayoutStatus = "failed"
	// PayoutMissing: seen before, no longer on the best chain (a reorganisation).
	PayoutMissing PayoutStatus = "missing"
)

// PayoutSeen records what the chain showed of a payout when it changed: first found, one more
// confirmation (up to the number needed), final, failed, or gone from the best chain.
type PayoutSeen struct {
	WithdrawalID  string       `json:"withdrawalId"`
	Network       string       `json:"network"`
	TxHash        string       `json:"txHash"`
	Status        PayoutStatus `json:"status"`
	Height        uint64       `json:"height,omitempty"`
	Confirmations uint64       `json:"confirmations"`
	At            time.Time    `json:"at"`
}

func (PayoutSeen) EventName() string { return TypePayoutSeen }

// PayoutState is the aggregate of one payout's stream: its last sighting.
type PayoutState struct {
	aggregate.Root
	last PayoutSeen
}

// NewPayoutState returns the state of a payout never seen.
func NewPayoutState() *PayoutState { return &PayoutState{} }

// Last is the payout's last recorded sighting (Status PayoutNotSeen when none).
func (p *PayoutState) Last() PayoutSeen { return p.last }

// Observe records what the node now says of the payout's transaction at tip, with needed the
// network's confirmations. It raises an event only when something changed: the status, the
// block's height, or the confirmations while fewer than needed. A transaction never found
// raises nothing; one found before and not now is missing. It reports whether it raised.
func (p *PayoutState) Observe(withdrawalID, network, txHash string, tx TxState, tip, needed uint64, at time.Time) bool {
	if needed == 0 {
		needed = 1
	}
	next := PayoutSeen{WithdrawalID: withdrawalID, Network: network, TxHash: txHash, At: at.UTC()}
	switch {
	case !tx.Found && p.last.Status == PayoutNotSeen:
		return false
	case !tx.Found:
		next.Status = PayoutMissing
	default:
		next.Height = tx.Height
		next.Confirmations = min(Confirmations(tip, tx.Height), needed)
		switch {
		case tx.Failed:
			next.Status = PayoutFailed
		case next.Confirmations >= needed:
			next.Status = PayoutFinal
		default:
			next.Status = PayoutConfirming
		}
	}
	if next.Status == p.last.Status && next.Height == p.last.Height && next.Confirmations == p.last.Confirmations {
		return false
	}
	aggregate.Raise(p, next)
	return true
}

// Done reports whether the payout needs no more looking at: final, or failed with the
// confirmations needed (a reverted transaction that may yet leave the chain is watched until
// then).
func (p *PayoutState) Done(needed uint64) bool {
	if needed == 0 {
		needed = 1
	}
	return p.last.Status == PayoutFinal || (p.last.Status == PayoutFailed && p.last.Confirmations >= needed)
}

// Apply implements aggregate.Aggregate.
func (p *PayoutState) Apply(e aggregate.Event) {
	if e, ok := e.(PayoutSeen); ok {
		p.last = e
	}
}

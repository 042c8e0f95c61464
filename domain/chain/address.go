package chain

import (
	"time"

	"clearvest/domain/aggregate"
)

// TypeAddressAssigned is the event type of an investor's deposit address stream.
const TypeAddressAssigned = "chain.address_assigned"

// AddressStreamCategory is the category of the address streams; AddressStream names one.
const AddressStreamCategory = "chainaddress"

// AddressStream is the stream of the deposit address given to an investor on a network: one
// stream per investor and network, so an investor asking twice at once gets one address.
func AddressStream(network, userID string) string {
	return AddressStreamCategory + "-" + network + "." + userID
}

// AddressAssigned records that an investor was given their own deposit address on a network:
// the one derived at Index from the operator's account key (docs/chain.md, "Addresses").
type AddressAssigned struct {
	Network string    `json:"network"`
	UserID  string    `json:"userId"`
	Index   uint32    `json:"index"`
	Address string    `json:"address"`
	At      time.Time `json:"at"`
}

func (AddressAssigned) EventName() string { return TypeAddressAssigned }

// AddressState is the aggregate of one investor's address stream on one network.
type AddressState struct {
	aggregate.Root
	assigned *AddressAssigned
}

// NewAddressState returns the state of an investor given no address yet.
func NewAddressState() *AddressState { return &AddressState{} }

// Assigned is the address given, if any.
func (s *AddressState) Assigned() (AddressAssigned, bool) {
	if s.assigned == nil {
		return AddressAssigned{}, false
	}
	return *s.assigned, true
}

// Assign gives the investor a; an investor already given an address keeps it and nothing is
// raised. It reports whether it raised.
func (s *AddressState) Assign(a AddressAssigned) bool {
	if s.assigned != nil {
		return false
	}
	a.At = a.At.UTC()
	aggregate.Raise(s, a)
	return true
}

// Apply implements aggregate.Aggregate.
func (s *AddressState) Apply(e aggregate.Event) {
	if e, ok := e.(AddressAssigned); ok {
		s.assigned = &e
	}
}

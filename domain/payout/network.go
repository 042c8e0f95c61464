// Package payout holds the rules for sending money out on-chain: which networks Clearvest pays
// out on, which assets travel on each, and what a valid wallet address of each network is.
//
// Rules (docs/payouts.md, "Wallet addresses"; product rules, "withdrawals"):
//   - A withdrawal names a network and a wallet address; the address must be a valid mainnet
//     address of that network, checksum included, before any money is held for it. A typo must
//     fail here, not on-chain, where a payout cannot be called back.
//   - Surrounding whitespace (a pasted line break) is forgiven; whitespace, control or invisible
//     characters inside an address are not.
//   - Checking is pure: no node, no explorer, no network call. It proves the address is
//     well-formed for the network, not that anyone holds its key.
package payout

import (
	"clearvest/domain/asset"
	"clearvest/domain/domainerr"
)

// Network is a blockchain Clearvest pays out on, named by the code used in
// CLEARVEST_DEPOSIT_ADDRESSES entries (ASSET/NETWORK=ADDRESS).
type Network string

// The networks. ETH and USDT both travel on ERC20 (Ethereum mainnet, where ERC-20 tokens run);
// USDT also on TRC20 (TRON mainnet).
const (
	Bitcoin  Network = "BTC"
	Ethereum Network = "ERC20"
	Tron     Network = "TRC20"
)

type networkInfo struct {
	name   string // in messages: 'Please enter a valid Bitcoin address'
	assets []asset.Asset
	// confirmations is how many blocks on top of a deposit's transaction staff wait for before
	// they confirm it: enough that the chain will not reorganise it away.
	confirmations int
	// usualMinutes is how long a deposit usually takes to gather those confirmations, at the
	// network's block time (Bitcoin ~10 min, Ethereum ~12 s, TRON ~3 s), rounded up for a
	// congested network; what the deposit page tells the investor to expect.
	usualMinutes int
}

var networks = map[Network]networkInfo{
	Bitcoin:  {"Bitcoin", []asset.Asset{asset.BTC}, 2, 30},
	Ethereum: {"Ethereum", []asset.Asset{asset.ETH, asset.USDT}, 12, 5},
	Tron:     {"TRON", []asset.Asset{asset.USDT}, 20, 2},
}

// Networks returns every network, in a fixed order.
func Networks() []Network { return []Network{Bitcoin, Ethereum, Tron} }

// ErrUnknownNetwork is returned for a network code that is not one of Networks.
var ErrUnknownNetwork = fieldError("network", "Please choose a network: BTC, ERC20 or TRC20")

// ErrAssetNotOnNetwork is returned by CheckRoute when the asset does not travel on the network.
var ErrAssetNotOnNetwork = fieldError("network", "This coin cannot be sent on that network")

// ParseNetwork returns the network with the given code, exactly as written ("TRC20").
func ParseNetwork(code string) (Network, error) {
	if _, ok := networks[Network(code)]; !ok {
		return "", ErrUnknownNetwork
	}
	return Network(code), nil
}

// Valid reports whether n is one of Networks.
func (n Network) Valid() bool {
	_, ok := networks[n]
	return ok
}

// Name is the network's name for people: "Bitcoin", "Ethereum", "TRON".
func (n Network) Name() string { return networks[n].name }

func (n Network) String() string { return string(n) }

// Confirmations is how many confirmations a deposit on n needs before staff confirm it.
func (n Network) Confirmations() int { return networks[n].confirmations }

// UsualMinutes is how many minutes a deposit on n usually takes to reach its confirmations.
func (n Network) UsualMinutes() int { return networks[n].usualMinutes }

// Assets returns the assets that travel on n.
func (n Network) Assets() []asset.Asset {
	return append([]asset.Asset(nil), networks[n].assets...)
}

// CheckRoute reports whether asset a can be sent on network n: BTC on BTC, ETH on ERC20, USDT
// on ERC20 or TRC20. Sending a coin on a network that does not carry it loses it.
func CheckRoute(a asset.Asset, n Network) error {
	if !a.Valid() {
		return asset.ErrUnknownAsset
	}
	info, ok := networks[n]
	if !ok {
		return ErrUnknownNetwork
	}
	for _, x := range info.assets {
		if x == a {
			return nil
		}
	}
	return ErrAssetNotOnNetwork.WithMessage(a.Name() + " cannot be sent on the " + info.name + " network")
}

// fieldError is a sentinel error about one input: errors.Is matches it, and every error derived
// from it with WithMessage, while the API still names the field at fault.
func fieldError(field, message string) *domainerr.Error {
	e := domainerr.New(domainerr.Invalid, message)
	e.Field = field
	return e
}

package config

import "clearvest/domain/payout"

// Chain is the deposit watchers' configuration (docs/chain.md): which nodes to read and how
// many confirmations and from which height per network. A chain without a node URL is not
// watched; with none set the product works as before, on declared deposits only.
type Chain struct {
	Bitcoin  BitcoinChain
	Ethereum ChainEthereum
	// Networks holds confirmations and start heights per network, defaults filled in.
	Networks map[payout.Network]ChainNetwork
}

// LoadChain reads every CLEARVEST_CHAIN_* setting.
func LoadChain(getenv func(string) string) (Chain, error) {
	var c Chain
	var err error
	if c.Bitcoin, err = ParseBitcoinChain(getenv); err != nil {
		return Chain{}, err
	}
	if c.Ethereum, err = ParseChainEthereum(getenv); err != nil {
		return Chain{}, err
	}
	if c.Networks, err = ParseChain(getenv); err != nil {
		return Chain{}, err
	}
	return c, nil
}

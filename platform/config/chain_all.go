package config

import (
	"fmt"

	"clearvest/domain/payout"
	"clearvest/platform/chain/hdaddr"
)

// The account public keys investors' deposit addresses are derived from (docs/chain.md,
// "Addresses"): BIP 84 m/84'/0'/0' for Bitcoin, BIP 44 m/44'/60'/0' for Ethereum.
const (
	EnvChainBTCXpub = "CLEARVEST_CHAIN_BTC_XPUB"
	EnvChainETHXpub = "CLEARVEST_CHAIN_ETH_XPUB"
)

// Chain is the deposit watchers' configuration (docs/chain.md): which nodes to read, the
// account keys addresses are derived from, and how many confirmations and from which height per
// network. A network is watched when both its node and its key are set; with neither set for
// any network the product works as before, on declared deposits only.
type Chain struct {
	Bitcoin  BitcoinChain
	Ethereum ChainEthereum
	// BitcoinKey and EthereumKey derive the investors' addresses; nil when not watched.
	BitcoinKey  *hdaddr.Bitcoin
	EthereumKey *hdaddr.Ethereum
	// Networks holds confirmations and start heights per network, defaults filled in.
	Networks map[payout.Network]ChainNetwork
}

// LoadChain reads every CLEARVEST_CHAIN_* setting. A node without its key, or a key without its
// node, stops the start: addresses nobody watches would promise investors a credit that never
// comes, and a node without addresses watches nothing. A private key in place of the public one
// is refused, never kept.
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
	if err := pair(EnvChainBTCRPCURL, c.Bitcoin.Enabled(), EnvChainBTCXpub, getenv(EnvChainBTCXpub)); err != nil {
		return Chain{}, err
	}
	if err := pair(EnvChainEthRPCURL, c.Ethereum.RPCURL != "", EnvChainETHXpub, getenv(EnvChainETHXpub)); err != nil {
		return Chain{}, err
	}
	if key := getenv(EnvChainBTCXpub); key != "" {
		network := c.Bitcoin.Network
		if c.BitcoinKey, err = hdaddr.NewBitcoin(key, network); err != nil {
			return Chain{}, fmt.Errorf("%s: %w", EnvChainBTCXpub, err)
		}
	}
	if key := getenv(EnvChainETHXpub); key != "" {
		if c.EthereumKey, err = hdaddr.NewEthereum(key); err != nil {
			return Chain{}, fmt.Errorf("%s: %w", EnvChainETHXpub, err)
		}
	}
	return c, nil
}

func pair(nodeVar string, node bool, keyVar, key string) error {
	switch {
	case node && key == "":
		return fmt.Errorf("%s is set but %s is not: the watcher needs the account public key investors' addresses are derived from", nodeVar, keyVar)
	case !node && key != "":
		return fmt.Errorf("%s is set but %s is not: investors would be given addresses no watcher credits", keyVar, nodeVar)
	}
	return nil
}

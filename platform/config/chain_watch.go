package config

import (
	"fmt"
	"strconv"
	"strings"

	"clearvest/domain/payout"
)

// ChainNetwork is how the deposit watcher treats one network (docs/chain.md, "Watchers").
type ChainNetwork struct {
	// Confirmations a transfer needs before it is credited; 0 takes the network's default.
	Confirmations uint64
	// StartHeight is the first block read when the watcher has no cursor for the network yet.
	StartHeight uint64
}

// chainEnvName is the variables' name part of each watched network.
var chainEnvName = map[payout.Network]string{payout.Bitcoin: "BTC", payout.Ethereum: "ETH"}

// ParseChain reads CLEARVEST_CHAIN_BTC_CONFIRMATIONS, CLEARVEST_CHAIN_BTC_START_HEIGHT,
// CLEARVEST_CHAIN_ETH_CONFIRMATIONS and CLEARVEST_CHAIN_ETH_START_HEIGHT; unset ones take the
// defaults (the network's confirmations, start at block 1). A typo fails start-up.
func ParseChain(getenv func(string) string) (map[payout.Network]ChainNetwork, error) {
	out := map[payout.Network]ChainNetwork{}
	for n, name := range chainEnvName {
		var c ChainNetwork
		for _, v := range []struct {
			key string
			dst *uint64
			min uint64
		}{{"CLEARVEST_CHAIN_" + name + "_CONFIRMATIONS", &c.Confirmations, 1}, {"CLEARVEST_CHAIN_" + name + "_START_HEIGHT", &c.StartHeight, 0}} {
			raw := strings.TrimSpace(getenv(v.key))
			if raw == "" {
				continue
			}
			x, err := strconv.ParseUint(raw, 10, 64)
			if err != nil || x < v.min {
				return nil, fmt.Errorf("%s: want a whole number of at least %d, got %q", v.key, v.min, raw)
			}
			*v.dst = x
		}
		if c.Confirmations == 0 {
			c.Confirmations = uint64(n.Confirmations())
		}
		out[n] = c
	}
	return out, nil
}

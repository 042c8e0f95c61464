package config

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"clearvest/domain/payout"
)

// Environment variables of the Ethereum deposit watcher (docs/chain.md).
const (
	EnvChainEthRPCURL        = "CLEARVEST_CHAIN_ETH_RPC_URL"
	EnvChainEthToken         = "CLEARVEST_CHAIN_ETH_TOKEN"
	EnvChainEthTokenDecimals = "CLEARVEST_CHAIN_ETH_TOKEN_DECIMALS"
)

// ChainEthereum configures the Ethereum block source. RPCURL empty means no Ethereum watcher.
type ChainEthereum struct {
	RPCURL        string
	Token         string // the USDT contract, EIP-55 checksummed; empty: ether only
	TokenDecimals int32  // 6 unless set
}

// ParseChainEthereum reads CLEARVEST_CHAIN_ETH_RPC_URL (an http(s) or ws(s) URL),
// CLEARVEST_CHAIN_ETH_TOKEN (a contract address) and CLEARVEST_CHAIN_ETH_TOKEN_DECIMALS (0 to 36).
func ParseChainEthereum(get func(string) string) (ChainEthereum, error) {
	c := ChainEthereum{RPCURL: get(EnvChainEthRPCURL), TokenDecimals: 6}
	if c.RPCURL != "" {
		u, err := url.Parse(c.RPCURL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
			return ChainEthereum{}, fmt.Errorf("%s is not an http(s) or ws(s) URL", EnvChainEthRPCURL)
		}
	}
	if t := get(EnvChainEthToken); t != "" {
		addr, err := payout.NormalizeAddress(string(payout.Ethereum), t)
		if err != nil {
			return ChainEthereum{}, fmt.Errorf("%s: %q: %v", EnvChainEthToken, t, err)
		}
		c.Token = common.HexToAddress(addr).Hex()
	}
	if d := get(EnvChainEthTokenDecimals); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 || n > 36 {
			return ChainEthereum{}, fmt.Errorf("%s: %q is not a number of decimals from 0 to 36", EnvChainEthTokenDecimals, d)
		}
		c.TokenDecimals = int32(n)
	}
	return c, nil
}

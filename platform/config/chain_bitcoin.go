package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"

	"clearvest/platform/chain/bitcoin"
)

// Variables of the Bitcoin chain watcher.
const (
	EnvChainBTCRPCURL  = "CLEARVEST_CHAIN_BTC_RPC_URL"
	EnvChainBTCNetwork = "CLEARVEST_CHAIN_BTC_NETWORK"
)

// BitcoinChain says which Bitcoin node the deposit watcher reads. The zero value (no URL) means
// Bitcoin deposits are not watched.
type BitcoinChain struct {
	Host     string // host:port of the node's JSON-RPC interface
	User     string
	Password string
	TLS      bool   // https; plain http sends the password in the clear, so keep it on loopback or a private link
	Network  string // chain parameters: mainnet (default), testnet3, testnet4, signet, regtest, simnet
}

// Enabled reports whether a node is configured.
func (b BitcoinChain) Enabled() bool { return b.Host != "" }

// LogValue keeps the credentials out of logs.
func (b BitcoinChain) LogValue() slog.Value {
	if !b.Enabled() {
		return slog.StringValue("off")
	}
	scheme := "http"
	if b.TLS {
		scheme = "https"
	}
	return slog.GroupValue(slog.String("rpc", scheme+"://"+b.Host), slog.String("network", b.Network))
}

// String is LogValue's text, so printing the value with %v does not leak the password either.
func (b BitcoinChain) String() string { return b.LogValue().String() }

// ParseBitcoinChain reads CLEARVEST_CHAIN_BTC_RPC_URL (http(s)://user:password@host:port, empty
// for no watcher) and CLEARVEST_CHAIN_BTC_NETWORK. Errors name the variable, never the password.
func ParseBitcoinChain(get func(string) string) (BitcoinChain, error) {
	raw := get(EnvChainBTCRPCURL)
	network := get(EnvChainBTCNetwork)
	if network == "" {
		network = "mainnet"
	}
	// The source's own list of chain parameters decides which names exist.
	if _, err := bitcoin.Params(network); err != nil {
		return BitcoinChain{}, fmt.Errorf("%s: %w", EnvChainBTCNetwork, err)
	}
	if raw == "" {
		return BitcoinChain{}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url's error quotes the whole URL, password included.
		return BitcoinChain{}, fmt.Errorf("%s: not a URL of the form http(s)://user:password@host:port", EnvChainBTCRPCURL)
	}
	pass, _ := u.User.Password()
	b := BitcoinChain{Host: u.Host, User: u.User.Username(), Password: pass, TLS: u.Scheme == "https", Network: network}
	if u.Scheme != "http" && u.Scheme != "https" {
		return BitcoinChain{}, fmt.Errorf("%s: the scheme must be http or https", EnvChainBTCRPCURL)
	}
	if _, port, err := net.SplitHostPort(u.Host); err != nil || port == "" {
		return BitcoinChain{}, fmt.Errorf("%s: the node's host:port is missing", EnvChainBTCRPCURL)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return BitcoinChain{}, fmt.Errorf("%s: a node's RPC URL has no path or query", EnvChainBTCRPCURL)
	}
	if b.User == "" || b.Password == "" {
		return BitcoinChain{}, fmt.Errorf("%s: the node's RPC user and password are missing", EnvChainBTCRPCURL)
	}
	return b, nil
}

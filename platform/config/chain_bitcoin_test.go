package config_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"clearvest/platform/config"
)

func TestBitcoinChain(t *testing.T) {
	t.Parallel()
	b, err := config.ParseBitcoinChain(env(nil))
	if err != nil || b.Enabled() {
		t.Errorf("unset = %+v, %v; want off", b, err)
	}
	b, err = config.ParseBitcoinChain(env(map[string]string{
		config.EnvChainBTCRPCURL: "https://watcher:s3cret-pass@node.internal:8332", config.EnvChainBTCNetwork: "testnet4"}))
	want := config.BitcoinChain{Host: "node.internal:8332", User: "watcher", Password: "s3cret-pass", TLS: true, Network: "testnet4"}
	if err != nil || b != want || !b.Enabled() {
		t.Errorf("configured = %+v, %v; want %+v", b, err, want)
	}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("chain", "btc", b)
	if printed := fmt.Sprint(b) + fmt.Sprintf("%v", b) + logged.String(); strings.Contains(printed, "s3cret") || !strings.Contains(logged.String(), "https://node.internal:8332") {
		t.Errorf("printed or logged as %q", printed)
	}
	if b, err = config.ParseBitcoinChain(env(map[string]string{config.EnvChainBTCRPCURL: "http://u:p@127.0.0.1:18556"})); err != nil || b.TLS || b.Network != "mainnet" {
		t.Errorf("http loopback = %+v, %v", b, err)
	}
	for _, bad := range []map[string]string{
		{config.EnvChainBTCRPCURL: "ftp://u:s3cret@host:1"},
		{config.EnvChainBTCRPCURL: "http://u:s3cret@host"},
		{config.EnvChainBTCRPCURL: "http://host:8332"},
		{config.EnvChainBTCRPCURL: "http://u:s3cret@host:8332/wallet/x"},
		{config.EnvChainBTCRPCURL: "http://u:s3cret@host:8332", config.EnvChainBTCNetwork: "litecoin"},
		{config.EnvChainBTCRPCURL: "http://u:s3cret@[::1:8332"},
	} {
		_, err := config.ParseBitcoinChain(env(bad))
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "CLEARVEST_CHAIN_BTC_") {
			t.Errorf("%v: %v, want an error naming the variable without the password", bad, err)
		}
	}
}

package config

import (
	"strings"
	"testing"
)

const (
	testZpub = "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
	testXpub = "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt"
)

func TestLoadChainWatchesANetworkOnlyWithItsNodeAndItsKey(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	none, err := LoadChain(env(nil))
	if err != nil || none.BitcoinKey != nil || none.EthereumKey != nil || none.Bitcoin.Enabled() {
		t.Fatalf("nothing set: %+v, %v; want nothing watched", none, err)
	}
	both, err := LoadChain(env(map[string]string{
		EnvChainBTCRPCURL: "http://u:p@127.0.0.1:8332", EnvChainBTCXpub: testZpub,
		EnvChainEthRPCURL: "http://127.0.0.1:8545", EnvChainETHXpub: testXpub,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if a, err := both.BitcoinKey.Address(0); err != nil || a != "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu" {
		t.Fatalf("bitcoin index 0: %s, %v", a, err)
	}
	if a, err := both.EthereumKey.Address(0); err != nil || a != "0x9858EfFD232B4033E47d90003D41EC34EcaEda94" {
		t.Fatalf("ethereum index 0: %s, %v", a, err)
	}
	for name, c := range map[string]struct {
		kv   map[string]string
		want string
	}{
		"node without key":   {map[string]string{EnvChainBTCRPCURL: "http://u:p@127.0.0.1:8332"}, "CLEARVEST_CHAIN_BTC_XPUB is not"},
		"key without node":   {map[string]string{EnvChainETHXpub: testXpub}, "CLEARVEST_CHAIN_ETH_RPC_URL is not"},
		"private key":        {map[string]string{EnvChainEthRPCURL: "http://127.0.0.1:8545", EnvChainETHXpub: "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi"}, "CLEARVEST_CHAIN_ETH_XPUB: "},
		"key of another net": {map[string]string{EnvChainBTCRPCURL: "http://u:p@127.0.0.1:18443", EnvChainBTCNetwork: "regtest", EnvChainBTCXpub: testZpub}, "mainnet extended public key"},
		"segwit key for eth": {map[string]string{EnvChainEthRPCURL: "http://127.0.0.1:8545", EnvChainETHXpub: testZpub}, "SegWit"},
	} {
		if _, err := LoadChain(env(c.kv)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
}

package config

import "testing"

func TestParseChainEthereum(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := ParseChainEthereum(env(map[string]string{
		EnvChainEthRPCURL: "http://127.0.0.1:8545",
		EnvChainEthToken:  "0xdac17f958d2ee523a2206206994597c13d831ec7",
	}))
	if err != nil || c.RPCURL != "http://127.0.0.1:8545" || c.Token != "0xdAC17F958D2ee523a2206206994597C13D831ec7" || c.TokenDecimals != 6 {
		t.Fatalf("ParseChainEthereum = %+v, %v", c, err)
	}
	if c, err := ParseChainEthereum(env(nil)); err != nil || c.RPCURL != "" {
		t.Errorf("unset: %+v, %v", c, err)
	}
	for _, bad := range []map[string]string{
		{EnvChainEthRPCURL: "127.0.0.1:8545"},
		{EnvChainEthToken: "0x1234"},
		{EnvChainEthTokenDecimals: "-1"},
		{EnvChainEthTokenDecimals: "six"},
	} {
		if _, err := ParseChainEthereum(env(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

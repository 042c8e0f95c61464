package config

import (
	"testing"

	"clearvest/domain/payout"
)

func TestParseChain(t *testing.T) {
	env := map[string]string{"CLEARVEST_CHAIN_BTC_CONFIRMATIONS": "3", "CLEARVEST_CHAIN_ETH_START_HEIGHT": "1200"}
	got, err := ParseChain(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if got[payout.Bitcoin] != (ChainNetwork{Confirmations: 3}) {
		t.Errorf("BTC = %+v", got[payout.Bitcoin])
	}
	if got[payout.Ethereum] != (ChainNetwork{Confirmations: 12, StartHeight: 1200}) {
		t.Errorf("ETH = %+v", got[payout.Ethereum])
	}
	for _, bad := range []string{"0", "-1", "three"} {
		env["CLEARVEST_CHAIN_BTC_CONFIRMATIONS"] = bad
		if _, err := ParseChain(func(k string) string { return env[k] }); err == nil {
			t.Errorf("confirmations %q accepted", bad)
		}
	}
}

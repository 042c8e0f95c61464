package payout_test

import (
	"errors"
	"slices"
	"testing"

	"clearvest/domain/asset"
	"clearvest/domain/payout"
)

func TestNetworks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		code   string
		name   string
		assets []asset.Asset
	}{
		{"BTC", "Bitcoin", []asset.Asset{asset.BTC}},
		{"ERC20", "Ethereum", []asset.Asset{asset.ETH, asset.USDT}},
		{"TRC20", "TRON", []asset.Asset{asset.USDT}},
	} {
		n, err := payout.ParseNetwork(tt.code)
		if err != nil || n.String() != tt.code || !n.Valid() || n.Name() != tt.name || !slices.Equal(n.Assets(), tt.assets) {
			t.Errorf("ParseNetwork(%q) = %v (%s, %v), %v", tt.code, n, n.Name(), n.Assets(), err)
		}
	}
	for _, code := range []string{"", "btc", "ETH", "TRX", "BEP20"} {
		if _, err := payout.ParseNetwork(code); !errors.Is(err, payout.ErrUnknownNetwork) {
			t.Errorf("ParseNetwork(%q) error = %v", code, err)
		}
	}
	if len(payout.Networks()) != 3 {
		t.Errorf("Networks() = %v", payout.Networks())
	}
}

func TestCheckRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a       asset.Asset
		n       payout.Network
		want    error
		message string
	}{
		{asset.BTC, payout.Bitcoin, nil, ""},
		{asset.ETH, payout.Ethereum, nil, ""},
		{asset.USDT, payout.Ethereum, nil, ""},
		{asset.USDT, payout.Tron, nil, ""},
		{asset.BTC, payout.Ethereum, payout.ErrAssetNotOnNetwork, "Bitcoin cannot be sent on the Ethereum network"},
		{asset.ETH, payout.Tron, payout.ErrAssetNotOnNetwork, "Ether cannot be sent on the TRON network"},
		{asset.USDT, payout.Bitcoin, payout.ErrAssetNotOnNetwork, "Tether USD cannot be sent on the Bitcoin network"},
		{asset.Asset("DOGE"), payout.Bitcoin, asset.ErrUnknownAsset, asset.ErrUnknownAsset.Error()},
		{asset.BTC, payout.Network("LN"), payout.ErrUnknownNetwork, payout.ErrUnknownNetwork.Error()},
	}
	for _, tt := range tests {
		err := payout.CheckRoute(tt.a, tt.n)
		if !errors.Is(err, tt.want) || (err != nil && err.Error() != tt.message) {
			t.Errorf("CheckRoute(%s, %s) = %v, want %v (%q)", tt.a, tt.n, err, tt.want, tt.message)
		}
	}
}

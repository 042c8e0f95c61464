package config_test

import (
	"strings"
	"testing"
	"time"

	"clearvest/platform/config"
)

func TestMarket(t *testing.T) {
	t.Parallel()
	m, err := config.ParseMarket(env(nil))
	if err != nil || m.CryptoURL != config.DefaultMarketCryptoURL || m.FXURL != config.DefaultMarketFXURL || m.Refresh != 15*time.Minute {
		t.Errorf("defaults = %+v, %v", m, err)
	}
	m, err = config.ParseMarket(env(map[string]string{config.EnvMarketCryptoURL: "http://127.0.0.1:9001",
		config.EnvMarketFXURL: "http://127.0.0.1:9002/v1", config.EnvMarketRefresh: "OFF"}))
	if err != nil || m.CryptoURL != "http://127.0.0.1:9001" || m.FXURL != "http://127.0.0.1:9002/v1" || m.Refresh != 0 {
		t.Errorf("configured = %+v, %v", m, err)
	}
	if m, err = config.ParseMarket(env(map[string]string{config.EnvMarketRefresh: "1h"})); err != nil || m.Refresh != time.Hour {
		t.Errorf("1h = %+v, %v", m, err)
	}
	for name, bad := range map[string]string{
		config.EnvMarketCryptoURL: "api.binance.com", config.EnvMarketFXURL: "ftp://example.com",
		config.EnvMarketRefresh: "10ms",
	} {
		if _, err := config.ParseMarket(env(map[string]string{name: bad})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want an error naming the variable", name, bad, err)
		}
	}
	if _, err := config.ParseMarket(env(map[string]string{config.EnvMarketRefresh: "soon"})); err == nil {
		t.Error("a refresh of soon was accepted")
	}
}

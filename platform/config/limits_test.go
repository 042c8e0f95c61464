package config_test

import (
	"strings"
	"testing"

	"clearvest/platform/config"
)

func TestLimitsConfig(t *testing.T) {
	l, err := config.LoadLimits(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if l.ReferralMinDeposit.String() != "100.00" || l.MaxOpenDeposits != 5 {
		t.Fatalf("defaults: %+v", l)
	}
	env := map[string]string{config.EnvReferralMinDeposit: " 250 ", config.EnvMaxOpenDeposits: "12"}
	if l, err = config.LoadLimits(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if l.ReferralMinDeposit.String() != "250.00" || l.MaxOpenDeposits != 12 || l.Off {
		t.Fatalf("set: %+v", l)
	}
	if l, err = config.LoadLimits(func(k string) string { return map[string]string{config.EnvRequestLimits: "off"}[k] }); err != nil || !l.Off {
		t.Fatalf("off in development: %+v, %v", l, err)
	}
	for _, bad := range []map[string]string{
		{config.EnvReferralMinDeposit: "0"},
		{config.EnvReferralMinDeposit: "-5"},
		{config.EnvReferralMinDeposit: "10.001"},
		{config.EnvReferralMinDeposit: "lots"},
		{config.EnvMaxOpenDeposits: "0"},
		{config.EnvMaxOpenDeposits: "101"},
		{config.EnvMaxOpenDeposits: "five"},
		{config.EnvRequestLimits: "no"},
		{config.EnvRequestLimits: "off", config.EnvEnv: config.Production},
	} {
		_, err := config.LoadLimits(func(k string) string { return bad[k] })
		if err == nil {
			t.Errorf("%v accepted", bad)
			continue
		}
		for k := range bad {
			if k != config.EnvEnv && !strings.Contains(err.Error(), k) {
				t.Errorf("%v: the error does not name the variable: %v", bad, err)
			}
		}
	}
}

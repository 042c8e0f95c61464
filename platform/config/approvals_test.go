package config_test

import (
	"strings"
	"testing"

	"clearvest/platform/config"
)

func TestApprovalsDefaults(t *testing.T) {
	t.Parallel()
	a, err := config.LoadApprovals(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if a.DepositTolerance.String() != "0.01" || a.DepositThreshold.String() != "10000.00" ||
		a.WithdrawalThreshold.String() != "10000.00" || a.MaxAmount.String() != "10000000.00" {
		t.Fatalf("defaults = %+v", a)
	}
}

func TestApprovalsSettings(t *testing.T) {
	t.Parallel()
	env := map[string]string{config.EnvApprovalDepositTolerance: "0.5", config.EnvApprovalDepositThreshold: "2500",
		config.EnvApprovalWithdrawalThreshold: "5000.00", config.EnvMaxAmount: "1000000"}
	a, err := config.LoadApprovals(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if a.DepositTolerance.String() != "0.005" || a.DepositThreshold.String() != "2500.00" ||
		a.WithdrawalThreshold.String() != "5000.00" || a.MaxAmount.String() != "1000000.00" {
		t.Fatalf("settings = %+v", a)
	}
}

func TestApprovalsRefuseBadSettings(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		config.EnvApprovalDepositTolerance:    "-1",
		config.EnvApprovalDepositThreshold:    "0",
		config.EnvApprovalWithdrawalThreshold: "ten thousand",
		config.EnvMaxAmount:                   "1000000000000.01",
	}
	for name, value := range cases {
		_, err := config.LoadApprovals(func(k string) string {
			if k == name {
				return value
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: err = %v, want one naming the variable", name, value, err)
		}
	}
	// Another tolerance spelling that is not a percentage.
	if _, err := config.LoadApprovals(func(k string) string {
		if k == config.EnvApprovalDepositTolerance {
			return "101"
		}
		return ""
	}); err == nil {
		t.Error("a tolerance above 100 % was accepted")
	}
}

package config

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"clearvest/domain/money"
)

// Environment variables of the four-eyes rule and the platform's ceiling on amounts
// (docs/security.md, "Separation of duties" and "Ceilings on amounts").
const (
	EnvApprovalDepositTolerance    = "CLEARVEST_APPROVAL_DEPOSIT_TOLERANCE"
	EnvApprovalDepositThreshold    = "CLEARVEST_APPROVAL_DEPOSIT_THRESHOLD"
	EnvApprovalWithdrawalThreshold = "CLEARVEST_APPROVAL_WITHDRAWAL_THRESHOLD"
	EnvMaxAmount                   = "CLEARVEST_MAX_AMOUNT"
	EnvApprovalCorrectionThreshold = "CLEARVEST_APPROVAL_CORRECTION_THRESHOLD"
)

// Defaults: a deposit confirmation needs a second staff member when what arrived differs from
// what the investor declared by more than 1 % or is more than $10,000.00; a withdrawal above
// $10,000.00 does too; no amount anyone enters may exceed $10,000,000.00.
const (
	DefaultApprovalDepositTolerance    = "1"
	DefaultApprovalDepositThreshold    = "10000.00"
	DefaultApprovalWithdrawalThreshold = "10000.00"
	DefaultMaxAmount                   = "10000000.00"
	// DefaultApprovalCorrectionThreshold: a staff correction of a balance above $500.00 (either
	// way) needs a second staff member.
	DefaultApprovalCorrectionThreshold = "500.00"
)

// maxCeiling keeps every sum the read models hold inside NUMERIC(20,2): an operator may lower
// the ceiling, or raise it up to a trillion dollars, no further.
var maxCeiling = money.MustParse("1000000000000.00")

// Approvals is the configuration of the four-eyes rule.
type Approvals struct {
	// DepositTolerance is the fraction (0.01 for 1 %) by which a confirmed amount may differ
	// from the declared one before a second staff member must approve it.
	DepositTolerance decimal.Decimal
	// DepositThreshold and WithdrawalThreshold: above them, a second staff member approves.
	DepositThreshold    money.Money
	WithdrawalThreshold money.Money
	// CorrectionThreshold: a balance correction above it (added or deducted) needs a second
	// staff member.
	CorrectionThreshold money.Money
	// MaxAmount is the ceiling on every amount anyone enters.
	MaxAmount money.Money
}

// LoadApprovals reads the four-eyes thresholds and the ceiling through getenv.
func LoadApprovals(getenv func(string) string) (Approvals, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	var a Approvals
	pct, err := decimal.NewFromString(get(EnvApprovalDepositTolerance, DefaultApprovalDepositTolerance))
	if err != nil || pct.IsNegative() || pct.GreaterThan(decimal.NewFromInt(100)) {
		return Approvals{}, fmt.Errorf("%s: %q is not a percentage between 0 and 100 (for example 1 or 0.5)",
			EnvApprovalDepositTolerance, getenv(EnvApprovalDepositTolerance))
	}
	a.DepositTolerance = pct.Div(decimal.NewFromInt(100))
	if a.MaxAmount, err = positiveAmount(EnvMaxAmount, get(EnvMaxAmount, DefaultMaxAmount)); err != nil {
		return Approvals{}, err
	}
	if maxCeiling.LessThan(a.MaxAmount) {
		return Approvals{}, fmt.Errorf("%s: %s is above the largest ceiling the books hold, %s", EnvMaxAmount, a.MaxAmount.Dollars(), maxCeiling.Dollars())
	}
	if a.DepositThreshold, err = positiveAmount(EnvApprovalDepositThreshold, get(EnvApprovalDepositThreshold, DefaultApprovalDepositThreshold)); err != nil {
		return Approvals{}, err
	}
	if a.WithdrawalThreshold, err = positiveAmount(EnvApprovalWithdrawalThreshold, get(EnvApprovalWithdrawalThreshold, DefaultApprovalWithdrawalThreshold)); err != nil {
		return Approvals{}, err
	}
	if a.CorrectionThreshold, err = positiveAmount(EnvApprovalCorrectionThreshold, get(EnvApprovalCorrectionThreshold, DefaultApprovalCorrectionThreshold)); err != nil {
		return Approvals{}, err
	}
	return a, nil
}

func positiveAmount(name, s string) (money.Money, error) {
	m, err := money.Parse(s)
	if err != nil || !m.IsPositive() {
		return money.Money{}, fmt.Errorf("%s: %q is not a positive amount of US dollars (for example 10000.00)", name, s)
	}
	return m, nil
}

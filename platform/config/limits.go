package config

import (
	"fmt"
	"strconv"
	"strings"

	"clearvest/domain/money"
)

// Environment variables of the money limits: what a referral must deposit before its referrer
// earns the bonus, and how many deposits an investor may have waiting for staff at once.
const (
	EnvReferralMinDeposit = "CLEARVEST_REFERRAL_MIN_DEPOSIT"
	EnvMaxOpenDeposits    = "CLEARVEST_MAX_OPEN_DEPOSITS"
	// EnvRequestLimits "off" turns the per-user and per-address request limits and the open
	// deposit quota off, outside production only: a load test sends thousands of requests a
	// second as a handful of users from one address, which no honest investor does.
	EnvRequestLimits = "CLEARVEST_REQUEST_LIMITS"
)

// Defaults of the money limits: a referral's first confirmed deposit of at least $100.00 earns
// the bonus (so a few dollars moved back and forth earn nothing), and five deposits may wait for
// confirmation at once (more than anyone paying in honestly needs, few enough that nobody can
// bury the staff queue).
const (
	DefaultReferralMinDeposit = "100.00"
	DefaultMaxOpenDeposits    = 5
)

// Limits are the configurable limits on money movements.
type Limits struct {
	// ReferralMinDeposit is the least a referred user's confirmed deposit (as received) must be
	// to earn their referrer the bonus.
	ReferralMinDeposit money.Money
	// MaxOpenDeposits is how many deposit requests an investor may have waiting for
	// confirmation; the next one is refused until staff decide one.
	MaxOpenDeposits int
	// Off: request limits and the open deposit quota are off (CLEARVEST_REQUEST_LIMITS=off,
	// never in production).
	Off bool
}

// LoadLimits reads the money limits through getenv.
func LoadLimits(getenv func(string) string) (Limits, error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	var l Limits
	var err error
	if l.ReferralMinDeposit, err = ParseReferralMinDeposit(get(EnvReferralMinDeposit)); err != nil {
		return Limits{}, err
	}
	if l.MaxOpenDeposits, err = ParseMaxOpenDeposits(get(EnvMaxOpenDeposits)); err != nil {
		return Limits{}, err
	}
	switch v := get(EnvRequestLimits); v {
	case "", "on":
	case "off":
		if get(EnvEnv) == Production {
			return Limits{}, fmt.Errorf("%s: off is for load tests and is refused in production", EnvRequestLimits)
		}
		l.Off = true
	default:
		return Limits{}, fmt.Errorf("%s: %q is neither on nor off", EnvRequestLimits, v)
	}
	return l, nil
}

// ParseReferralMinDeposit reads CLEARVEST_REFERRAL_MIN_DEPOSIT: a positive amount of US dollars
// with at most two decimals ("100", "100.00"). Empty means DefaultReferralMinDeposit.
func ParseReferralMinDeposit(s string) (money.Money, error) {
	if s == "" {
		s = DefaultReferralMinDeposit
	}
	m, err := money.Parse(s)
	if err == nil {
		_, err = money.Positive(m)
	}
	if err != nil {
		return money.Money{}, fmt.Errorf("%s: %q is not a positive amount of US dollars with at most two decimals, e.g. 100.00", EnvReferralMinDeposit, s)
	}
	return m, nil
}

// ParseMaxOpenDeposits reads CLEARVEST_MAX_OPEN_DEPOSITS: a whole number from 1 to 100. Empty
// means DefaultMaxOpenDeposits. Above 100 the limit would no longer protect the staff queue.
func ParseMaxOpenDeposits(s string) (int, error) {
	if s == "" {
		return DefaultMaxOpenDeposits, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 100 {
		return 0, fmt.Errorf("%s: %q is not a whole number from 1 to 100", EnvMaxOpenDeposits, s)
	}
	return n, nil
}

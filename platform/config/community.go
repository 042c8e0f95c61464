package config

import (
	"fmt"
	"strconv"
	"strings"

	"clearvest/domain/community"
	"clearvest/domain/money"
)

// Environment variables of the public site's social proof (docs/community.md).
const (
	EnvMinInvestors = "CLEARVEST_PUBLIC_MIN_INVESTORS"
	EnvMinCountries = "CLEARVEST_PUBLIC_MIN_COUNTRIES"
	EnvBadgeLevels  = "CLEARVEST_BADGE_LEVELS"
)

// Defaults of the social proof: the investor count is shown from 50 investors, the country
// count from 5 countries; the levels above member ask for lifetime invested dollars and
// qualified referrals.
const (
	DefaultMinInvestors = 50
	DefaultMinCountries = 5
	DefaultBadgeLevels  = "leader=1000:1,expert=5000:3,master=20000:10"
)

// Community is the configuration of the public site's social proof.
type Community struct {
	// MinInvestors and MinCountries hide a public count below them.
	MinInvestors, MinCountries int
	// Levels are the member levels, member first (it asks nothing).
	Levels []community.Level
}

// LoadCommunity reads the social-proof settings through getenv.
func LoadCommunity(getenv func(string) string) (Community, error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	var c Community
	var err error
	if c.MinInvestors, err = parseMinimum(EnvMinInvestors, get(EnvMinInvestors), DefaultMinInvestors); err != nil {
		return Community{}, err
	}
	if c.MinCountries, err = parseMinimum(EnvMinCountries, get(EnvMinCountries), DefaultMinCountries); err != nil {
		return Community{}, err
	}
	if c.Levels, err = ParseBadgeLevels(get(EnvBadgeLevels)); err != nil {
		return Community{}, err
	}
	return c, nil
}

func parseMinimum(name, s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s: %q is not a whole number of at least 1", name, s)
	}
	return n, nil
}

// ParseBadgeLevels reads CLEARVEST_BADGE_LEVELS: "leader=1000:1,expert=5000:3,master=20000:10",
// each level above member with the lifetime invested US dollars and the qualified referrals it
// asks. Empty means DefaultBadgeLevels. Member always asks nothing.
func ParseBadgeLevels(s string) ([]community.Level, error) {
	if s == "" {
		s = DefaultBadgeLevels
	}
	levels := []community.Level{{Name: community.Member, MinInvested: money.Zero}}
	for _, part := range strings.Split(s, ",") {
		name, rest, ok := strings.Cut(strings.TrimSpace(part), "=")
		invested, refs, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s: %q is not name=dollars:referrals", EnvBadgeLevels, part)
		}
		m, err := money.Parse(strings.TrimSpace(invested))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %q is not an amount of US dollars", EnvBadgeLevels, name, invested)
		}
		n, err := strconv.Atoi(strings.TrimSpace(refs))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %q is not a whole number of referrals", EnvBadgeLevels, name, refs)
		}
		levels = append(levels, community.Level{Name: strings.ToLower(strings.TrimSpace(name)), MinInvested: m, MinReferrals: n})
	}
	if err := community.ValidateLevels(levels); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvBadgeLevels, err)
	}
	return levels, nil
}

package community_test

import (
	"testing"

	"clearvest/domain/community"
	"clearvest/domain/money"
)

func TestDisplayFloor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		count, minimum, want int
		shown                bool
	}{
		{count: 5432, minimum: 50, want: 5000, shown: true},
		{count: 5000, minimum: 50, want: 5000, shown: true},
		{count: 4999, minimum: 50, want: 4000, shown: true},
		{count: 37, minimum: 5, want: 30, shown: true},
		{count: 30, minimum: 5, want: 30, shown: true},
		{count: 7, minimum: 5, want: 7, shown: true},
		{count: 123456, minimum: 1, want: 100000, shown: true},
		{count: 49, minimum: 50, shown: false},
		{count: 0, minimum: 0, shown: false},
		{count: 1, minimum: 0, want: 1, shown: true},
	} {
		got, ok := community.DisplayFloor(tc.count, tc.minimum)
		if ok != tc.shown || got != tc.want {
			t.Errorf("DisplayFloor(%d, %d) = %d, %v; want %d, %v", tc.count, tc.minimum, got, ok, tc.want, tc.shown)
		}
		if ok && got > tc.count {
			t.Errorf("DisplayFloor(%d) = %d: more than there is", tc.count, got)
		}
	}
}

func TestStanding(t *testing.T) {
	t.Parallel()
	levels := community.DefaultLevels()
	for name, tc := range map[string]struct {
		invested  string
		referrals int
		current   string
		next      string
		percent   int
	}{
		"a new user is a member":                  {invested: "0", current: community.Member, next: community.Leader, percent: 0},
		"half way on money, none on referrals":    {invested: "500", current: community.Member, next: community.Leader, percent: 25},
		"money alone is not enough":               {invested: "4000", current: community.Member, next: community.Leader, percent: 50},
		"both criteria met hold the level":        {invested: "1000", referrals: 1, current: community.Leader, next: community.Expert, percent: 26},
		"a level is held only with the one below": {invested: "25000", referrals: 2, current: community.Leader, next: community.Expert, percent: 83},
		"the top level has nothing next":          {invested: "20000", referrals: 10, current: community.Master, percent: 100},
		"almost there never shows 100":            {invested: "4999.99", referrals: 3, current: community.Leader, next: community.Expert, percent: 99},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := community.StandingOf(levels, money.MustParse(tc.invested), tc.referrals)
			next := ""
			if s.Next != nil {
				next = s.Next.Name
			}
			if s.Current.Name != tc.current || next != tc.next || s.Percent != tc.percent {
				t.Errorf("StandingOf(%s, %d) = %s → %q at %d%%; want %s → %q at %d%%", tc.invested, tc.referrals,
					s.Current.Name, next, s.Percent, tc.current, tc.next, tc.percent)
			}
		})
	}
}

func TestValidateLevels(t *testing.T) {
	t.Parallel()
	if err := community.ValidateLevels(community.DefaultLevels()); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	bad := map[string]func([]community.Level){
		"member asks something": func(l []community.Level) { l[0].MinReferrals = 1 },
		"a level asks less":     func(l []community.Level) { l[2].MinInvested = money.MustParse("10") },
		"a level asks the same": func(l []community.Level) { l[2] = l[1]; l[2].Name = community.Expert },
		"wrong order":           func(l []community.Level) { l[1].Name, l[2].Name = l[2].Name, l[1].Name },
		"negative":              func(l []community.Level) { l[3].MinReferrals = -1 },
	}
	for name, change := range bad {
		l := community.DefaultLevels()
		change(l)
		if err := community.ValidateLevels(l); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := community.ValidateLevels(community.DefaultLevels()[:3]); err == nil {
		t.Error("three levels accepted")
	}
}

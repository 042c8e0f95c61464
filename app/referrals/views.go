package referrals

import (
	"clearvest/platform/pgread"
	"context"
	"net/url"
	"time"

	"clearvest/domain/money"
	"clearvest/projections/referrals"
	"clearvest/projections/users"
)

// Overview is the referrals page of one user: what to share, what a referral earns, what they
// earned, and whom they referred.
type Overview struct {
	Code        string
	Link        string // the public register page with the code filled in
	Bonus       money.Money
	TotalEarned money.Money
	Referred    []Referred
}

// Referred is one referred user as their referrer sees them; a closed account shows no name
// and no photo.
type Referred struct {
	UserID    string
	Name      string
	Photo     string
	Closed    bool
	JoinedAt  time.Time
	Qualified bool
	Bonus     *money.Money // credited for this user; nil until then, or never
}

// Overview reads userID's referrals from the read models. It only ever shows the caller's own.
func (r *Reactor) Overview(ctx context.Context, userID string) (Overview, error) {
	u, err := users.Get(ctx, pgread.On(ctx, r.pool), userID)
	if err != nil {
		return Overview{}, err
	}
	list, err := referrals.List(ctx, pgread.On(ctx, r.pool), userID)
	if err != nil {
		return Overview{}, err
	}
	bonus, _, err := r.Terms(ctx)
	if err != nil {
		return Overview{}, err
	}
	out := Overview{Code: u.ReferralCode, Bonus: bonus, TotalEarned: money.Zero, Referred: make([]Referred, 0, len(list)),
		Link: r.cfg.PublicURL + "/register?ref=" + url.QueryEscape(u.ReferralCode)}
	for _, x := range list {
		if x.Bonus != nil {
			out.TotalEarned = out.TotalEarned.Add(*x.Bonus)
		}
		out.Referred = append(out.Referred, Referred{UserID: x.UserID, Name: x.Name, Photo: x.Photo, Closed: x.Closed,
			JoinedAt: x.JoinedAt, Qualified: x.Qualified(), Bonus: x.Bonus})
	}
	return out, nil
}

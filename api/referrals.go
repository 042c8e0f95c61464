package api

import (
	"context"

	"clearvest/api/apigen"
	"clearvest/domain/domainerr"
)

// errReferralsUnavailable answers the referrals page of a server wired without the referrals
// service (tests of other parts).
var errReferralsUnavailable = domainerr.New(domainerr.RuleBroken, "Referrals are not available yet.")

// msgNoReferrals is the original spec's answer for an empty list.
const msgNoReferrals = "No referrals"

func (s *server) GetReferrals(ctx context.Context, _ apigen.GetReferralsRequestObject) (apigen.GetReferralsResponseObject, error) {
	if s.referrals == nil {
		return nil, errReferralsUnavailable
	}
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	o, err := s.referrals.Overview(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	out := apigen.GetReferrals200JSONResponse{ReferralCode: o.Code, ReferralLink: o.Link, Bonus: o.Bonus.String(),
		TotalEarned: o.TotalEarned.String(), Referrals: make([]apigen.Referral, 0, len(o.Referred))}
	for _, r := range o.Referred {
		item := apigen.Referral{UnderscoreId: r.UserID, Name: r.Name, Photo: r.Photo, Closed: r.Closed, JoinedAt: r.JoinedAt, Qualified: r.Qualified}
		if r.Bonus != nil {
			b := r.Bonus.String()
			item.Bonus = &b
		}
		out.Referrals = append(out.Referrals, item)
	}
	if len(out.Referrals) == 0 {
		msg := msgNoReferrals
		out.Message = &msg
	}
	return out, nil
}

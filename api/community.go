package api

import (
	"context"
	"strconv"

	"clearvest/api/apigen"
	appcommunity "clearvest/app/community"
	"clearvest/domain/community"
	"clearvest/domain/domainerr"
)

// errCommunityUnavailable answers the social-proof operations of a server wired without the
// community service (tests of other parts).
var errCommunityUnavailable = domainerr.New(domainerr.RuleBroken, "This feature is not available yet.")

// Answers of the testimonial commands.
const (
	msgTestimonialSubmitted = "Thank you! Your testimonial will appear once our team has reviewed it."
	msgTestimonialApproved  = "Testimonial published"
	msgTestimonialRejected  = "Testimonial rejected"
)

func (s *server) communityCaller(ctx context.Context) (appcommunity.Actor, error) {
	if s.community == nil {
		return appcommunity.Actor{}, errCommunityUnavailable
	}
	a, err := s.caller(ctx)
	if err != nil {
		return appcommunity.Actor{}, err
	}
	return appcommunity.Actor{UserID: a.UserID, Role: a.Role, IP: a.Client.IP}, nil
}

func (s *server) ListTestimonials(ctx context.Context, _ apigen.ListTestimonialsRequestObject) (apigen.ListTestimonialsResponseObject, error) {
	if s.community == nil {
		return nil, errCommunityUnavailable
	}
	list, err := s.community.Public(ctx)
	if err != nil {
		return nil, err
	}
	out := apigen.ListTestimonials200JSONResponse{Testimonials: make([]apigen.Testimonial, 0, len(list))}
	for _, t := range list {
		out.Testimonials = append(out.Testimonials, apigen.Testimonial{UnderscoreId: t.ID, Name: t.Author.DisplayName,
			Country: t.Author.Country, Text: t.Text, Date: t.Published})
	}
	return out, nil
}

func (s *server) SubmitTestimonial(ctx context.Context, req apigen.SubmitTestimonialRequestObject) (apigen.SubmitTestimonialResponseObject, error) {
	a, err := s.communityCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	res, err := s.community.Submit(ctx, a, req.Body.Text)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, res.Position)
	return apigen.SubmitTestimonial201JSONResponse{UnderscoreId: res.ID, Status: apigen.TestimonialStatus("Pending"),
		Message: msgTestimonialSubmitted}, nil
}

func (s *server) GetMyTestimonial(ctx context.Context, _ apigen.GetMyTestimonialRequestObject) (apigen.GetMyTestimonialResponseObject, error) {
	a, err := s.communityCaller(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.community.Mine(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	out := apigen.GetMyTestimonial200JSONResponse{Eligible: m.Eligible}
	if t := m.Latest; t != nil {
		own := apigen.OwnTestimonial{UnderscoreId: t.ID, Text: t.Text, Status: apigen.TestimonialStatus(t.Status), SubmittedAt: t.SubmittedAt}
		if t.Reason != "" {
			own.Reason = &t.Reason
		}
		out.Testimonial = &own
	}
	return out, nil
}

func (s *server) GetPendingTestimonials(ctx context.Context, _ apigen.GetPendingTestimonialsRequestObject) (apigen.GetPendingTestimonialsResponseObject, error) {
	if _, err := s.communityCaller(ctx); err != nil {
		return nil, err
	}
	list, err := s.community.Pending(ctx)
	if err != nil {
		return nil, err
	}
	out := apigen.GetPendingTestimonials200JSONResponse{Testimonials: make([]apigen.TestimonialQueueItem, 0, len(list))}
	for _, r := range list {
		out.Testimonials = append(out.Testimonials, apigen.TestimonialQueueItem{UnderscoreId: r.ID, UserId: r.UserID, Name: r.Name,
			Email: r.Email, Country: r.Country, Text: r.Text, SubmittedAt: r.SubmittedAt})
	}
	return out, nil
}

func (s *server) ApproveTestimonial(ctx context.Context, req apigen.ApproveTestimonialRequestObject) (apigen.ApproveTestimonialResponseObject, error) {
	a, err := s.communityCaller(ctx)
	if err != nil {
		return nil, err
	}
	pos, err := s.community.Approve(ctx, a, req.TestimonialId)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.ApproveTestimonial200JSONResponse{Message: msgTestimonialApproved}, nil
}

func (s *server) RejectTestimonial(ctx context.Context, req apigen.RejectTestimonialRequestObject) (apigen.RejectTestimonialResponseObject, error) {
	a, err := s.communityCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.community.Reject(ctx, a, req.TestimonialId, req.Body.Reason)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.RejectTestimonial200JSONResponse{Message: msgTestimonialRejected}, nil
}

func (s *server) GetPublicActivity(ctx context.Context, _ apigen.GetPublicActivityRequestObject) (apigen.GetPublicActivityResponseObject, error) {
	if s.community == nil {
		return nil, errCommunityUnavailable
	}
	list, err := s.community.Activity(ctx)
	if err != nil {
		return nil, err
	}
	out := apigen.GetPublicActivity200JSONResponse{Activities: make([]apigen.ActivityItem, 0, len(list))}
	for _, it := range list {
		out.Activities = append(out.Activities, apigen.ActivityItem{Id: strconv.FormatInt(it.ID, 10), Kind: apigen.ActivityKind(it.Kind),
			Message: it.Message, At: it.At})
	}
	return out, nil
}

func (s *server) GetPublicStats(ctx context.Context, _ apigen.GetPublicStatsRequestObject) (apigen.GetPublicStatsResponseObject, error) {
	if s.community == nil {
		return nil, errCommunityUnavailable
	}
	st, err := s.community.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return apigen.GetPublicStats200JSONResponse{Investors: st.Investors, Countries: st.Countries}, nil
}

func badgeLevel(l community.Level) apigen.BadgeLevel {
	return apigen.BadgeLevel{Name: apigen.BadgeName(l.Name), MinInvested: l.MinInvested.String(), MinReferrals: l.MinReferrals}
}

func (s *server) ListBadges(context.Context, apigen.ListBadgesRequestObject) (apigen.ListBadgesResponseObject, error) {
	if s.community == nil {
		return nil, errCommunityUnavailable
	}
	levels := s.community.Levels()
	out := apigen.ListBadges200JSONResponse{Levels: make([]apigen.BadgeLevel, 0, len(levels))}
	for _, l := range levels {
		out.Levels = append(out.Levels, badgeLevel(l))
	}
	return out, nil
}

func (s *server) GetMyBadge(ctx context.Context, _ apigen.GetMyBadgeRequestObject) (apigen.GetMyBadgeResponseObject, error) {
	a, err := s.communityCaller(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.community.Badge(ctx, a.UserID)
	if err != nil {
		return nil, err
	}
	out := apigen.GetMyBadge200JSONResponse{Current: apigen.BadgeName(b.Current.Name), Invested: b.Invested.String(),
		Referrals: b.Referrals, Percent: b.Percent}
	if b.Next != nil {
		next := badgeLevel(*b.Next)
		out.Next = &next
	}
	return out, nil
}

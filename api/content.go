package api

import (
	"context"

	"clearvest/api/apigen"
	"clearvest/domain/domainerr"
)

// errContentUnavailable answers the content endpoints of a server wired without content
// (tests of other parts).
var errContentUnavailable = domainerr.New(domainerr.RuleBroken, "Site content is not available.")

// contentCacheControl lets browsers and proxies keep content a minute: an operator's edit is
// read at request time, so it shows within that minute without a restart.
const contentCacheControl = "public, max-age=60"

func (s *server) cacheContent(ctx context.Context) error {
	if s.content == nil {
		return errContentUnavailable
	}
	if w := exchangeFrom(ctx).w; w != nil {
		w.Header().Set("Cache-Control", contentCacheControl)
	}
	return nil
}

func (s *server) GetContentFaq(ctx context.Context, _ apigen.GetContentFaqRequestObject) (apigen.GetContentFaqResponseObject, error) {
	if err := s.cacheContent(ctx); err != nil {
		return nil, err
	}
	f, err := s.content.FAQ()
	if err != nil {
		return nil, err
	}
	out := apigen.GetContentFaq200JSONResponse{Sample: f.Sample, Items: make([]apigen.ContentFaqItem, 0, len(f.Items))}
	for _, it := range f.Items {
		out.Items = append(out.Items, apigen.ContentFaqItem{Id: it.ID, Question: it.Question, AnswerHtml: it.AnswerHTML})
	}
	return out, nil
}

func (s *server) GetContentTeam(ctx context.Context, _ apigen.GetContentTeamRequestObject) (apigen.GetContentTeamResponseObject, error) {
	if err := s.cacheContent(ctx); err != nil {
		return nil, err
	}
	t, err := s.content.Team()
	if err != nil {
		return nil, err
	}
	// Sample profiles are people who do not exist: development shows them, labelled, so the
	// section can be seen and styled; production publishes a team only once the operator has put
	// in the real one (sample: false in team.yaml, docs/content.md), and otherwise none at all.
	if t.Sample && s.production {
		return apigen.GetContentTeam200JSONResponse{Heading: t.Heading, Members: []apigen.ContentTeamMember{}}, nil
	}
	out := apigen.GetContentTeam200JSONResponse{Sample: t.Sample, Heading: t.Heading, Intro: t.Intro,
		Members: make([]apigen.ContentTeamMember, 0, len(t.Members))}
	for _, m := range t.Members {
		out.Members = append(out.Members, apigen.ContentTeamMember{Id: m.ID, Name: m.Name, Title: m.Title, Image: m.Image,
			Description: m.Description, Icon: m.Icon})
	}
	return out, nil
}

func (s *server) GetContentHowItWorks(ctx context.Context, _ apigen.GetContentHowItWorksRequestObject) (apigen.GetContentHowItWorksResponseObject, error) {
	if err := s.cacheContent(ctx); err != nil {
		return nil, err
	}
	h, err := s.content.HowItWorks()
	if err != nil {
		return nil, err
	}
	out := apigen.GetContentHowItWorks200JSONResponse{Intro: h.Intro, Steps: make([]apigen.ContentStep, 0, len(h.Steps))}
	for _, st := range h.Steps {
		step := apigen.ContentStep{Id: st.ID, Title: st.Title, Icon: st.Icon, DescriptionHtml: st.DescriptionHTML}
		if st.Link != "" {
			link := st.Link
			step.Link = &link
		}
		out.Steps = append(out.Steps, step)
	}
	return out, nil
}

func (s *server) GetContentSupport(ctx context.Context, _ apigen.GetContentSupportRequestObject) (apigen.GetContentSupportResponseObject, error) {
	if err := s.cacheContent(ctx); err != nil {
		return nil, err
	}
	sup, err := s.content.Support()
	if err != nil {
		return nil, err
	}
	out := apigen.GetContentSupport200JSONResponse{Email: sup.Email, ResponseTime: sup.ResponseTime}
	if s.settings != nil {
		// The contact an admin set in the console, once one has.
		if v, err := s.settings.Current(ctx); err == nil && v.Support.Email != "" {
			out.Email = v.Support.Email
		} else if err != nil {
			return nil, err
		}
	}
	if sup.Hours != "" {
		out.Hours = &sup.Hours
	}
	return out, nil
}

func (s *server) GetContentPage(ctx context.Context, req apigen.GetContentPageRequestObject) (apigen.GetContentPageResponseObject, error) {
	if err := s.cacheContent(ctx); err != nil {
		return nil, err
	}
	p, err := s.content.Page(req.Slug)
	if err != nil {
		return nil, err
	}
	out := apigen.GetContentPage200JSONResponse{Slug: p.Slug, Title: p.Title, Sample: p.Sample, Html: p.HTML}
	if p.Updated != "" {
		out.Updated = &p.Updated
	}
	return out, nil
}

package api

import (
	"context"

	"clearvest/api/apigen"
	appbroadcast "clearvest/app/broadcast"
	"clearvest/domain/broadcast"
	"clearvest/domain/domainerr"
)

// errEmailUnavailable answers the staff e-mail endpoints of a server wired without the service.
var errEmailUnavailable = domainerr.New(domainerr.RuleBroken, "Staff e-mail is not available.")

// The staff e-mail answers.
const (
	msgEmailPreview   = "Preview ready."
	msgEmailQueued    = "E-mail queued."
	msgEmailCancelled = "Sending cancelled."
)

func (s *server) emailActor(ctx context.Context) (appbroadcast.Actor, error) {
	if s.broadcast == nil {
		return appbroadcast.Actor{}, errEmailUnavailable
	}
	a, err := s.caller(ctx)
	if err != nil {
		return appbroadcast.Actor{}, err
	}
	return appbroadcast.Actor{UserID: a.UserID, Role: string(a.Role), IP: a.Client.IP}, nil
}

func (s *server) SendComposedEmail(ctx context.Context, req apigen.SendComposedEmailRequestObject) (apigen.SendComposedEmailResponseObject, error) {
	a, err := s.emailActor(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	b := req.Body
	c := appbroadcast.Compose{Audience: broadcast.Audience{Kind: string(b.Audience.Kind), Role: str(b.Audience.Role), UserID: str(b.Audience.UserId)},
		Subject: b.Subject, Body: b.Body}
	if b.Language != nil {
		c.Language = string(*b.Language)
	}
	if b.Preview != nil && *b.Preview {
		p, err := s.broadcast.Preview(ctx, c)
		if err != nil {
			return nil, err
		}
		return apigen.SendComposedEmail200JSONResponse{Message: msgEmailPreview, Recipients: p.Recipients,
			Preview: &apigen.EmailPreview{Subject: p.Subject, Html: p.HTML, Text: p.Text}}, nil
	}
	sent, err := s.broadcast.Send(ctx, a, c)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, sent.Position)
	out, err := s.emailAnswer(ctx, msgEmailQueued, sent.ID)
	return apigen.SendComposedEmail200JSONResponse(out), err
}

func (s *server) SendAutomatedEmail(ctx context.Context, req apigen.SendAutomatedEmailRequestObject) (apigen.SendAutomatedEmailResponseObject, error) {
	a, err := s.emailActor(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	sent, err := s.broadcast.SendAutomated(ctx, a, req.Body.UserId, req.Body.Template)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, sent.Position)
	out, err := s.emailAnswer(ctx, msgEmailQueued, sent.ID)
	return apigen.SendAutomatedEmail200JSONResponse(out), err
}

func (s *server) emailAnswer(ctx context.Context, message, id string) (apigen.ComposeEmailResponse, error) {
	sum, err := s.broadcast.Get(ctx, id)
	if err != nil {
		return apigen.ComposeEmailResponse{}, err
	}
	b := emailBroadcastJSON(sum)
	return apigen.ComposeEmailResponse{Message: message, Recipients: sum.Recipients, Broadcast: &b}, nil
}

func (s *server) ListEmailBroadcasts(ctx context.Context, _ apigen.ListEmailBroadcastsRequestObject) (apigen.ListEmailBroadcastsResponseObject, error) {
	if _, err := s.emailActor(ctx); err != nil {
		return nil, err
	}
	list, err := s.broadcast.List(ctx)
	if err != nil {
		return nil, err
	}
	out := apigen.ListEmailBroadcasts200JSONResponse{Broadcasts: make([]apigen.EmailBroadcast, 0, len(list)),
		LimitPerHour: s.broadcast.LimitPerHour()}
	for _, b := range list {
		out.Broadcasts = append(out.Broadcasts, emailBroadcastJSON(b))
	}
	return out, nil
}

func (s *server) GetEmailBroadcast(ctx context.Context, req apigen.GetEmailBroadcastRequestObject) (apigen.GetEmailBroadcastResponseObject, error) {
	if _, err := s.emailActor(ctx); err != nil {
		return nil, err
	}
	b, err := s.broadcast.Get(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return apigen.GetEmailBroadcast200JSONResponse(emailBroadcastJSON(b)), nil
}

func (s *server) CancelEmailBroadcast(ctx context.Context, req apigen.CancelEmailBroadcastRequestObject) (apigen.CancelEmailBroadcastResponseObject, error) {
	a, err := s.emailActor(ctx)
	if err != nil {
		return nil, err
	}
	sum, pos, err := s.broadcast.Cancel(ctx, a, req.Id)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	b := emailBroadcastJSON(sum)
	return apigen.CancelEmailBroadcast200JSONResponse{Message: msgEmailCancelled, Recipients: sum.Recipients, Broadcast: &b}, nil
}

func emailBroadcastJSON(b appbroadcast.Summary) apigen.EmailBroadcast {
	aud := apigen.EmailAudience{Kind: apigen.EmailAudienceKind(b.Audience.Kind)}
	if b.Audience.Role != "" {
		aud.Role = &b.Audience.Role
	}
	if b.Audience.UserID != "" {
		aud.UserId, aud.UserName = &b.Audience.UserID, &b.AudienceName
	}
	status := apigen.EmailBroadcastStatusSending
	switch {
	case b.CancelledAt != nil:
		status = apigen.EmailBroadcastStatusCancelled
	case b.Done():
		status = apigen.EmailBroadcastStatusDone
	}
	out := apigen.EmailBroadcast{Id: b.ID, AuthorId: b.AuthorID, AuthorName: b.AuthorName, Audience: aud, Subject: b.Subject,
		Template: b.Template, Recipients: b.Recipients, Sent: b.Sent, Failed: b.Failed, Pending: b.Pending,
		Cancelled: b.Cancelled, Status: status, CreatedAt: b.CreatedAt.UTC()}
	if b.CancelledAt != nil {
		t := b.CancelledAt.UTC()
		out.CancelledAt = &t
		if b.CancelledByName != "" {
			out.CancelledByName = &b.CancelledByName
		}
	}
	return out
}

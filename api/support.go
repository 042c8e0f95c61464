package api

import (
	"context"
	"time"

	"clearvest/api/apigen"
	appsupport "clearvest/app/support"
	"clearvest/domain/domainerr"
	"clearvest/domain/support"
)

// errSupportUnavailable answers the support endpoints of a server wired without the service
// (tests of other parts).
var errSupportUnavailable = domainerr.New(domainerr.RuleBroken, "Support messages are not available.")

// The contact form's and the staff page's success messages.
const (
	msgSupportSent    = "Message sent successfully!"
	msgSupportReplied = "Reply sent."
	msgSupportClosed  = "Ticket closed."
)

func (s *server) supportActor(ctx context.Context, signedIn bool) (appsupport.Actor, error) {
	if s.support == nil {
		return appsupport.Actor{}, errSupportUnavailable
	}
	if !signedIn {
		a := appsupport.Actor{IP: clientOf(ctx).IP}
		if p, ok := PrincipalFrom(ctx); ok {
			a.UserID, a.Role = p.UserID, string(p.Role)
		}
		return a, nil
	}
	a, err := s.caller(ctx)
	if err != nil {
		return appsupport.Actor{}, err
	}
	return appsupport.Actor{UserID: a.UserID, Role: string(a.Role), IP: a.Client.IP}, nil
}

func (s *server) CreateSupportTicket(ctx context.Context, req apigen.CreateSupportTicketRequestObject) (apigen.CreateSupportTicketResponseObject, error) {
	a, err := s.supportActor(ctx, false)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in := appsupport.Submission{Request: support.Request{Name: req.Body.UserName, Email: req.Body.UserEmail, Message: req.Body.Message},
		Website: str(req.Body.Website)}
	pos, err := s.support.Open(ctx, a, in)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.CreateSupportTicket200JSONResponse{Message: msgSupportSent}, nil
}

func (s *server) ListSupportTickets(ctx context.Context, _ apigen.ListSupportTicketsRequestObject) (apigen.ListSupportTicketsResponseObject, error) {
	if _, err := s.supportActor(ctx, true); err != nil {
		return nil, err
	}
	list, err := s.support.List(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	out := apigen.ListSupportTickets200JSONResponse{AsOf: now, Tickets: make([]apigen.SupportTicket, 0, len(list))}
	for _, t := range list {
		item := apigen.SupportTicket{UnderscoreId: t.ID, UserName: t.Name, UserEmail: t.Email, Message: t.Message,
			Status: apigen.SupportTicketStatus(t.Status), CreatedAt: t.OpenedAt, AgeSeconds: max(0, int64(now.Sub(t.OpenedAt)/time.Second)),
			Replies: t.Replies, LastReplyAt: t.LastReplyAt, ClosedAt: t.ClosedAt}
		if t.LastReply != "" {
			last := t.LastReply
			item.LastReply = &last
		}
		out.Tickets = append(out.Tickets, item)
	}
	return out, nil
}

func (s *server) ReplySupportTicket(ctx context.Context, req apigen.ReplySupportTicketRequestObject) (apigen.ReplySupportTicketResponseObject, error) {
	a, err := s.supportActor(ctx, true)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	pos, err := s.support.Reply(ctx, a, req.Id, req.Body.Message)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.ReplySupportTicket200JSONResponse{Message: msgSupportReplied}, nil
}

func (s *server) CloseSupportTicket(ctx context.Context, req apigen.CloseSupportTicketRequestObject) (apigen.CloseSupportTicketResponseObject, error) {
	a, err := s.supportActor(ctx, true)
	if err != nil {
		return nil, err
	}
	pos, err := s.support.Close(ctx, a, req.Id)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.CloseSupportTicket200JSONResponse{Message: msgSupportClosed}, nil
}

package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"time"

	"clearvest/api/apigen"
	appaudit "clearvest/app/audit"
	"clearvest/domain/domainerr"
	rmaudit "clearvest/projections/audit"
)

// The admins' audit screens (docs/auditing.md): the staff actions, the stored events and the
// books at a position.

var errAuditUnavailable = domainerr.New(domainerr.RuleBroken, "The audit screens are not available on this server.")

func (s *server) auditService(ctx context.Context) (*appaudit.Service, error) {
	if _, err := s.caller(ctx); err != nil {
		return nil, err
	}
	if s.audit == nil {
		return nil, errAuditUnavailable
	}
	return s.audit, nil
}

func auditFilter(actor, target, kind *string, from, to *time.Time) rmaudit.Filter {
	var f rmaudit.Filter
	if actor != nil {
		f.Actor = *actor
	}
	if target != nil {
		f.Target = *target
	}
	if kind != nil {
		f.Kind = *kind
	}
	if from != nil {
		f.From = *from
	}
	if to != nil {
		f.To = *to
	}
	return f
}

func (s *server) GetAuditLog(ctx context.Context, req apigen.GetAuditLogRequestObject) (apigen.GetAuditLogResponseObject, error) {
	svc, err := s.auditService(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	f := auditFilter(p.Actor, p.Target, p.Kind, p.From, p.To)
	if p.Limit != nil {
		if *p.Limit < 1 {
			return nil, appaudit.ErrBadLimit
		}
		f.Limit = *p.Limit
	}
	cursor := ""
	if p.Before != nil {
		cursor = *p.Before
	}
	page, err := svc.Log(ctx, f, cursor)
	if err != nil {
		return nil, err
	}
	kinds, err := svc.Kinds(ctx)
	if err != nil {
		return nil, err
	}
	out := apigen.GetAuditLog200JSONResponse{Entries: make([]apigen.AuditEntry, 0, len(page.Entries)), Kinds: kinds}
	for _, e := range page.Entries {
		out.Entries = append(out.Entries, auditEntryJSON(e))
	}
	if page.Next != "" {
		out.Next = &page.Next
	}
	return out, nil
}

func auditEntryJSON(e appaudit.LogEntry) apigen.AuditEntry {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return apigen.AuditEntry{
		Position: e.Position, At: e.At, Kind: e.Kind, Summary: e.Summary, StreamId: e.StreamID, EventId: e.EventID,
		ActorId: e.ActorID, ActorEmail: opt(e.ActorEmail), ActorRole: e.ActorRole, ImpersonatorId: opt(e.ImpersonatorID),
		TargetUser: e.TargetUser, TargetEmail: opt(e.TargetEmail), Reference: e.Reference, Amount: e.Amount,
		Reason: e.Reason, ClientIp: e.ClientIP, CorrelationId: opt(e.CorrelationID),
	}
}

// auditHeader names the CSV's columns.
var auditHeader = []string{"Time (UTC)", "Actor", "Actor e-mail", "Actor role", "Impersonating", "Target user", "Target e-mail",
	"Action", "Kind", "Reference", "Amount", "Reason", "Client address", "Position", "Stream", "Event", "Correlation"}

func (s *server) GetAuditLogCsv(ctx context.Context, req apigen.GetAuditLogCsvRequestObject) (apigen.GetAuditLogCsvResponseObject, error) {
	svc, err := s.auditService(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	f := auditFilter(p.Actor, p.Target, p.Kind, p.From, p.To)
	f.Limit = rmaudit.MaxLimit
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	write := func(row []string) error {
		for i := range row {
			row[i] = safeCell(row[i])
		}
		return w.Write(row)
	}
	if err := write(append([]string(nil), auditHeader...)); err != nil {
		return nil, err
	}
	cursor := ""
	for {
		page, err := svc.Log(ctx, f, cursor)
		if err != nil {
			return nil, err
		}
		for _, e := range page.Entries {
			if err := write([]string{e.At.Format(time.RFC3339), e.ActorID, e.ActorEmail, e.ActorRole, e.ImpersonatorID, e.TargetUser,
				e.TargetEmail, e.Summary, e.Kind, e.Reference, e.Amount, e.Reason, e.ClientIP, fmt.Sprint(e.Position), e.StreamID,
				e.EventID, e.CorrelationID}); err != nil {
				return nil, err
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("audit csv: %w", err)
	}
	disposition := `attachment; filename="clearvest-audit-log.csv"`
	return apigen.GetAuditLogCsv200TextcsvResponse{Body: bytes.NewReader(buf.Bytes()), ContentLength: int64(buf.Len()),
		Headers: apigen.GetAuditLogCsv200ResponseHeaders{ContentDisposition: &disposition}}, nil
}

func (s *server) GetAuditEvents(ctx context.Context, req apigen.GetAuditEventsRequestObject) (apigen.GetAuditEventsResponseObject, error) {
	svc, err := s.auditService(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	var stream, typ string
	var after int64
	limit := 0
	if p.Stream != nil {
		stream = *p.Stream
	}
	if p.Type != nil {
		typ = *p.Type
	}
	if p.After != nil {
		after = *p.After
	}
	if p.Limit != nil {
		limit = *p.Limit
		if limit < 1 {
			return nil, domainerr.Field("limit", "A page holds from 1 to 200 events.")
		}
	}
	page, err := svc.Events(ctx, stream, typ, after, limit)
	if err != nil {
		return nil, err
	}
	out := apigen.GetAuditEvents200JSONResponse{Events: make([]apigen.AuditEvent, 0, len(page.Events)), Next: page.Next}
	for _, e := range page.Events {
		data := map[string]any{}
		dec := json.NewDecoder(bytes.NewReader(e.Data))
		dec.UseNumber()
		if err := dec.Decode(&data); err != nil {
			// A payload that is not an object is shown under "value", as stored.
			data = map[string]any{"value": json.RawMessage(e.Data)}
		}
		m := e.Metadata
		opt := func(s string) *string {
			if s == "" {
				return nil
			}
			return &s
		}
		out.Events = append(out.Events, apigen.AuditEvent{
			Position: e.Position, EventId: e.ID, StreamId: e.StreamID, Version: e.Version, Type: e.Type,
			SchemaVersion: e.SchemaVersion, RecordedAt: e.RecordedAt, Data: data,
			Metadata: apigen.AuditMetadata{CorrelationId: opt(m.CorrelationID), CausationId: opt(m.CausationID), ActorId: opt(m.ActorID),
				ActorRole: opt(m.ActorRole), ImpersonatorId: opt(m.ImpersonatorID), IdempotencyKey: opt(m.IdempotencyKey),
				RequestHash: opt(m.RequestHash), ClientIp: opt(m.ClientIP)},
		})
	}
	return out, nil
}

func (s *server) GetAuditBooks(ctx context.Context, req apigen.GetAuditBooksRequestObject) (apigen.GetAuditBooksResponseObject, error) {
	svc, err := s.auditService(ctx)
	if err != nil {
		return nil, err
	}
	var position int64
	if req.Params.Position != nil {
		position = *req.Params.Position
	}
	b, err := svc.BooksAt(ctx, position)
	if err != nil {
		return nil, err
	}
	out := apigen.GetAuditBooks200JSONResponse{
		Position: b.Position, Head: b.Head, Events: b.Events, Balanced: b.Balanced, Unbalanced: b.Unbalanced,
		TotalDebit: b.TotalDebit.String(), TotalCredit: b.TotalCredit.String(),
		Accounts: make([]apigen.AuditAccount, 0, len(b.Accounts)), WentNegative: make([]string, 0, len(b.WentNegative)),
		Reconciliation: apigen.AuditReconciliation{
			DepositsReceived: b.Reconciliation.DepositsReceived.String(), PayoutsSent: b.Reconciliation.PayoutsSent.String(),
			InvestorLiabilities: b.Reconciliation.InvestorLiabilities.String(), PlatformEquity: b.Reconciliation.PlatformEquity.String(),
			Difference: b.Reconciliation.Difference.String(),
		},
	}
	out.Users.Available, out.Users.Held, out.Users.Invested = b.Users["available"].String(), b.Users["held"].String(), b.Users["invested"].String()
	for _, a := range b.Accounts {
		out.Accounts = append(out.Accounts, apigen.AuditAccount{Account: string(a.Account), User: a.User, Book: a.Book,
			Balance: a.Balance.String(), Debit: a.Debit().String(), Credit: a.Credit().String()})
	}
	for _, a := range b.WentNegative {
		out.WentNegative = append(out.WentNegative, string(a))
	}
	return out, nil
}

package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"clearvest/api/apigen"
	appmoney "clearvest/app/money"
	"clearvest/projections/history"
)

func (s *server) GetTransactionHistory(ctx context.Context, req apigen.GetTransactionHistoryRequestObject) (apigen.GetTransactionHistoryResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	q := appmoney.HistoryQuery{From: dayOf(req.Params.From), To: dayOf(req.Params.To), Limit: 20}
	if req.Params.Type != nil {
		q.Type = history.Type(*req.Params.Type)
	}
	if req.Params.Limit != nil {
		q.Limit = *req.Params.Limit
	}
	if req.Params.Cursor != nil {
		if q.Before, err = strconv.ParseInt(*req.Params.Cursor, 10, 64); err != nil || q.Before <= 0 {
			return nil, appmoney.ErrBadCursor
		}
	}
	items, next, err := s.money.History(ctx, a, q)
	if err != nil {
		return nil, err
	}
	out := apigen.GetTransactionHistory200JSONResponse{Items: make([]apigen.HistoryItem, 0, len(items))}
	for _, it := range items {
		out.Items = append(out.Items, historyItemJSON(it))
	}
	if next > 0 {
		c := strconv.FormatInt(next, 10)
		out.NextCursor = &c
	}
	return out, nil
}

func (s *server) GetDashboard(ctx context.Context, _ apigen.GetDashboardRequestObject) (apigen.GetDashboardResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.money.Dashboard(ctx, a)
	if err != nil {
		return nil, err
	}
	out := apigen.GetDashboard200JSONResponse{Balance: make([]apigen.BalancePoint, 0, len(d.Balance)),
		ReturnsByMonth: make([]apigen.MonthReturn, 0, len(d.Returns)), Pending: make([]apigen.HistoryItem, 0, len(d.Pending))}
	for _, p := range d.Balance {
		out.Balance = append(out.Balance, apigen.BalancePoint{Date: openapi_types.Date{Time: p.Day}, Balance: p.Balance.String()})
	}
	for _, r := range d.Returns {
		out.ReturnsByMonth = append(out.ReturnsByMonth, apigen.MonthReturn{Month: r.Month, Returns: r.Returns.String()})
	}
	for _, it := range d.Pending {
		out.Pending = append(out.Pending, historyItemJSON(it))
	}
	return out, nil
}

func historyItemJSON(it history.Item) apigen.HistoryItem {
	return apigen.HistoryItem{
		UnderscoreId: it.ID.String(), Type: apigen.HistoryType(it.Type), Status: string(it.Status), Title: it.Title,
		Effect: it.Effect.String(), Amount: it.Amount.String(), Fee: it.Fee.String(), BalanceAfter: it.Balance.String(),
		Date: it.At, Reference: it.Reference, Details: it.Details,
	}
}

func dayOf(d *openapi_types.Date) appmoney.Day {
	if d == nil {
		return nil
	}
	t := d.Time
	return &t
}

// ---- the CSV statement ----

func (s *server) GetStatement(ctx context.Context, req apigen.GetStatementRequestObject) (apigen.GetStatementResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	st, err := s.money.Statement(ctx, a, dayOf(req.Params.From), dayOf(req.Params.To))
	if err != nil {
		return nil, err
	}
	body, err := statementCSV(st)
	if err != nil {
		return nil, err
	}
	disposition := `attachment; filename="` + statementFilename(st) + `"`
	return apigen.GetStatement200TextcsvResponse{Body: bytes.NewReader(body), ContentLength: int64(len(body)),
		Headers: apigen.GetStatement200ResponseHeaders{ContentDisposition: &disposition}}, nil
}

const dayLayout = "2006-01-02"

func statementFilename(st appmoney.Statement) string {
	if st.From == nil {
		return "clearvest-statement-until-" + st.To.Format(dayLayout) + ".csv"
	}
	return "clearvest-statement-" + st.From.Format(dayLayout) + "-to-" + st.To.Format(dayLayout) + ".csv"
}

// statementHeader names the statement's columns; amounts are USD decimal strings.
// Notes holds the reason or notes given with the item, the rest of its details are in Details.
var statementHeader = []string{"Date (UTC)", "Type", "Status", "Title", "Reference", "Amount", "Fee", "Effect", "Balance after", "Notes", "Details"}

// statementCSV writes the statement as RFC 4180 CSV (CRLF line ends). Every cell, whatever its
// column, goes through safeCell as the rows are written, so no column can be forgotten.
func statementCSV(st appmoney.Statement) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	openDay := ""
	if st.From != nil {
		openDay = st.From.Format(dayLayout)
	}
	rows := [][]string{statementHeader, {openDay, "", "", "Opening balance", "", "", "", "", st.Opening.String(), "", ""}}
	for _, it := range st.Items {
		notes, rest := splitNotes(it.Details)
		rows = append(rows, []string{it.At.Format(time.RFC3339), string(it.Type), string(it.Status), it.Title,
			it.Reference, it.Amount.String(), it.Fee.String(), it.Effect.String(), it.Balance.String(), notes, detailsText(rest)})
	}
	rows = append(rows, []string{st.To.Format(dayLayout), "", "", "Closing balance", "", "", "", "", st.Closing.String(), "", ""})
	for _, row := range rows {
		for i := range row {
			row[i] = safeCell(row[i])
		}
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, fmt.Errorf("statement: %w", err)
	}
	return buf.Bytes(), nil
}

// splitNotes takes the words people wrote (a reason, staff notes) out of an item's details.
func splitNotes(d map[string]any) (string, map[string]any) {
	rest := maps.Clone(d)
	var notes []string
	for _, k := range []string{"reason", "notes"} {
		if v, ok := rest[k].(string); ok {
			notes = append(notes, v)
			delete(rest, k)
		}
	}
	return strings.Join(notes, " "), rest
}

// detailsText writes an item's details as "key: value" pairs in key order.
func detailsText(d map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(d)) {
		v := d[k]
		if f, ok := v.(float64); ok {
			v = strconv.FormatFloat(f, 'f', -1, 64)
		}
		parts = append(parts, fmt.Sprintf("%s: %v", k, v))
	}
	return strings.Join(parts, "; ")
}

// safeCell keeps a spreadsheet from running a cell as a formula (CSV injection): a cell that
// starts with =, +, -, @, a tab or a carriage return gets a leading apostrophe, which
// spreadsheets show as text and do not display.
//
// One kind of cell is left alone: a plain decimal number ("-0.50", "99.00"), which a spreadsheet
// reads as a number and never as a formula. That keeps the signed amounts (a negative effect
// starts with "-") numeric for sums. The test is on the cell's text, not its column, so text
// that happens to be a plain number is safe for the same reason, and "-1+1" or "-2-cmd" is not a
// plain number and is neutralised.
func safeCell(s string) string {
	if s == "" || plainDecimal(s) || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	return "'" + s
}

// plainDecimal reports whether s is an optional "-", digits, and optionally "." and digits.
func plainDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, dot := strings.Cut(s, ".")
	return allDigits(whole) && (!dot || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ---- live refresh ----

// sseKeepAlive is how often an idle stream sends a comment, well inside the idle timeouts of
// common proxies.
const sseKeepAlive = 25 * time.Second

// sseMaxLifetime ends a stream after a while; the browser reconnects on its own (after the
// retry the stream announced), so a shutting-down server never waits long for streams.
const sseMaxLifetime = 10 * time.Minute

func (s *server) StreamUserEvents(ctx context.Context, _ apigen.StreamUserEventsRequestObject) (apigen.StreamUserEventsResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	// Subscribed before the stream opens, so a change after the client saw "ready" is never
	// missed.
	changes, stop, err := s.money.Changes(ctx, a)
	if err != nil {
		return nil, err
	}
	return eventStream{ctx: ctx, changes: changes, stop: stop}, nil
}

// eventStream writes the stream itself instead of through a reader, to flush each event and to
// lift the server's write timeout for this response alone.
type eventStream struct {
	ctx     context.Context
	changes <-chan int64
	stop    func()
}

func (e eventStream) VisitStreamUserEventsResponse(w http.ResponseWriter) error {
	rc := http.NewResponseController(w)
	// The stream outlives the server's WriteTimeout; its own lifetime bounds it instead.
	_ = rc.SetWriteDeadline(time.Time{})
	defer e.stop()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise hold events back
	w.WriteHeader(http.StatusOK)
	send := func(s string) error {
		if _, err := w.Write([]byte(s)); err != nil {
			return err
		}
		return rc.Flush()
	}
	if err := send("retry: 3000\nevent: ready\ndata: {}\n\n"); err != nil {
		return nil
	}
	keepAlive := time.NewTicker(sseKeepAlive)
	defer keepAlive.Stop()
	lifetime := time.NewTimer(sseMaxLifetime)
	defer lifetime.Stop()
	for {
		var msg string
		select {
		case <-e.ctx.Done():
			return nil
		case <-lifetime.C:
			return nil
		case <-keepAlive.C:
			msg = ": keep-alive\n\n"
		case p, open := <-e.changes:
			if !open {
				return nil // the server is shutting down
			}
			msg = fmt.Sprintf("event: changed\ndata: {\"position\":\"%d\"}\n\n", p)
		}
		if err := send(msg); err != nil {
			return nil // the client went away
		}
	}
}

package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"clearvest/api/apigen"
	appmoney "clearvest/app/money"
	"clearvest/domain/account"
	"clearvest/domain/money"
	"clearvest/projections/history"
)

func (s *server) GetTransactionHistory(ctx context.Context, req apigen.GetTransactionHistoryRequestObject) (apigen.GetTransactionHistoryResponseObject, error) {
	a, err := s.moneyCaller(ctx)
	if err != nil {
		return nil, err
	}
	cursor := ""
	if req.Params.Cursor != nil {
		cursor = *req.Params.Cursor
	}
	h, err := s.money.History(ctx, a, cursor, req.Params.Limit)
	if err != nil {
		return nil, err
	}
	out := apigen.GetTransactionHistory200JSONResponse{Pending: make([]apigen.Movement, 0, len(h.Pending)),
		Items: make([]apigen.Movement, 0, len(h.Settled.Items))}
	for _, m := range h.Pending {
		j, err := movementJSON(m)
		if err != nil {
			return nil, err
		}
		out.Pending = append(out.Pending, j)
	}
	for _, m := range h.Settled.Items {
		j, err := movementJSON(m)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, j)
	}
	if h.Settled.NextCursor != "" {
		out.NextCursor = &h.Settled.NextCursor
	}
	return out, nil
}

func movementJSON(m history.Movement) (apigen.Movement, error) {
	out := apigen.Movement{Kind: apigen.MovementKind(m.Kind), Reference: m.Reference, Amount: m.Amount.String(),
		Status: apigen.MovementStatus(m.Status), CreatedAt: m.Created, UpdatedAt: m.Updated}
	if m.Subject != "" {
		out.SubjectId = &m.Subject
	}
	if !m.Settled.IsZero() {
		out.SettledAt = &m.Settled
	}
	// The details were written from the same names the schema gives them.
	js, err := json.Marshal(m.Details)
	if err != nil {
		return out, fmt.Errorf("movement %s: %w", m.Reference, err)
	}
	if err := json.Unmarshal(js, &out.Details); err != nil {
		return out, fmt.Errorf("movement %s: %w", m.Reference, err)
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
	// A deposit the chain watcher follows says how far it has come.
	chainDeps, err := s.money.PendingChainDeposits(ctx, a)
	if err != nil {
		return nil, err
	}
	progress, err := s.progressOf(ctx, chainDeps)
	if err != nil {
		return nil, err
	}
	byRef := map[string]appmoney.Deposit{}
	for _, cd := range chainDeps {
		byRef[cd.TransactionID] = cd
	}
	for _, it := range d.Pending {
		item := historyItemJSON(it)
		if cd, ok := byRef[it.Reference]; ok && it.Kind == account.TypeDepositRequested {
			if have, needed, ok := confirmationsOf(cd, progress); ok {
				item.Confirmations, item.ConfirmationsNeeded = &have, &needed
			}
		}
		out.Pending = append(out.Pending, item)
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

// statementHeader names the statement's columns; amounts are signed USD decimal strings.
var statementHeader = []string{"Date (UTC)", "Type", "Reference", "Details", "Amount", "Balance after"}

// statementCSV writes the statement as RFC 4180 CSV (CRLF line ends): one line per change of
// the available balance, with the balance after it. Every cell, whatever its column, goes
// through safeCell as the rows are written, so no column can be forgotten.
func statementCSV(st appmoney.Statement) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	openDay := ""
	if st.From != nil {
		openDay = st.From.Format(dayLayout)
	}
	rows := [][]string{statementHeader, {openDay, "Opening balance", "", "", "", st.Opening.String()}}
	for _, it := range st.Items {
		for _, l := range statementLines(it) {
			rows = append(rows, []string{it.At.Format(time.RFC3339), l.typ, it.Reference, l.details, l.amount.String(), l.balance.String()})
		}
	}
	rows = append(rows, []string{st.To.Format(dayLayout), "Closing balance", "", "", "", st.Closing.String()})
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

// statementLine is one change of the available balance.
type statementLine struct {
	typ, details    string
	amount, balance money.Money
}

// statementLines are the changes of the available balance an item made: none for a request or a
// decision that moved nothing into or out of it (a deposit announced, a withdrawal paid out
// from the held amount), two for a withdrawal request (what is sent, and its fee).
func statementLines(it history.Item) []statementLine {
	if it.Effect.IsZero() {
		return nil
	}
	d := func(k string) string { s, _ := it.Details[k].(string); return s }
	join := func(parts ...string) string {
		var out []string
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return strings.Join(out, "; ")
	}
	via := ""
	if d("asset") != "" {
		via = d("asset") + " (" + d("network") + ")"
	}
	plan := ""
	if d("plan") != "" {
		plan = d("plan") + " plan"
	}
	line := func(typ, details string) []statementLine {
		return []statementLine{{typ: typ, details: details, amount: it.Effect, balance: it.Balance}}
	}
	switch it.Kind {
	case account.TypeDepositConfirmed:
		return line("Deposit", join(d("notes"), via))
	case account.TypeInvestmentRequested:
		return line("Investment", plan)
	case account.TypeInvestmentRejected:
		return line("Investment returned", join(d("reason"), plan))
	case account.TypeInvestmentMatured:
		return line("Investment payout", join(plan, "principal "+d("principal")+" + return "+d("return")))
	case account.TypeInvestmentRedeemed:
		return line("Investment closed early", join(plan, "principal "+d("principal")+", return forfeited "+d("forfeited")))
	case account.TypeInvestmentReinvested:
		return line("Reinvestment", join(plan, "from "+d("reinvestedFrom")))
	case account.TypeWithdrawalRequested:
		if !it.Fee.IsPositive() {
			return line("Withdrawal", join(via, d("address")))
		}
		// The request takes what is sent and the fee together; the statement shows them apart.
		sent := it.Effect.Add(it.Fee)
		return []statementLine{
			{typ: "Withdrawal", details: join(via, d("address")), amount: sent, balance: it.Balance.Add(it.Fee)},
			{typ: "Withdrawal fee", amount: it.Fee.Neg(), balance: it.Balance},
		}
	case account.TypeWithdrawalRejected:
		return line("Withdrawal returned", d("reason"))
	case account.TypeFeeWaived:
		return line("Withdrawal fee refunded", d("reason"))
	case account.TypeReferralBonusCredited:
		return line("Referral bonus", "")
	case account.TypeAdjustmentPosted:
		return line("Adjustment", join(d("reason"), d("category")))
	}
	// A money event without a line of its own still shows its change, under its title.
	return line(it.Title, "")
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
	return eventStream[int64]{ctx: ctx, changes: changes, stop: stop, data: func(p int64) string {
		return fmt.Sprintf("{\"position\":\"%d\"}", p)
	}}, nil
}

// eventStream writes the stream itself instead of through a reader, to flush each event and to
// lift the server's write timeout for this response alone. Each value from changes is sent as
// an `event: changed` whose data is data(value).
type eventStream[T any] struct {
	ctx     context.Context
	changes <-chan T
	stop    func()
	data    func(T) string
}

func (e eventStream[T]) VisitStreamUserEventsResponse(w http.ResponseWriter) error { return e.serve(w) }

func (e eventStream[T]) VisitStreamStaffEventsResponse(w http.ResponseWriter) error {
	return e.serve(w)
}

func (e eventStream[T]) serve(w http.ResponseWriter) error {
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
			msg = "event: changed\ndata: " + e.data(p) + "\n\n"
		}
		if err := send(msg); err != nil {
			return nil // the client went away
		}
	}
}

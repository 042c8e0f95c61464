package api_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"clearvest/app/command"
	"clearvest/domain/account"
	"clearvest/domain/clock"
	"clearvest/domain/money"
	"clearvest/domain/reference"
	"clearvest/eventstore"
)

type historyItemJSON struct {
	ID           string         `json:"_id"`
	Type         string         `json:"type"`
	Status       string         `json:"status"`
	Title        string         `json:"title"`
	Effect       string         `json:"effect"`
	Amount       string         `json:"amount"`
	Fee          string         `json:"fee"`
	BalanceAfter string         `json:"balanceAfter"`
	Date         time.Time      `json:"date"`
	Reference    string         `json:"reference"`
	Details      map[string]any `json:"details"`
}

type movementJSON struct {
	Kind      string         `json:"kind"`
	Reference string         `json:"reference"`
	SubjectID string         `json:"subjectId"`
	Amount    string         `json:"amount"`
	Status    string         `json:"status"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
	SettledAt *time.Time     `json:"settledAt"`
	Details   map[string]any `json:"details"`
}

func (m movementJSON) String() string {
	return m.Kind + " " + m.Status + " " + m.Amount + " " + m.Reference
}

type historyPageJSON struct {
	Pending    []movementJSON `json:"pending"`
	Items      []movementJSON `json:"items"`
	NextCursor *string        `json:"nextCursor"`
}

type dashboardJSON struct {
	Balance []struct {
		Date    string `json:"date"`
		Balance string `json:"balance"`
	} `json:"balance"`
	ReturnsByMonth []struct {
		Month   string `json:"month"`
		Returns string `json:"returns"`
	} `json:"returnsByMonth"`
	Pending []historyItemJSON `json:"pending"`
}

// adjust posts a staff correction on a user's account straight through the command runner (the
// staff screen for it is not built yet) and makes c wait for it.
func adjust(t *testing.T, a *app, c *client, userID, amount, reason string, at time.Time) {
	t.Helper()
	res, err := command.Execute(context.Background(), a.Commands, eventstore.NewStreamID(account.StreamCategory, userID),
		account.NewFor(userID), eventstore.Metadata{}, func(acc *account.Account) error {
			return acc.PostAdjustment(account.Adjustment{AdjustmentID: "adj-1", Amount: money.MustParse(amount),
				Category: account.CategoryCorrection, Reason: reason}, "staff-1", at)
		})
	if err != nil {
		t.Fatal(err)
	}
	c.position = max(c.position, res.Position)
}

func readHistory(t *testing.T, c *client, query string) historyPageJSON {
	t.Helper()
	res := c.do(http.MethodGet, "/api/invest/getTransactionHistory"+query, nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[historyPageJSON](t, res)
}

// TestHistoryStatementAndDashboard runs a known sequence of deposits, decisions and a correction
// and reads it back as the history (filters, pages), the CSV statement (exact content, formula
// cells escaped) and the dashboard; another investor sees none of it.
func TestHistoryStatementAndDashboard(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now().UTC().Truncate(time.Second))
	a := newMoneyAppAt(t, clk)
	investor, ivy := a.member(t, "ivy@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	other, _ := a.member(t, "oscar@example.com", "subscriber")

	var times []time.Time
	step := func() { times = append(times, clk.Now()); clk.Advance(time.Minute) }
	d1 := createUSDT(t, investor, "100", testHash("aaa1"))
	step()
	expect(t, staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d1.TransactionID,
		"amount": "99.50", "notes": `=HYPERLINK("http://evil.example")`}), http.StatusOK)
	step()
	d2 := createUSDT(t, investor, "50", testHash("aaa2"))
	step()
	expect(t, staff.do(http.MethodPatch, "/api/payments/rejectPayment", map[string]string{"transactionId": d2.TransactionID,
		"notes": "+1 nothing arrived"}), http.StatusOK)
	step()
	adjust(t, a, investor, ivy.ID, "-0.50", "@SUM(1) double credit", clk.Now())
	step()
	d3 := createUSDT(t, investor, "20", testHash("aaa3"))
	step()
	createUSDT(t, other, "10", testHash("bbb1"))
	investor.position = max(investor.position, staff.position)

	// The pending deposit apart, at its real amount; each settled one a single row, changed in
	// place by staff's decision.
	page := readHistory(t, investor, "")
	list := func(ms []movementJSON) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.String())
		}
		return strings.Join(out, "\n")
	}
	adjRef := reference.For(reference.Adjustment, "adj-1")
	if got, want := list(page.Pending), "deposit pending 20.00 "+d3.TransactionID; got != want {
		t.Errorf("pending:\n%s\nwant\n%s", got, want)
	}
	want := strings.Join([]string{
		"adjustment completed -0.50 " + adjRef,
		"deposit rejected 50.00 " + d2.TransactionID,
		"deposit confirmed 99.50 " + d1.TransactionID,
	}, "\n")
	if got := list(page.Items); got != want || page.NextCursor != nil {
		t.Fatalf("history:\n%s\nwant\n%s\n(next %v)", got, want, page.NextCursor)
	}
	if it := page.Items[0]; it.Details["reason"] != "@SUM(1) double credit" || it.Details["category"] != "correction" {
		t.Errorf("adjustment details: %+v", it.Details)
	}
	if it := page.Items[1]; it.Details["reason"] != "+1 nothing arrived" || it.Details["network"] != "TRC20" ||
		it.SettledAt == nil || !it.SettledAt.Equal(times[3]) || !it.CreatedAt.Equal(times[2]) || !it.UpdatedAt.Equal(times[3]) {
		t.Errorf("rejected deposit: %+v", it)
	}
	if it := page.Pending[0]; it.SettledAt != nil || !it.CreatedAt.Equal(times[5]) {
		t.Errorf("pending deposit: %+v", it)
	}

	// Pages: the pending movements come with every page, the settled ones page by keyset.
	p1 := readHistory(t, investor, "?limit=2")
	if list(p1.Items) != strings.Join(strings.Split(want, "\n")[:2], "\n") || p1.NextCursor == nil || len(p1.Pending) != 1 {
		t.Fatalf("first page: %+v", p1)
	}
	p2 := readHistory(t, investor, "?limit=2&cursor="+*p1.NextCursor)
	if list(p2.Items) != "deposit confirmed 99.50 "+d1.TransactionID || p2.NextCursor != nil || len(p2.Pending) != 1 {
		t.Fatalf("second page: %+v", p2)
	}
	first, last := times[0].Format("2006-01-02"), times[len(times)-1].Format("2006-01-02")
	after := times[len(times)-1].AddDate(0, 0, 1).Format("2006-01-02")
	expect(t, investor.do(http.MethodGet, "/api/invest/getTransactionHistory?cursor=abc", nil), http.StatusBadRequest)
	expect(t, investor.do(http.MethodGet, "/api/invest/getTransactionHistory?limit=0", nil), http.StatusBadRequest)
	expect(t, investor.do(http.MethodGet, "/api/invest/getTransactionHistory?limit=101", nil), http.StatusBadRequest)
	expect(t, a.browser(t).do(http.MethodGet, "/api/invest/getTransactionHistory", nil), http.StatusUnauthorized)

	// Nobody sees anyone else's movements.
	if p := readHistory(t, other, ""); len(p.Items) != 0 || len(p.Pending) != 1 || p.Pending[0].Amount != "10.00" {
		t.Fatalf("the other investor's history: %+v", p)
	}

	// The statement, exactly.
	res := investor.do(http.MethodGet, "/api/invest/statement.csv?from="+first+"&to="+last, nil)
	expect(t, res, http.StatusOK)
	if ct := res.header.Get("Content-Type"); ct != "text/csv" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := res.header.Get("Content-Disposition"); cd != `attachment; filename="clearvest-statement-`+first+`-to-`+last+`.csv"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	ts := func(i int) string { return times[i].Format(time.RFC3339) }
	// One line per change of the available balance: the announced and the rejected deposits
	// changed nothing, so they are not lines; the cells a spreadsheet would run are neutralised.
	wantCSV := strings.Join([]string{
		"Date (UTC),Type,Reference,Details,Amount,Balance after",
		first + ",Opening balance,,,,0.00",
		ts(1) + ",Deposit," + d1.TransactionID + `,"'=HYPERLINK(""http://evil.example""); USDT (TRC20)",99.50,99.50`,
		ts(4) + ",Adjustment," + adjRef + ",'@SUM(1) double credit; correction,-0.50,99.00",
		last + ",Closing balance,,,,99.00",
	}, "\r\n") + "\r\n"
	if string(res.body) != wantCSV {
		t.Errorf("statement:\n%s\nwant\n%s", res.body, wantCSV)
	}
	// A later period opens with the balance the earlier one closed with.
	res = investor.do(http.MethodGet, "/api/invest/statement.csv?from="+after+"&to="+after, nil)
	expect(t, res, http.StatusOK)
	if want := "Date (UTC),Type,Reference,Details,Amount,Balance after\r\n" +
		after + ",Opening balance,,,,99.00\r\n" + after + ",Closing balance,,,,99.00\r\n"; string(res.body) != want {
		t.Errorf("an empty later period:\n%s\nwant\n%s", res.body, want)
	}
	res = other.do(http.MethodGet, "/api/invest/statement.csv", nil)
	expect(t, res, http.StatusOK)
	if strings.Contains(string(res.body), d1.TransactionID) || strings.Count(string(res.body), "\r\n") != 3 ||
		!strings.Contains(res.header.Get("Content-Disposition"), `filename="clearvest-statement-until-`) {
		t.Errorf("the other investor's statement:\n%s", res.body)
	}

	// The dashboard: one point a day, no returns yet, the deposit still waiting.
	res = investor.do(http.MethodGet, "/api/invest/dashboard", nil)
	expect(t, res, http.StatusOK)
	d := decodeJSON[dashboardJSON](t, res)
	if len(d.Balance) == 0 || d.Balance[len(d.Balance)-1].Balance != "99.00" || d.Balance[len(d.Balance)-1].Date != last ||
		len(d.ReturnsByMonth) != 0 || len(d.Pending) != 1 || d.Pending[0].Reference != d3.TransactionID || d.Pending[0].Status != "Pending" {
		t.Errorf("dashboard: %s", res.body)
	}
}

// sseStream is an open /api/users/events stream; events carries each event's name and data.
type sseStream struct {
	events chan [2]string
}

func openEvents(t *testing.T, c *client) *sseStream {
	t.Helper()
	return openEventsAt(t, c, "/api/users/events")
}

// openEventsAt opens the event stream at path (the staff stream, say) as openEvents does.
func openEventsAt(t *testing.T, c *client, path string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.app.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	s := &sseStream{events: make(chan [2]string, 16)}
	go func() {
		defer res.Body.Close()
		defer close(s.events)
		r := bufio.NewReader(res.Body)
		var name, data string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "":
				if name != "" {
					s.events <- [2]string{name, data}
				}
				name, data = "", ""
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	if ev := s.next(t); ev[0] != "ready" {
		t.Fatalf("first event %v, want ready", ev)
	}
	return s
}

// next returns the next event; the time limit only bounds a failing test.
func (s *sseStream) next(t *testing.T) [2]string {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return ev
	case <-time.After(15 * time.Second):
		t.Fatal("no event within 15 s")
	}
	return [2]string{}
}

func changedAt(t *testing.T, ev [2]string) int64 {
	t.Helper()
	var p int64
	if ev[0] != "changed" {
		t.Fatalf("event %v, want changed", ev)
	}
	if _, err := fmt.Sscanf(ev[1], `{"position":"%d"}`, &p); err != nil {
		t.Fatalf("changed data %q: %v", ev[1], err)
	}
	return p
}

// TestEventsStreamNotifiesOnlyTheOwner opens two investors' event streams over real HTTP: staff
// confirming one investor's deposit notifies that investor, and the other investor's first
// notification is for their own deposit, made after it.
func TestEventsStreamNotifiesOnlyTheOwner(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	investor, _ := a.member(t, "ivy@example.com", "subscriber")
	other, _ := a.member(t, "oscar@example.com", "subscriber")
	staff, _ := a.member(t, "sam@example.com", "author")
	d := createUSDT(t, investor, "100", testHash("ccc1"))

	expect(t, a.browser(t).do(http.MethodGet, "/api/users/events", nil), http.StatusUnauthorized)
	mine := openEvents(t, investor)
	theirs := openEvents(t, other)

	res := staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "100"})
	expect(t, res, http.StatusOK)
	confirmed, _ := strconv.ParseInt(res.header.Get("X-Clearvest-Position"), 10, 64)
	p := changedAt(t, mine.next(t))
	if p < confirmed {
		t.Fatalf("notified at position %d, the confirmation is at %d", p, confirmed)
	}
	// The client sends the notified position back, as after its own writes, so its refetch
	// waits for every read model to have the change.
	investor.position = max(investor.position, p)
	res = investor.do(http.MethodGet, "/api/users/getUser", nil)
	if b := decodeJSON[balancesJSON](t, res); b.Balance != "100.00" {
		t.Fatalf("balance after the notification: %+v", b)
	}

	createUSDT(t, other, "15", testHash("ccc2"))
	if p := changedAt(t, theirs.next(t)); p < other.position {
		t.Fatalf("the other investor was notified at position %d, before their own deposit at %d: another user's change leaked",
			p, other.position)
	}

	// How late a notification is after staff's answer (docs/history.md quotes this): the
	// projection's lag plus at most one feed interval.
	var delays []time.Duration
	for i := range 8 {
		d := createUSDT(t, investor, "10", testHash(fmt.Sprintf("ddd%d", i)))
		changedAt(t, mine.next(t)) // the request itself
		res := staff.do(http.MethodPatch, "/api/payments/confirmPayment", map[string]string{"transactionId": d.TransactionID, "amount": "10"})
		expect(t, res, http.StatusOK)
		answered := time.Now()
		confirmed, _ := strconv.ParseInt(res.header.Get("X-Clearvest-Position"), 10, 64)
		for changedAt(t, mine.next(t)) < confirmed {
		}
		delays = append(delays, time.Since(answered))
	}
	slices.Sort(delays)
	t.Logf("notification after staff's answer: median %v, max %v over %d confirmations", delays[len(delays)/2], delays[len(delays)-1], len(delays))
	if delays[len(delays)-1] > 3*time.Second {
		t.Errorf("a notification took %v; the feed polls every 500 ms", delays[len(delays)-1])
	}
}

package api_test

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// queuePage is what every staff queue's page says besides its items.
type queuePage struct {
	Total      int     `json:"total"`
	NextCursor *string `json:"nextCursor"`
}

// walkQueue pages through a staff queue from the start, limit items a page, as the UI does: each
// page's cursor is the nextCursor of the page before. ids reads a page's item ids; between runs
// after every page but the last (staff at work while others page). It returns the ids in the
// order shown, the last page and how many pages were read; an item shown twice fails the test.
func walkQueue(t *testing.T, c *client, path string, limit int, ids func(response) []string, between func(seen []string)) ([]string, queuePage, int) {
	t.Helper()
	var order []string
	seen := map[string]bool{}
	cursor := ""
	for pages := 1; ; pages++ {
		url := path + "?limit=" + strconv.Itoa(limit)
		if cursor != "" {
			url += "&cursor=" + cursor
		}
		res := c.do(http.MethodGet, url, nil)
		expect(t, res, http.StatusOK)
		p := decodeJSON[queuePage](t, res)
		got := ids(res)
		if len(got) > limit {
			t.Fatalf("page %d of %s holds %d items, more than %d", pages, path, len(got), limit)
		}
		for _, id := range got {
			if seen[id] {
				t.Fatalf("%s shown twice", id)
			}
			seen[id] = true
			order = append(order, id)
		}
		if p.NextCursor == nil {
			return order, p, pages
		}
		if pages > 50 {
			t.Fatalf("the pages of %s do not end", path)
		}
		cursor = *p.NextCursor
		if between != nil {
			between(order)
		}
	}
}

// expectQueueRefusals checks a queue refuses a page size outside 1..100 and a cursor the server
// did not make.
func expectQueueRefusals(t *testing.T, c *client, path string) {
	t.Helper()
	for _, q := range []string{"limit=0", "limit=101"} {
		expectMessage(t, c.do(http.MethodGet, path+"?"+q, nil), http.StatusBadRequest, "A page holds from 1 to 100 items.")
	}
	expectMessage(t, c.do(http.MethodGet, path+"?cursor=not-a-cursor", nil), http.StatusBadRequest,
		"This page of the queue cannot be found. Please reload the queue from the start.")
}

func TestTheInvestmentQueuePagesByKey(t *testing.T) {
	t.Parallel()
	a := newInvestApp(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "1000")
	// Investments requested in pairs at the same instant: the id orders a pair, and a page of one
	// ends between the two.
	type made struct {
		id string
		at time.Time
	}
	var want []made
	for i := range 5 {
		if i%2 == 0 {
			a.clock.Advance(time.Second)
		}
		want = append(want, made{a.start(t, ivy, "Basic", "100").ID, a.clock.Now()})
	}
	slices.SortFunc(want, func(x, y made) int { return cmp.Or(x.at.Compare(y.at), strings.Compare(x.id, y.id)) })
	a.staff.position = max(a.staff.position, ivy.position)

	order, last, pages := walkQueue(t, a.staff, "/api/invest/adminPendingInvestment", 1, func(r response) []string {
		var ids []string
		for _, item := range decodeJSON[struct {
			PendingInvestments []struct{ Investment investmentJSON }
		}](t, r).PendingInvestments {
			ids = append(ids, item.Investment.ID)
		}
		return ids
	}, nil)
	if pages != 5 || last.Total != 5 || len(order) != 5 {
		t.Fatalf("%d investments over %d pages, %d waiting; want 5 over 5", len(order), pages, last.Total)
	}
	for i := range want {
		if order[i] != want[i].id {
			t.Fatalf("item %d is %s, want %s (oldest first, then by id)", i, order[i], want[i].id)
		}
	}
	expectQueueRefusals(t, a.staff, "/api/invest/adminPendingInvestment")
}

// TestEachStaffQueueItemCarriesTheReferenceTheInvestorSees: staff and the investor name a waiting
// deposit, investment and withdrawal the same way, so they can talk about it without ids.
func TestEachStaffQueueItemCarriesTheReferenceTheInvestorSees(t *testing.T) {
	t.Parallel()
	a := newInvestAppWithHistory(t)
	a.plan(t, "Basic", "100", "1000", 30, "0.015")
	ivy, _ := a.investor(t, "ivy@example.com", "1000")
	inv := a.start(t, ivy, "Basic", "100")
	dep := createUSDT(t, ivy, "50", "")
	stepUp(t, ivy)
	wdr := withdraw(t, ivy, "100", "TRC20", testTRONAddress)
	a.staff.position = max(a.staff.position, ivy.position)

	// What the investor sees: each waiting movement's reference, by what it is about.
	seen := map[string]string{}
	for _, m := range readHistory(t, ivy, "").Pending {
		seen[m.Kind+" "+m.SubjectID] = m.Reference
	}

	type item struct{ subject, reference string }
	read := func(path string, items func(response) []item) []item {
		res := a.staff.do(http.MethodGet, path, nil)
		expect(t, res, http.StatusOK)
		return items(res)
	}
	queues := map[string][]item{
		"investment " + inv.ID: read("/api/invest/adminPendingInvestment", func(r response) (out []item) {
			for _, it := range decodeJSON[struct {
				PendingInvestments []struct{ Investment investmentJSON }
			}](t, r).PendingInvestments {
				out = append(out, item{it.Investment.ID, it.Investment.Reference})
			}
			return out
		}),
		"deposit " + dep.TransactionID: read("/api/payments/pending-deposit", func(r response) (out []item) {
			for _, it := range decodeJSON[struct {
				Deposits []struct {
					Deposit struct{ TransactionID, Reference string }
				}
			}](t, r).Deposits {
				out = append(out, item{it.Deposit.TransactionID, it.Deposit.Reference})
			}
			return out
		}),
		"withdrawal " + wdr.ID: read("/api/withDraw/pending", func(r response) (out []item) {
			for _, it := range decodeJSON[struct {
				Withdrawals []struct {
					Withdrawal struct {
						ID        string `json:"_id"`
						Reference string
					}
				}
			}](t, r).Withdrawals {
				out = append(out, item{it.Withdrawal.ID, it.Withdrawal.Reference})
			}
			return out
		}),
	}
	for want, items := range queues {
		kind, subject, _ := strings.Cut(want, " ")
		if len(items) != 1 || items[0].subject != subject {
			t.Fatalf("%s queue: %+v, want the one %s", kind, items, subject)
		}
		if got := items[0].reference; got == "" || got != seen[want] {
			t.Errorf("%s %s: staff see reference %q, the investor %q", kind, subject, got, seen[want])
		}
	}
}

func TestTheKYCQueuePagesByKeyWhileMoreArrive(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	author, _ := k.member(t, "kyc-author@example.com", "author")
	jpg := jpegFile(t)
	n := 0
	submit := func() string {
		n++
		c, u := k.member(t, fmt.Sprintf("kyc-%d@example.com", n), "subscriber")
		expect(t, uploadKYC(t, c, nil, front(jpg), back(jpg)), http.StatusOK)
		k.CatchUp(t)
		return u.ID
	}
	want := []string{submit(), submit(), submit()}

	// While the reviewer pages, one more user submits and the last case seen is approved: the
	// next page is shifted by neither, and the newcomer comes last.
	order, last, pages := walkQueue(t, author, "/api/users/kyc/pending", 2, func(r response) []string {
		var ids []string
		for _, p := range decodeJSON[kycQueueJSON](t, r).PendingUsers {
			ids = append(ids, p.ID)
		}
		return ids
	}, func(seen []string) {
		want = append(want, submit())
		expect(t, author.do(http.MethodPatch, "/api/users/kyc/"+seen[len(seen)-1]+"/approve", map[string]int{"submission": 1}), http.StatusOK)
		k.CatchUp(t)
	})
	if !slices.Equal(order, want) || pages != 2 {
		t.Fatalf("shown %v over %d pages, want %v over 2", order, pages, want)
	}
	if last.Total != 3 {
		t.Fatalf("last page: %d waiting, want 3 (four submitted, one approved)", last.Total)
	}
	expectQueueRefusals(t, author, "/api/users/kyc/pending")
}

package api_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"clearvest/app/accounts"
)

type userPageJSON struct {
	Users []struct {
		ID        string `json:"_id"`
		Name      string `json:"name"`
		Email     string `json:"email"`
		Role      string `json:"role"`
		Status    string `json:"status"`
		KycStatus string `json:"kycStatus"`
		Figures   *struct {
			Balance           string `json:"balance"`
			InvestmentBalance string `json:"investmentBalance"`
			Deposited         string `json:"deposited"`
		} `json:"figures"`
	} `json:"users"`
	Total      int     `json:"total"`
	NextCursor *string `json:"nextCursor"`
	Counts     struct {
		Users, Verified, Suspended int
	} `json:"counts"`
}

// TestStaffUserListSearchesFiltersAndPages: the staff user list finds users by part of their
// name or e-mail, narrows by role, status and identity-check status, and walks every match a
// page at a time, newest first, each once; each user carries what they deposited and hold.
func TestStaffUserListSearchesFiltersAndPages(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	ctx := context.Background()
	staff, admin := a.member(t, "staffer@example.com", "admin")
	investor, inv := a.member(t, "ivy.investor@example.com", "subscriber")
	fund(t, investor, staff, "200")

	made := map[string]string{}
	for i, p := range []struct{ name, email, role string }{
		{"Cleo Marsh", "cleo@example.com", "subscriber"},
		{"Dan Author", "dan@writers.example", "author"},
		{"Erin Marsh", "erin@example.com", "subscriber"},
		{"Finn Quist", "finn.marsh@example.com", "subscriber"},
		{"Gil Stone", "gil@example.com", "subscriber"},
	} {
		u, err := a.Accounts.CreateUser(ctx, accounts.CreateUserInput{Name: p.name, Email: p.email, Password: testPassword, Role: p.role})
		if err != nil {
			t.Fatalf("user %d: %v", i, err)
		}
		made[p.name] = u.ID
	}
	pos, err := a.Accounts.Suspend(ctx, accounts.Actor{UserID: admin.ID, Role: "admin"}, made["Gil Stone"], "checks")
	if err != nil {
		t.Fatal(err)
	}
	staff.position = max(staff.position, investor.position, pos)

	list := func(q url.Values) userPageJSON {
		t.Helper()
		res := staff.do(http.MethodGet, "/api/users/listUsers?"+q.Encode(), nil)
		expect(t, res, http.StatusOK)
		return decodeJSON[userPageJSON](t, res)
	}
	names := func(p userPageJSON) []string {
		out := []string{}
		for _, u := range p.Users {
			out = append(out, u.Name)
		}
		return out
	}

	// Search: part of a name or of an e-mail, any case; newest first.
	if got := names(list(url.Values{"search": {"MARSH"}})); !slices.Equal(got, []string{"Finn Quist", "Erin Marsh", "Cleo Marsh"}) {
		t.Fatalf("search marsh: %v", got)
	}
	if got := names(list(url.Values{"search": {"writers"}})); !slices.Equal(got, []string{"Dan Author"}) {
		t.Fatalf("search by e-mail: %v", got)
	}
	if p := list(url.Values{"search": {"nobody-like-this"}}); len(p.Users) != 0 || p.Total != 0 || p.NextCursor != nil {
		t.Fatalf("search with no match: %+v", p)
	}
	// A LIKE wildcard in the search matches only itself.
	if p := list(url.Values{"search": {"%"}}); len(p.Users) != 0 {
		t.Fatalf("search %%: %v", names(p))
	}

	// Filters, alone and together.
	if got := names(list(url.Values{"role": {"author"}})); !slices.Equal(got, []string{"Dan Author"}) {
		t.Fatalf("authors: %v", got)
	}
	p := list(url.Values{"status": {"suspended"}})
	if got := names(p); !slices.Equal(got, []string{"Gil Stone"}) || p.Users[0].Role != "suspended" {
		t.Fatalf("suspended: %+v", p.Users)
	}
	if got := names(list(url.Values{"status": {"suspended"}, "search": {"marsh"}})); len(got) != 0 {
		t.Fatalf("suspended and marsh: %v", got)
	}
	if got := names(list(url.Values{"kycStatus": {"Pending"}})); len(got) != 0 {
		t.Fatalf("pending identity checks: %v", got)
	}
	if p := list(url.Values{"kycStatus": {"Not Submitted"}, "role": {"subscriber"}, "status": {"active"}}); p.Total != 4 {
		t.Fatalf("active subscribers without an identity check: %d %v", p.Total, names(p))
	}

	// Counts are of everyone, whatever the filter.
	if c := list(url.Values{"role": {"author"}}).Counts; c.Users != 7 || c.Suspended != 1 || c.Verified != 2 {
		t.Fatalf("counts: %+v", c)
	}

	// The investor's real figures.
	for _, u := range list(url.Values{"search": {"ivy.investor"}}).Users {
		if u.ID != inv.ID || u.Figures == nil || u.Figures.Balance != "200.00" || u.Figures.Deposited != "200.00" || u.Figures.InvestmentBalance != "0.00" {
			t.Fatalf("the investor: %+v", u)
		}
	}
	if u := list(url.Values{"search": {"cleo"}}).Users[0]; u.Figures == nil || u.Figures.Deposited != "0.00" {
		t.Fatalf("a user with no deposit: %+v", u)
	}

	// Paging: two at a time, every user once, newest first, and the total on every page.
	var seen []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("the pages do not end")
		}
		q := url.Values{"limit": {"2"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		p := list(q)
		if p.Total != 7 {
			t.Fatalf("page %d total %d", pages, p.Total)
		}
		for _, u := range p.Users {
			seen = append(seen, u.Name)
		}
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	want := []string{"Gil Stone", "Finn Quist", "Erin Marsh", "Dan Author", "Cleo Marsh", "Test subscriber", "Test admin"}
	if !slices.Equal(seen, want) {
		t.Fatalf("paged through %v, want %v", seen, want)
	}

	// Bad input: a clear 400.
	for _, q := range []string{"role=king", "status=closed", "kycStatus=Maybe", "limit=0", "limit=101", "cursor=nope"} {
		res := staff.do(http.MethodGet, "/api/users/listUsers?"+q, nil)
		if res.status != http.StatusBadRequest || errorMessage(t, res) == "" {
			t.Fatalf("%s: %d %s", q, res.status, res.body)
		}
	}

	// Subscribers may not list users.
	expect(t, investor.do(http.MethodGet, "/api/users/listUsers", nil), http.StatusForbidden)
}

package api_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"clearvest/api/apigen"
	"clearvest/app/accounts"
)

// staffActions is the roles table of docs/product-rules.md for staff work, written out again
// here on purpose: the server's own table (api/policy.go) must agree with it, and an action this
// list does not name fails the test until someone decides who may use it.
var staffActions = map[string][]string{
	"viewUsers":      {"author", "admin"},
	"reviewQueues":   {"author", "admin"},
	"sendEmail":      {"author", "admin"},
	"changeRoles":    {"admin"},
	"suspendUsers":   {"admin"},
	"closeAccounts":  {"admin"},
	"adjustBalances": {"admin"},
	"waiveFees":      {"admin"},
	"impersonate":    {"admin"},
	"approveChanges": {"admin"},
	"audit":          {"admin"},
	"changeSettings": {"admin"},
}

type staffOperation struct {
	id, method, path, action string
	stream                   bool // answers text/event-stream, which stays open
}

// staffOperations lists every operation of openapi.yaml that is neither public nor the caller's
// own account, with a made-up id in each path parameter.
func staffOperations(t *testing.T) []staffOperation {
	t.Helper()
	doc, err := apigen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	var ops []staffOperation
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			action, _ := op.Extensions["x-clearvest-action"].(string)
			stream := false
			if ok := op.Responses.Status(http.StatusOK); ok != nil && ok.Value != nil {
				_, stream = ok.Value.Content["text/event-stream"]
			}
			if action == "public" || action == "ownAccount" {
				continue
			}
			ops = append(ops, staffOperation{id: op.OperationID, method: method, action: action, stream: stream,
				path: "/api" + param.ReplaceAllString(path, "00000000-0000-4000-8000-000000000000")})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	return ops
}

// TestEveryStaffOperationByEveryKindOfCaller calls every staff operation as every kind of caller.
// The expected status is the table's: 401 for an anonymous caller, 403 for anyone the roles
// table leaves out (investors, suspended staff, an admin viewing the site as an investor), and
// for those it lets in an answer from the operation itself: its validation (400, 422), a 404
// for the made-up id, a 409, or success; never 401 or 403. Viewing the site as a user gives an
// admin nothing of their own role. Each caller has confirmed it is the
// person just before, so the step-up rule is not what answers.
func TestEveryStaffOperationByEveryKindOfCaller(t *testing.T) {
	t.Parallel()
	a := newInvestAppWithHistory(t).app
	ctx := context.Background()
	investor, investorUser := a.member(t, "ivy@example.com", "subscriber")
	author, _ := a.member(t, "author@example.com", "author")
	admin, adminUser := a.member(t, "admin@example.com", "admin")
	suspended, suspendedUser := a.member(t, "suspended@example.com", "author")
	for _, c := range []*client{investor, author, admin, suspended} {
		stepUp(t, c)
	}
	// An admin viewing the site as the investor, on a session of its own.
	viewer, _ := a.member(t, "viewer@example.com", "admin")
	stepUp(t, viewer)
	viewing := a.apiClient(t, impersonate(t, viewer, investorUser.ID).Token)
	if _, err := a.Accounts.Suspend(ctx, accounts.Actor{UserID: adminUser.ID, Role: "admin"}, suspendedUser.ID, "test"); err != nil {
		t.Fatal(err)
	}
	callers := []struct {
		name string
		c    *client
	}{
		{"anonymous", a.browser(t)},
		{"investor", investor},
		{"suspended author", suspended},
		{"author", author},
		{"admin", admin},
		{"admin viewing as the investor", viewing},
	}

	ops := staffOperations(t)
	if len(ops) < 20 {
		t.Fatalf("only %d staff operations found in the document", len(ops))
	}
	for _, op := range ops {
		allowed, known := staffActions[op.action]
		if !known {
			t.Errorf("%s needs %q, which this table does not name", op.id, op.action)
			continue
		}
		for _, who := range callers {
			var body any
			if op.method != http.MethodGet {
				body = map[string]any{}
			}
			var res response
			if op.stream {
				res = statusOf(t, who.c, op.method, op.path)
			} else {
				res = who.c.do(op.method, op.path, body)
			}
			got := res.status
			switch {
			case who.name == "anonymous":
				if got != http.StatusUnauthorized {
					t.Errorf("%s %s as %s: %d, want 401", op.method, op.path, who.name, got)
				}
			case contains(allowed, who.name):
				if got == http.StatusUnauthorized || got == http.StatusForbidden || got >= 500 {
					t.Errorf("%s %s as %s: %d %s, want the operation's own answer", op.method, op.path, who.name, got, res.body)
				}
			default:
				if got != http.StatusForbidden {
					t.Errorf("%s %s as %s: %d, want 403", op.method, op.path, who.name, got)
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// statusOf makes c's request and answers as soon as the status arrives, for a stream that would
// otherwise never end.
func statusOf(t *testing.T, c *client, method, path string) response {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.app.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out := response{status: res.StatusCode, header: res.Header}
	if res.StatusCode != http.StatusOK {
		if out.body, err = io.ReadAll(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

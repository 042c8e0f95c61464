package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/app/accounts"
	"clearvest/domain/identity"
	"clearvest/eventstore"
)

type impersonationJSON struct {
	Message   string    `json:"message"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expiresAt"`
	UserID    string    `json:"userId"`
	Name      string    `json:"name"`
}

type viewedUserJSON struct {
	ID                  string     `json:"_id"`
	Role                string     `json:"role"`
	IsImpersonated      bool       `json:"isImpersonated"`
	ImpersonationEndsAt *time.Time `json:"impersonationEndsAt"`
}

func me(t *testing.T, c *client) viewedUserJSON {
	t.Helper()
	res := c.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[viewedUserJSON](t, res)
}

// signInAgain signs an existing account in from a new browser (password, then the e-mailed code).
func signInAgain(t *testing.T, a *app, email string) (*client, userJSON) {
	t.Helper()
	b := a.browser(t)
	expect(t, b.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": testPassword}), http.StatusAccepted)
	res := b.do(http.MethodPost, "/api/users/loginWithCode/"+email, map[string]string{"loginCode": a.LatestCode(t, email, "sign-in code")})
	expect(t, res, http.StatusOK)
	return b, decodeUser(t, res)
}

func impersonate(t *testing.T, admin *client, userID string) impersonationJSON {
	t.Helper()
	res := admin.do(http.MethodPost, "/api/users/impersonate/"+userID, nil)
	expect(t, res, http.StatusOK)
	return decodeJSON[impersonationJSON](t, res)
}

func TestOnlyAnAdminWithAFreshStepUpViewsTheSiteAsAnotherNonAdminUser(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ivy := a.member(t, "ivy@example.com", "subscriber")
	author, authorUser := a.member(t, "sam@example.com", "author")
	admin, adminUser := a.member(t, "ada@example.com", "admin")
	_, otherAdmin := a.member(t, "alan@example.com", "admin")

	if e := decodeError(t, author.do(http.MethodPost, "/api/users/impersonate/"+ivy.ID, nil)); e.Message != "You are not allowed to do this." {
		t.Fatalf("an author: %+v", e)
	}
	res := admin.do(http.MethodPost, "/api/users/impersonate/"+ivy.ID, nil)
	expect(t, res, http.StatusForbidden)
	if e := decodeError(t, res); e.Code != "step_up_required" {
		t.Fatalf("without a step-up: %+v", e)
	}
	stepUp(t, admin)
	for _, tc := range []struct {
		id      string
		status  int
		message string
	}{
		{adminUser.ID, http.StatusUnprocessableEntity, "You cannot view the site as yourself."},
		{otherAdmin.ID, http.StatusUnprocessableEntity, "You cannot view the site as another admin."},
		{"9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d", http.StatusNotFound, "User not found"},
	} {
		res := admin.do(http.MethodPost, "/api/users/impersonate/"+tc.id, nil)
		expect(t, res, tc.status)
		if e := decodeError(t, res); e.Message != tc.message {
			t.Errorf("%s: %q, want %q", tc.id, e.Message, tc.message)
		}
	}
	// A closed account has nothing left to view.
	if _, err := a.Accounts.Close(context.Background(), accounts.Actor{UserID: adminUser.ID, Role: "admin"}, authorUser.ID); err != nil {
		t.Fatal(err)
	}
	res = admin.do(http.MethodPost, "/api/users/impersonate/"+authorUser.ID, nil)
	expect(t, res, http.StatusUnprocessableEntity)
	if e := decodeError(t, res); e.Message != "This account is closed; there is nothing to view." {
		t.Fatalf("a closed account: %+v", e)
	}
	// Nor a suspended one: it has no session that may act.
	if _, err := a.Accounts.Suspend(context.Background(), accounts.Actor{UserID: adminUser.ID, Role: "admin"}, ivy.ID, "fraud check"); err != nil {
		t.Fatal(err)
	}
	res = admin.do(http.MethodPost, "/api/users/impersonate/"+ivy.ID, nil)
	expect(t, res, http.StatusUnprocessableEntity)
	if e := decodeError(t, res); e.Message != "This account is suspended; reinstate it to view the site as this user." {
		t.Fatalf("a suspended account: %+v", e)
	}
	if got := me(t, admin); got.ID != adminUser.ID || got.IsImpersonated {
		t.Fatalf("after the refusals the admin is %+v", got)
	}
}

func TestAViewAsUserSessionShowsTheUserEndsAfterFifteenMinutesAndReturnsToTheAdmin(t *testing.T) {
	t.Parallel()
	a, clk := newClockedMoneyApp(t)
	ivyBrowser, ivy := a.member(t, "ivy@example.com", "subscriber")
	admin, adminUser := a.member(t, "ada@example.com", "admin")
	stepUp(t, admin)
	started := clk.Now()
	got := impersonate(t, admin, ivy.ID)
	if got.UserID != ivy.ID || got.Name != "Test subscriber" || got.Token == "" ||
		!got.ExpiresAt.Equal(started.Add(15*time.Minute)) {
		t.Fatalf("impersonate answered %+v", got)
	}
	u := me(t, admin)
	if u.ID != ivy.ID || !u.IsImpersonated || u.ImpersonationEndsAt == nil || !u.ImpersonationEndsAt.Equal(got.ExpiresAt) {
		t.Fatalf("getUser while viewing: %+v", u)
	}
	// The user's role is what counts now: no staff pages.
	expect(t, admin.do(http.MethodGet, "/api/users/getUsers", nil), http.StatusForbidden)
	// The view-as-user session is not one of the user's sessions.
	sessions := decodeJSON[[]json.RawMessage](t, ivyBrowser.do(http.MethodGet, "/api/users/sessions", nil))
	if len(sessions) != 1 {
		t.Fatalf("the user sees %d sessions, want their own one", len(sessions))
	}

	// 15 minutes later it has ended by itself, and cannot be refreshed: the refresh brings the
	// admin's own session back.
	clk.Advance(15*time.Minute + time.Second)
	res := admin.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, res, http.StatusUnauthorized)
	expect(t, admin.do(http.MethodPost, "/api/users/refresh", nil), http.StatusOK)
	if u := me(t, admin); u.ID != adminUser.ID || u.IsImpersonated {
		t.Fatalf("after the view ended: %+v", u)
	}
}

func TestExitingReturnsTheAdminToTheirOwnSessionOrToSignIn(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ivy := a.member(t, "ivy@example.com", "subscriber")
	admin, adminUser := a.member(t, "ada@example.com", "admin")

	res := admin.do(http.MethodPost, "/api/users/exit-impersonation", nil)
	expect(t, res, http.StatusConflict)
	if e := decodeError(t, res); e.Code != "not_impersonating" {
		t.Fatalf("exit from one's own session: %+v", e)
	}

	stepUp(t, admin)
	impersonate(t, admin, ivy.ID)
	res = admin.do(http.MethodPost, "/api/users/exit-impersonation", nil)
	expect(t, res, http.StatusOK)
	if out := decodeJSON[struct{ SignedIn bool }](t, res); !out.SignedIn {
		t.Fatalf("exit answered %s", res.body)
	}
	if u := me(t, admin); u.ID != adminUser.ID || u.IsImpersonated {
		t.Fatalf("after exit: %+v", u)
	}
	// Suspending the viewed user ends the view with the user's own sessions; the admin's session
	// comes back with a refresh, as after any ended access.
	impersonate(t, admin, ivy.ID)
	if _, err := a.Accounts.Suspend(context.Background(), accounts.Actor{UserID: adminUser.ID, Role: "admin"}, ivy.ID, "fraud check"); err != nil {
		t.Fatal(err)
	}
	expect(t, admin.do(http.MethodGet, "/api/users/getUser", nil), http.StatusForbidden)
	if _, err := a.Accounts.Reinstate(context.Background(), accounts.Actor{UserID: adminUser.ID, Role: "admin"}, ivy.ID); err != nil {
		t.Fatal(err)
	}
	expect(t, admin.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	expect(t, admin.do(http.MethodPost, "/api/users/refresh", nil), http.StatusOK)
	if u := me(t, admin); u.ID != adminUser.ID {
		t.Fatalf("after the view ended with the user's sessions: %+v", u)
	}

	// Signing out of the view signs the admin out too: the browser forgets both sessions, and the
	// server ends both.
	view := impersonate(t, admin, ivy.ID)
	expect(t, admin.do(http.MethodGet, "/api/users/logout", nil), http.StatusOK)
	expect(t, a.apiClient(t, view.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	expect(t, a.apiClient(t, adminUser.Token).do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	admin, adminUser = signInAgain(t, a, "ada@example.com")
	stepUp(t, admin)

	// The admin's own session ends (signed out everywhere): the view ends with it, and the admin
	// signs in again.
	impersonate(t, admin, ivy.ID)
	if err := a.Accounts.EndOtherSessions(context.Background(), accounts.Actor{UserID: adminUser.ID, SessionID: uuid.NewString()}); err != nil {
		t.Fatal(err)
	}
	expect(t, admin.do(http.MethodGet, "/api/users/getUser", nil), http.StatusUnauthorized)
	expect(t, admin.do(http.MethodPost, "/api/users/exit-impersonation", nil), http.StatusUnauthorized)
	expect(t, admin.do(http.MethodPost, "/api/users/refresh", nil), http.StatusUnauthorized)
}

func TestEveryChangeIsRefusedWhileViewingAsAUser(t *testing.T) {
	t.Parallel()
	a := newMoneyApp(t)
	_, ivy := a.member(t, "ivy@example.com", "subscriber")
	admin, _ := a.member(t, "ada@example.com", "admin")
	stepUp(t, admin)
	view := impersonate(t, admin, ivy.ID)
	bearer := a.apiClient(t, view.Token)

	// Every operation of the specification that is not a read, whatever it is: a new endpoint
	// is covered the day it is added.
	res := admin.do(http.MethodGet, "/api/openapi.json", nil)
	expect(t, res, http.StatusOK)
	var spec struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(res.body, &spec); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	allowed := map[string]bool{"exitImpersonation": true, "logout": true, "refreshSession": true, "quoteWithdrawal": true}
	var tested []string
	for path, ops := range spec.Paths {
		for method, op := range ops {
			m := strings.ToUpper(method)
			if m != http.MethodPost && m != http.MethodPut && m != http.MethodPatch && m != http.MethodDelete {
				continue
			}
			if allowed[op.OperationID] {
				continue
			}
			tested = append(tested, op.OperationID)
			url := "/api" + param.ReplaceAllStringFunc(path, func(p string) string {
				switch p {
				case "{submission}":
					return "1"
				case "{side}":
					return "front"
				case "{email}":
					return "ivy@example.com"
				}
				return ivy.ID
			})
			for name, c := range map[string]*client{"cookie": admin, "bearer": bearer} {
				res := c.do(m, url, map[string]string{"amount": "100"})
				if res.status != http.StatusForbidden {
					t.Errorf("%s %s (%s, %s): status %d, want 403; body %s", m, url, op.OperationID, name, res.status, res.body)
					continue
				}
				if e := decodeError(t, res); e.Code != "impersonating" ||
					e.Message != "You are viewing Clearvest as this user, so changes are disabled. Exit to act as yourself again." {
					t.Errorf("%s (%s): %+v", op.OperationID, name, e)
				}
			}
		}
	}
	sort.Strings(tested)
	for _, must := range []string{"createDeposit", "createWithdrawal", "startInvestment", "updateUser", "changePassword",
		"enableTwoFactor", "stepUp", "impersonateUser", "uploadKycDocuments", "endSession", "setLanguage"} {
		if sort.SearchStrings(tested, must) == len(tested) || tested[sort.SearchStrings(tested, must)] != must {
			t.Errorf("%s was not among the operations tried: %v", must, tested)
		}
	}
	// The withdrawal quote, a read sent as POST, is answered: the page shows the fee as the user
	// would see it (here: nothing to withdraw), up to the request itself.
	res = quote(admin, map[string]string{"network": "TRC20", "amount": "100"})
	expect(t, res, http.StatusUnprocessableEntity)
	if e := decodeError(t, res); e.Message != "Insufficient balance: $0.00 is available" {
		t.Fatalf("the quote while viewing: %+v", e)
	}
	// Reads that would link or sign in an account are refused too.
	expect(t, admin.do(http.MethodGet, "/api/users/google/start", nil), http.StatusForbidden)
	// Nothing changed: the user is still as they were, and the view still works.
	if u := me(t, admin); u.ID != ivy.ID || !u.IsImpersonated {
		t.Fatalf("after the refusals: %+v", u)
	}
}

func TestAViewIsRecordedWithTheAdminAsActorAndShownInTheUsersSecurityLog(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ivyBrowser, ivy := a.member(t, "ivy@example.com", "subscriber")
	admin, adminUser := a.member(t, "ada@example.com", "admin")
	stepUp(t, admin)
	view := impersonate(t, admin, ivy.ID)
	me(t, admin)
	me(t, admin) // the same page again is not recorded again
	expect(t, admin.do(http.MethodGet, "/api/users/security-log", nil), http.StatusOK)
	expect(t, admin.do(http.MethodPost, "/api/users/exit-impersonation", nil), http.StatusOK)

	envs, err := a.Store.ReadStream(context.Background(), eventstore.NewStreamID(identity.StreamCategory, ivy.ID), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, env := range envs {
		switch env.Type {
		case identity.TypeImpersonationStarted, identity.TypeImpersonationEnded, identity.TypeImpersonatedViewed:
		default:
			continue
		}
		if env.Metadata.ActorID != adminUser.ID || env.Metadata.ActorRole != "admin" {
			t.Errorf("%s recorded with actor %q (%s), want the admin", env.Type, env.Metadata.ActorID, env.Metadata.ActorRole)
		}
		var data struct{ Path, Reason, StaffID, SessionID string }
		if err := json.Unmarshal(env.Data, &data); err != nil {
			t.Fatal(err)
		}
		if data.StaffID != adminUser.ID || data.SessionID == "" {
			t.Errorf("%s: %s", env.Type, env.Data)
		}
		got = append(got, strings.TrimPrefix(env.Type, "user.")+" "+data.Path+data.Reason)
	}
	want := []string{"impersonation_started ", "impersonated_viewed /api/users/getUser",
		"impersonated_viewed /api/users/security-log", "impersonation_ended exit"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q (view token %s…)", got, want, view.Token[:8])
	}

	ivyBrowser.position = max(ivyBrowser.position, admin.position)
	res := ivyBrowser.do(http.MethodGet, "/api/users/security-log", nil)
	expect(t, res, http.StatusOK)
	entries := decodeJSON[[]struct {
		Kind, Description, StaffRole string
		IP                           *string
	}](t, res)
	found := 0
	for _, e := range entries {
		if e.Kind != "staff_viewed" {
			continue
		}
		found++
		if e.Description != "A staff member (admin) viewed your account" || e.StaffRole != "admin" || e.IP != nil {
			t.Errorf("entry %+v", e)
		}
		if strings.Contains(e.Description, "Test admin") {
			t.Errorf("the entry names the staff member: %+v", e)
		}
	}
	if found != 1 {
		t.Fatalf("%d staff_viewed entries, want 1: %s", found, res.body)
	}
}

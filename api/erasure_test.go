package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"clearvest/app/accounts"
	"clearvest/domain/identity"
	"clearvest/eventstore"
)

// TestClosingByAnySpellingOfTheIDErases closes accounts over HTTP naming them in every form
// uuid.Parse accepts. Each must erase that very account: its key destroyed, its history read
// back as "[erased]". Anything that is not a user id is a 404 and erases nothing.
func TestClosingByAnySpellingOfTheIDErases(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	_, admin := a.member(t, "admin@example.com", "admin")
	staff := a.apiClient(t, admin.Token)

	for i, spell := range []func(id string) string{
		func(id string) string { return "{" + id + "}" },
		strings.ToUpper,
		func(id string) string { return "urn:uuid:" + id },
		func(id string) string { return strings.ReplaceAll(id, "-", "") },
		func(id string) string { return "{" + strings.ToUpper(id) + "}" },
	} {
		u, err := a.Accounts.CreateUser(ctx, accounts.CreateUserInput{
			Name: "Leaving Person", Email: "leaving" + string(rune('a'+i)) + "@example.com", Password: testPassword, Role: "subscriber",
		})
		if err != nil {
			t.Fatal(err)
		}
		form := spell(u.ID)
		res := staff.do(http.MethodDelete, "/api/users/"+url.PathEscape(form), nil)
		expect(t, res, http.StatusOK)

		var live, tombstones int
		if err := a.Pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE key_sealed IS NOT NULL), count(*) FILTER (WHERE key_sealed IS NULL) FROM pii_keys WHERE subject_id = $1`, u.ID).
			Scan(&live, &tombstones); err != nil {
			t.Fatal(err)
		}
		if live != 0 || tombstones != 1 {
			t.Errorf("DELETE /api/users/%s: the key of %s is still there (%d live, %d tombstones)", form, u.ID, live, tombstones)
		}
		envs, err := a.Store.ReadStream(ctx, eventstore.NewStreamID(identity.StreamCategory, u.ID), 1, 10)
		if err != nil || len(envs) == 0 {
			t.Fatalf("stream of %s: %d events, %v", u.ID, len(envs), err)
		}
		// The service's own codec: what this process reads must agree with the table.
		if ev, err := a.Codec.Decode(envs[0]); err != nil {
			t.Fatal(err)
		} else if reg := ev.(identity.Registered); reg.Name != eventstore.ErasedValue || reg.Email != eventstore.ErasedValue {
			t.Errorf("DELETE /api/users/%s: the registration still reads %q <%s>", form, reg.Name, reg.Email)
		}
	}
	var stray int
	if err := a.Pool.QueryRow(ctx, `SELECT count(*) FROM pii_keys WHERE subject_id !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`).Scan(&stray); err != nil || stray != 0 {
		t.Errorf("%d keys or tombstones under ids that are not canonical (%v)", stray, err)
	}

	for _, bad := range []string{"not-a-user", "0191f3a0-beef", "12345"} {
		res := staff.do(http.MethodDelete, "/api/users/"+url.PathEscape(bad), nil)
		expect(t, res, http.StatusNotFound)
		if msg := decodeError(t, res).Message; msg == "" {
			t.Errorf("DELETE /api/users/%s: no message", bad)
		}
	}
}

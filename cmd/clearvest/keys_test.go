package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/eventstore/pii"
	"clearvest/platform/auth/totp"
	"clearvest/platform/pgtest"
)

// TestSecretKeyRotation changes CLEARVEST_SECRET_KEY from A to B the way the README says, with
// live servers: data made under A; a restart with B and A as previous, where everything made
// under A still works; `clearvest keys rotate`; a restart with B alone, where everything still
// works and nothing was lost.
func TestSecretKeyRotation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	secretA, secretB := bytes.Repeat([]byte{0xA1}, 32), bytes.Repeat([]byte{0xB2}, 32)
	env := liveEnv{databaseURL: pgtest.NewDatabase(t), dataDir: t.TempDir(), secret: secretA}
	box := newMailbox(t, env)
	pool, err := pgxpool.New(ctx, env.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	// Under A: two users with an authenticator each, a session, a reset link in a mailbox.
	srv := mustServe(t, env)
	type person struct {
		email, name, password, totpSecret string
		home                              *browser
	}
	people := []*person{
		{email: "ursula@example.test", name: "Ursula Keyholder", password: "first secret of ursula"},
		{email: "yannick@example.test", name: "Yannick Keyholder", password: "first secret of yannick"},
	}
	for _, p := range people {
		p.home = newBrowser(t, srv, "127.0.0.1", "Mozilla/5.0 Firefox/140.0")
		p.home.must(http.StatusCreated, http.MethodPost, "/api/users/register", map[string]any{
			"name": p.name, "email": p.email, "password": p.password, "phone": "+447700900123", "country": "GB", "acceptTerms": true,
		})
		var setup struct {
			Secret string `json:"secret"`
		}
		p.home.must(http.StatusOK, http.MethodPost, "/api/users/2fa/setup", nil).decode(t, &setup)
		p.totpSecret = setup.Secret
		code, _ := totp.Code(setup.Secret, time.Now())
		p.home.must(http.StatusOK, http.MethodPost, "/api/users/2fa/enable", map[string]string{"code": code})
	}
	ursula, yannick := people[0], people[1]
	newBrowser(t, srv, "127.0.0.1", "curl/8").must(http.StatusOK, http.MethodPost, "/api/users/forgotPassword", map[string]string{"email": yannick.email})
	resetToken := box.link(box.next(yannick.email, "Reset your"), "resetPassword")
	// A key without a stream, left by a registration that failed long ago.
	orphan := uuid.NewString()
	leftover, err := pii.New(pool, secretA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leftover.Seal(orphan, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE pii_keys SET created_at = now() - interval '2 hours' WHERE subject_id = $1`, orphan); err != nil {
		t.Fatal(err)
	}
	if err := srv.stop(); err != nil {
		t.Fatalf("serve under A: %v\n%s", err, srv.logs)
	}

	// B alone, before any rotation: refused at start, nothing read with a wrong key.
	onlyB := env
	onlyB.secret = secretB
	if _, err := startServe(t, onlyB); err == nil || !strings.Contains(err.Error(), "CLEARVEST_SECRET_KEY_PREVIOUS") {
		t.Fatalf("serve with a new key and no previous one: %v, want a refusal naming CLEARVEST_SECRET_KEY_PREVIOUS", err)
	}

	// B, with A as previous.
	rotating := onlyB
	rotating.previous = [][]byte{secretA}
	srv = mustServe(t, rotating)
	ursula.home.moveTo(srv)
	var got struct {
		Name string `json:"name"`
	}
	// The access token signed with A, and personal data whose key is sealed with A.
	ursula.home.must(http.StatusOK, http.MethodGet, "/api/users/getUser", nil).decode(t, &got)
	if got.Name != ursula.name {
		t.Errorf("during rotation, the profile reads %q", got.Name)
	}
	ursula.home.must(http.StatusOK, http.MethodPost, "/api/users/refresh", nil)
	// A link mailed under A.
	yannick.password = "second secret of yannick"
	newBrowser(t, srv, "127.0.0.1", "curl/8").must(http.StatusOK, http.MethodPatch, "/api/users/resetPassword/"+resetToken,
		map[string]string{"password": yannick.password, "confirmPassword": yannick.password})
	// An authenticator secret sealed under A.
	signIn(t, srv, ursula.email, ursula.password, ursula.totpSecret)
	waitForKeyGone(ctx, t, pool, orphan)

	var underA int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pii_keys WHERE key_sealed IS NOT NULL`).Scan(&underA); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"keys", "rotate"}, &out, io.Discard); err != nil {
		t.Fatalf("keys rotate: %v\n%s", err, out.String())
	}
	for _, want := range []string{fmt.Sprintf("personal-data keys: %d sealed again with the current key, 0 already were", underA),
		"authenticator secrets: 2 sealed again"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("keys rotate said %q; want %q", out.String(), want)
		}
	}
	out.Reset()
	if err := run(ctx, []string{"keys", "rotate"}, &out, io.Discard); err != nil ||
		!strings.Contains(out.String(), "personal-data keys: 0 sealed again") || !strings.Contains(out.String(), "authenticator secrets: 0 sealed again") {
		t.Errorf("keys rotate again: %v %q; want nothing left to do", err, out.String())
	}
	if err := srv.stop(); err != nil {
		t.Fatalf("serve during rotation: %v\n%s", err, srv.logs)
	}

	// B alone, after the rotation.
	srv = mustServe(t, onlyB)
	ursula.home.moveTo(srv)
	ursula.home.must(http.StatusOK, http.MethodPost, "/api/users/refresh", nil)
	ursula.home.must(http.StatusOK, http.MethodGet, "/api/users/getUser", nil).decode(t, &got)
	if got.Name != ursula.name {
		t.Errorf("after rotation, the profile reads %q", got.Name)
	}
	signIn(t, srv, yannick.email, yannick.password, yannick.totpSecret)
	out.Reset()
	if err := run(ctx, []string{"events", "verify"}, &out, io.Discard); err != nil {
		t.Errorf("events verify after rotation: %v\n%s", err, out.String())
	}
	if err := srv.stop(); err != nil {
		t.Fatalf("serve after rotation: %v\n%s", err, srv.logs)
	}

	// And the old key alone opens nothing any more.
	onlyA := env
	if _, err := startServe(t, onlyA); err == nil {
		t.Error("serve started with only the retired key")
	}
}

// signIn signs in from a new browser with a password and an authenticator code (a step ahead,
// so it is not one already used).
func signIn(t *testing.T, srv *liveServer, email, password, totpSecret string) {
	t.Helper()
	code, err := totp.Code(totpSecret, time.Now().Add(totp.Period*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	newBrowser(t, srv, "127.0.0.1", "Mozilla/5.0 Firefox/140.0").must(http.StatusOK, http.MethodPost, "/api/users/login",
		map[string]string{"email": email, "password": password, "totpCode": code})
}

// waitForKeyGone waits for serve's key tidying to delete a subject's key.
func waitForKeyGone(ctx context.Context, t *testing.T, pool *pgxpool.Pool, subject string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pii_keys WHERE subject_id = $1`, subject).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("serve did not delete the orphan key")
		}
		time.Sleep(20 * time.Millisecond) // polling the table
	}
}

func TestKeysUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"keys"}, {"keys", "spin"}, {"keys", "rotate", "now"}} {
		if err := run(context.Background(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("clearvest %s: %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"keys", "help"}, &out, io.Discard); err != nil || !strings.Contains(out.String(), "CLEARVEST_SECRET_KEY_PREVIOUS") {
		t.Errorf("clearvest keys help: %v %q", err, out.String())
	}
}

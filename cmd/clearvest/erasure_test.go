package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/app/accounts/accountstest"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/platform/auth/totp"
	"clearvest/platform/pgtest"
)

// needle is a piece of someone's personal data the erasure scan looks for.
type needle struct {
	what, text string
	// stored: the account leaves it somewhere the scan can see before the account is closed
	// (a password, say, is never stored, so finding it nowhere before proves nothing).
	stored bool
}

// TestClosedAccountLeavesNoPersonalData registers a person with distinctive personal data, uses
// every identity feature with it over HTTP against a live `clearvest serve`, has an admin close
// the account, and then looks for each piece everywhere: every column of every table of every
// schema, the whole event log decoded with the cipher, and `clearvest events export --all`. None
// may be found, and `clearvest events verify` must still pass. Before the closure the same scan
// must find what the account stored, or finding nothing afterwards would prove nothing.
func TestClosedAccountLeavesNoPersonalData(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	const googleClient = "clearvest-erasure.apps.googleusercontent.com"
	provider := accountstest.NewOIDCProvider(t, googleClient)
	env := liveEnv{
		databaseURL: pgtest.NewDatabase(t), dataDir: t.TempDir(), secret: bytes.Repeat([]byte{0x5e}, 32),
		googleID: googleClient, googleIss: provider.URL,
	}
	srv := mustServe(t, env)
	box := newMailbox(t, env)
	pool, err := pgxpool.New(ctx, env.databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	const (
		name      = "Quillon Zephyrine Vashti"
		renamed   = "Vashti Quillon Oberholt"
		email     = "Quillon.Vashti.7731@zephyr-mail.test"
		phone     = "+4915209876543"
		newPhone  = "+4915209876599"
		bio       = "Collector of brass astrolabes from Yarrowmere Hollow"
		ip        = "127.88.77.66"
		tabletIP  = "127.88.77.67"
		ua        = "Mozilla/5.0 (X11; Linux x86_64) QuillonBrowser/97.3.1"
		tabletUA  = "Mozilla/5.0 (iPad; CPU OS 17_4) QuillonTablet/12.4.8"
		password  = "orrery-lantern-quill-7731"
		password2 = "astrolabe-harbour-vashti-9902"
		googleSub = "g-quillon-4471-vashti"
	)

	// Register, verify the address.
	home := newBrowser(t, srv, ip, ua)
	var me struct {
		ID string `json:"_id"`
	}
	home.must(http.StatusCreated, http.MethodPost, "/api/users/register", map[string]any{
		"name": name, "email": email, "password": password, "confirmPassword": password, "phone": phone, "country": "GB",
		"acceptTerms": true,
	}).decode(t, &me)
	verify := box.next(email, "Confirm your e-mail")
	home.must(http.StatusOK, http.MethodPatch, "/api/users/verifyUser/"+box.link(verify, "verify"), nil)

	// Sign in on a new device with the e-mailed code.
	tablet := newBrowser(t, srv, tabletIP, tabletUA)
	if r := tablet.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": password}); r.status != http.StatusAccepted {
		t.Fatalf("login from a new device: %d %s", r.status, r.body)
	}
	code := box.code(box.next(email, "sign-in code"))
	tablet.must(http.StatusOK, http.MethodPost, "/api/users/loginWithCode/"+url.PathEscape(email), map[string]string{"loginCode": code})
	box.next(email, "New sign-in")

	// Profile: name, phone, bio, photo.
	home.must(http.StatusOK, http.MethodPatch, "/api/users/updateUser", map[string]string{"name": renamed, "phone": newPhone, "bio": bio})
	var withPhoto struct {
		Photo string `json:"photo"`
	}
	home.must(http.StatusOK, http.MethodPost, "/api/users/photo", photoForm(t, "me.png", pngImage(t))).decode(t, &withPhoto)
	photoName := strings.TrimPrefix(withPhoto.Photo, "/api/users/photo/")
	if photoName == withPhoto.Photo || photoName == "" {
		t.Fatalf("photo URL %q", withPhoto.Photo)
	}

	// Password change, then Google linked with the new password.
	home.must(http.StatusOK, http.MethodPatch, "/api/users/changePassword", map[string]string{
		"oldPassword": password, "password": password2, "confirmPassword": password2,
	})
	box.next(email, "password was changed")
	provider.As(googleSub, email, renamed)
	g := newBrowser(t, srv, ip, ua).noRedirects()
	start := g.must(http.StatusFound, http.MethodGet, "/api/users/google/start?return=/my-account", nil)
	back := g.must(http.StatusFound, http.MethodGet, start.header.Get("Location"), nil)
	if to := g.must(http.StatusFound, http.MethodGet, back.header.Get("Location"), nil).header.Get("Location"); to != "/login?google=link" {
		t.Fatalf("Google sign-in for an existing account landed on %q", to)
	}
	g.must(http.StatusOK, http.MethodPost, "/api/users/google/link", map[string]string{"password": password2})

	// Two-factor authentication, sessions, the security log, a password reset link.
	var setup struct {
		Secret string `json:"secret"`
	}
	home.must(http.StatusOK, http.MethodPost, "/api/users/2fa/setup", nil).decode(t, &setup)
	totpCode, err := totp.Code(setup.Secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	home.must(http.StatusOK, http.MethodPost, "/api/users/2fa/enable", map[string]string{"code": totpCode})
	home.must(http.StatusOK, http.MethodGet, "/api/users/sessions", nil)
	home.must(http.StatusOK, http.MethodPost, "/api/users/sessions/revoke-others", nil)
	home.must(http.StatusOK, http.MethodGet, "/api/users/security-log", nil)
	newBrowser(t, srv, ip, ua).must(http.StatusOK, http.MethodPost, "/api/users/forgotPassword", map[string]string{"email": email})

	needles := []needle{
		{"name", name, true}, {"new name", renamed, true}, {"e-mail", email, true}, {"phone", phone, true},
		{"new phone", newPhone, true}, {"bio", bio, true}, {"client IP", ip, true}, {"tablet IP", tabletIP, true},
		{"user agent", ua, true}, {"tablet user agent", tabletUA, true}, {"photo", photoName, true},
		{"Google account", googleSub, true}, {"password", password, false}, {"new password", password2, false},
		{"authenticator secret", setup.Secret, false},
	}
	before := findPersonalData(ctx, t, pool, needles)
	for _, n := range needles {
		if n.stored && len(before[n.what]) == 0 {
			t.Fatalf("before closing, the scan finds the %s (%q) nowhere: it cannot tell erased from never seen", n.what, n.text)
		}
	}

	// An admin proposes closing the account, and a second admin approves (docs/security.md,
	// "Separation of duties").
	signInAdmin := func(email, password string) *browser {
		var cli bytes.Buffer
		if err := run(ctx, []string{"admin", "create", "--email", email, "--password", password, "--name", "Boss"}, &cli, io.Discard); err != nil {
			t.Fatalf("admin create: %v", err)
		}
		b := newBrowser(t, srv, "127.0.0.1", "Mozilla/5.0 Firefox/140.0")
		if r := b.do(http.MethodPost, "/api/users/login", map[string]string{"email": email, "password": password}); r.status != http.StatusAccepted {
			t.Fatalf("admin login: %d %s", r.status, r.body)
		}
		b.must(http.StatusOK, http.MethodPost, "/api/users/loginWithCode/"+email,
			map[string]string{"loginCode": box.code(box.next(email, "sign-in code"))})
		return b
	}
	admin := signInAdmin("boss@example.test", "run the whole show")
	deputy := signInAdmin("deputy@example.test", "second pair of eyes")
	var proposal struct {
		ProposalID string `json:"proposalId"`
	}
	admin.must(http.StatusAccepted, http.MethodDelete, "/api/users/"+me.ID, map[string]string{"reason": "The investor asked to be forgotten"}).decode(t, &proposal)
	// A proposal's decision needs a fresh confirmation of the person (step-up).
	deputy.must(http.StatusOK, http.MethodPost, "/api/users/step-up", map[string]string{"password": "second pair of eyes"})
	closed := deputy.must(http.StatusOK, http.MethodPost, "/api/proposals/"+proposal.ProposalID+"/approve", nil)
	closedAt, err := strconv.ParseInt(closed.header.Get("X-Clearvest-Position"), 10, 64)
	if err != nil {
		t.Fatalf("closing answered no position: %v", err)
	}
	waitForProjections(ctx, t, pool, closedAt)

	for what, places := range findPersonalData(ctx, t, pool, needles) {
		t.Errorf("after closing, the %s is still in: %s", what, strings.Join(places, "; "))
	}
	if _, err := os.Stat(filepath.Join(env.dataDir, "blobs", "photos", photoName)); !os.IsNotExist(err) {
		t.Errorf("the photo file is still stored (%v)", err)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"events", "verify"}, &out, io.Discard); err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "OK") {
		t.Errorf("events verify after closing: %v\n%s", err, out.String())
	}
	if err := srv.stop(); err != nil {
		t.Errorf("serve: %v\n%s", err, srv.logs)
	}
}

// findPersonalData returns, for each needle found, where: a table, the decoded event log or the
// export. Matching ignores case.
func findPersonalData(ctx context.Context, t *testing.T, pool *pgxpool.Pool, needles []needle) map[string][]string {
	t.Helper()
	found := map[string][]string{}
	look := func(place, text string) {
		lower := strings.ToLower(text)
		for _, n := range needles {
			if strings.Contains(lower, strings.ToLower(n.text)) {
				found[n.what] = append(found[n.what], place)
			}
		}
	}

	// Every table of every schema but the system catalogues: each row as text, which covers
	// every column of every type, and bytea columns byte by byte.
	type table struct{ schema, name string }
	rows, err := pool.Query(ctx, `SELECT table_schema, table_name FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (table, error) {
		var x table
		return x, r.Scan(&x.schema, &x.name)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		ident := pgx.Identifier{tb.schema, tb.name}.Sanitize()
		rows, err := pool.Query(ctx, `SELECT column_name FROM information_schema.columns
			WHERE table_schema = $1 AND table_name = $2 AND data_type = 'bytea'`, tb.schema, tb.name)
		if err != nil {
			t.Fatal(err)
		}
		byteaCols, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range needles {
			var hits int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+ident+` AS r WHERE r::text ILIKE '%' || $1 || '%'`, likeEscape(n.text)).Scan(&hits); err != nil {
				t.Fatalf("scanning %s: %v", ident, err)
			}
			for _, col := range byteaCols {
				var inBytes int
				c := pgx.Identifier{col}.Sanitize()
				if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+ident+` WHERE position($1::bytea IN `+c+`) > 0 OR position($2::bytea IN `+c+`) > 0`,
					[]byte(n.text), []byte(strings.ToLower(n.text))).Scan(&inBytes); err != nil {
					t.Fatalf("scanning %s.%s: %v", ident, col, err)
				}
				hits += inBytes
			}
			if hits > 0 {
				found[n.what] = append(found[n.what], fmt.Sprintf("table %s (%d rows)", ident, hits))
			}
		}
	}

	// The whole event log, decoded with the cipher as the application reads it.
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	codec, _, err := newCodec(ctx, pool, cfg)
	if err != nil {
		t.Fatal(err)
	}
	store := postgres.New(pool)
	defer store.Close()
	var head int64
	if err := pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM events`).Scan(&head); err != nil {
		t.Fatal(err)
	}
	eventstoretest.WaitVisible(t, store, head)
	for after := int64(0); ; {
		page, err := store.ReadAll(ctx, after, 500)
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range page {
			ev, err := codec.Decode(env)
			if err != nil {
				t.Fatalf("decode %s at %d: %v", env.Type, env.Position, err)
			}
			meta, err := codec.OpenMetadata(env)
			if err != nil {
				t.Fatalf("metadata of %s at %d: %v", env.Type, env.Position, err)
			}
			data, _ := json.Marshal(ev)
			m, _ := json.Marshal(meta)
			look(fmt.Sprintf("decoded event %s (%s v%d)", env.Type, env.StreamID, env.Version), string(data)+string(m)+string(env.Data))
			after = env.Position
		}
		if len(page) < 500 {
			break
		}
	}

	// What an auditor gets.
	var export bytes.Buffer
	if err := run(ctx, []string{"events", "export", "--all"}, &export, io.Discard); err != nil {
		t.Fatalf("events export --all: %v", err)
	}
	for i, line := range strings.Split(export.String(), "\n") {
		look(fmt.Sprintf("events export --all, line %d", i+1), line)
	}
	return found
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// waitForProjections waits until every read model has applied position.
func waitForProjections(ctx context.Context, t *testing.T, pool *pgxpool.Pool, position int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var behind int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM projection_checkpoints WHERE position < $1`, position).Scan(&behind); err != nil {
			t.Fatal(err)
		}
		if behind == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d read models have not reached position %d", behind, position)
		}
		time.Sleep(20 * time.Millisecond) // polling the checkpoints
	}
}

func pngImage(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for x := range 32 {
		img.Set(x, x, color.RGBA{G: 180, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

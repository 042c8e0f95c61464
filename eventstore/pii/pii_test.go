package pii_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/eventstore/pii"
	"clearvest/eventstore/postgres"
	"clearvest/platform/pgmigrate"
	"clearvest/platform/pgtest"
)

var secret = bytes.Repeat([]byte{7}, 32)

// Data subjects are user ids.
const (
	u1     = "0191f3a0-0000-7000-8000-0000000000a1"
	u2     = "0191f3a0-0000-7000-8000-0000000000a2"
	uRace  = "0191f3a0-0000-7000-8000-0000000000a3"
	uOther = "0191f3a0-0000-7000-8000-0000000000a4"
)

func newPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.NewPool(t)
	if err := pgmigrate.Apply(context.Background(), pool, postgres.Migrations, pii.Migrations); err != nil {
		t.Fatal(err)
	}
	return pool
}

func newCipher(t *testing.T, pool *pgxpool.Pool, key []byte, opts ...pii.Option) *pii.Cipher {
	t.Helper()
	c, err := pii.New(pool, key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	// Any bytes, not only text: snapshots seal binary state.
	for _, plain := range []string{"ada@example.com", "Ada Lovelace", "ß∑ unicode ✓", strings.Repeat("x", 5000), "\x00\xff\xfe binary"} {
		sealed, err := c.Seal(u1, plain)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sealed, "pii:v1:") || strings.Contains(sealed, plain) {
			t.Fatalf("Seal(%.20q) = %.40q: want pii:v1:<base64> without the plaintext", plain, sealed)
		}
		again, _ := c.Seal(u1, plain)
		if again == sealed {
			t.Fatal("sealing the same value twice gave the same text: nonces are reused")
		}
		got, err := c.Open(u1, sealed)
		if err != nil || got != plain {
			t.Fatalf("Open = %.20q, %v", got, err)
		}
		// A fresh process with the same secret reads it from the stored key.
		if got, err := newCipher(t, pool, secret).Open(u1, sealed); err != nil || got != plain {
			t.Fatalf("Open in another cipher = %.20q, %v", got, err)
		}
	}
	var keys int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM pii_keys`).Scan(&keys); err != nil || keys != 1 {
		t.Fatalf("pii_keys holds %d rows (%v), want one key for the one subject", keys, err)
	}
}

// Bytes sealed as bytes open as they were, only for their subject, and are what Seal's text
// holds in base64: one format, two encodings.
func TestSealBytesOpensAsSealed(t *testing.T) {
	t.Parallel()
	c := newCipher(t, newPool(t), secret)
	plain := []byte("\x00\xff state of a long account")
	sealed, err := c.SealBytes(u1, plain)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, plain) {
		t.Fatal("the plaintext is in the sealed bytes")
	}
	if got, err := c.OpenBytes(u1, sealed); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("OpenBytes = %q, %v", got, err)
	}
	if got, err := c.Open(u1, "pii:v1:"+base64.StdEncoding.EncodeToString(sealed)); err != nil || got != string(plain) {
		t.Fatalf("the same bytes as Seal's text: %q, %v", got, err)
	}
	if _, err := c.OpenBytes(u2, sealed); err == nil {
		t.Fatal("u1's bytes opened for u2")
	}
	if _, err := c.OpenBytes(u1, sealed[:10]); err == nil || errors.Is(err, eventstore.ErrErased) {
		t.Fatalf("truncated bytes: err = %v, want a loud failure", err)
	}
}

func TestAValueOpensOnlyForItsSubject(t *testing.T) {
	t.Parallel()
	c := newCipher(t, newPool(t), secret)
	sealed, err := c.Seal(u1, "secret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Seal(u2, "other"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(u2, sealed); err == nil {
		t.Fatal("u1's value opened for u2")
	}
	tampered := sealed[:len(sealed)-4] + "AAA="
	if _, err := c.Open(u1, tampered); err == nil || errors.Is(err, eventstore.ErrErased) {
		t.Fatalf("a tampered value: err = %v, want a loud failure", err)
	}
}

func TestConcurrentFirstSealsAgreeOnOneKey(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	const n = 8
	ciphers := make([]*pii.Cipher, n)
	sealed := make([]string, n)
	for i := range ciphers {
		ciphers[i] = newCipher(t, pool, secret)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			var err error
			sealed[i], err = ciphers[i].Seal(uRace, "value")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		for j := range n {
			if got, err := ciphers[j].Open(uRace, sealed[i]); err != nil || got != "value" {
				t.Fatalf("cipher %d cannot open what cipher %d sealed: %q, %v", j, i, got, err)
			}
		}
	}
}

func TestEraseMakesValuesReadAsErased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	other := newCipher(t, pool, secret, pii.WithCacheTTL(0)) // another process, no cache
	sealed, err := c.Seal(u1, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Open(u1, sealed); err != nil {
		t.Fatal(err)
	}
	kept, err := c.Seal(u2, "grace@example.com")
	if err != nil {
		t.Fatal(err)
	}

	if err := c.Erase(ctx, u1); err != nil {
		t.Fatal(err)
	}
	if err := c.Erase(ctx, u1); err != nil {
		t.Fatalf("Erase is idempotent: %v", err)
	}
	for name, ci := range map[string]*pii.Cipher{"the erasing process": c, "another process": other} {
		if _, err := ci.Open(u1, sealed); !errors.Is(err, eventstore.ErrErased) {
			t.Errorf("%s: Open after Erase = %v, want ErrErased", name, err)
		}
		if _, err := ci.Seal(u1, "new data"); !errors.Is(err, eventstore.ErrErased) {
			t.Errorf("%s: Seal after Erase = %v, want ErrErased: no new key for an erased subject", name, err)
		}
	}
	if got, err := c.Open(u2, kept); err != nil || got != "grace@example.com" {
		t.Errorf("another subject's data after Erase: %q, %v", got, err)
	}
	var keyNull bool
	if err := pool.QueryRow(ctx, `SELECT key_sealed IS NULL FROM pii_keys WHERE subject_id = $1`, u1).Scan(&keyNull); err != nil || !keyNull {
		t.Errorf("the key is still stored after Erase (%v)", err)
	}
}

func TestWrongSecretFailsLoudly(t *testing.T) {
	t.Parallel()
	pool := newPool(t)
	sealed, err := newCipher(t, pool, secret).Seal(u1, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	wrong := newCipher(t, pool, bytes.Repeat([]byte{8}, 32))
	if _, err := wrong.Open(u1, sealed); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("Open with another secret: err = %v, want ErrWrongSecret", err)
	}
	if _, err := wrong.Seal(u1, "more"); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("Seal with another secret: err = %v, want ErrWrongSecret", err)
	}
	if err := wrong.CheckSecret(context.Background()); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("CheckSecret with another secret = %v", err)
	}
	if err := newCipher(t, pool, secret).CheckSecret(context.Background()); err != nil {
		t.Errorf("CheckSecret with the right secret = %v", err)
	}
}

func TestAMissingKeyIsNotAnErasure(t *testing.T) {
	t.Parallel()
	sealed, err := newCipher(t, newPool(t), secret).Seal(u1, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	// The same secret on another database, which never held u-1's key.
	_, err = newCipher(t, newPool(t), secret).Open(u1, sealed)
	if !errors.Is(err, pii.ErrNoKey) || errors.Is(err, eventstore.ErrErased) {
		t.Fatalf("Open without a key row: err = %v, want ErrNoKey", err)
	}
}

func TestNewRefusesAShortSecret(t *testing.T) {
	t.Parallel()
	if _, err := pii.New(nil, []byte("short")); err == nil {
		t.Fatal("a 5-byte secret was accepted")
	}
}

// TestEventsInTheLog goes through the registry and the PostgreSQL store the way the application
// does, and looks at what the events table really holds.
func TestEventsInTheLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	c := newCipher(t, pool, secret)
	reg := eventstore.NewRegistry()
	identity.RegisterEvents(reg)
	reg.SetCipher(c)

	const userID = "0191f3a0-0000-7000-8000-000000000001"
	stream := eventstore.NewStreamID(identity.StreamCategory, userID)
	u := identity.New()
	if err := u.Register(identity.RegisterParams{UserID: userID, Name: "Ada Lovelace", Email: "Ada@Example.com",
		Phone: "+447700900123", Country: "GB", ReferralCode: "ADA123"}); err != nil {
		t.Fatal(err)
	}
	if err := u.RecordNewDevice("dev-1", "203.0.113.7", "Firefox/128"); err != nil {
		t.Fatal(err)
	}
	var events []eventstore.NewEvent
	for _, e := range u.Changes() {
		ne, err := reg.EncodeFor(stream, e, eventstore.Metadata{ActorID: userID, ClientIP: "198.51.100.77"})
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ne)
	}
	if _, err := store.Append(ctx, eventstore.StreamAppend{Stream: stream, ExpectedVersion: eventstore.NoStream, Events: events}); err != nil {
		t.Fatal(err)
	}

	var raw string
	if err := pool.QueryRow(ctx, `SELECT string_agg(data::text || ' ' || metadata::text, ' ' ORDER BY version) FROM events WHERE stream_id = $1`, string(stream)).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	for _, plain := range []string{"Ada@Example.com", "ada@example.com", "Ada Lovelace", "+447700900123", "203.0.113.7", "Firefox", "198.51.100.77"} {
		if strings.Contains(strings.ToLower(raw), strings.ToLower(plain)) {
			t.Errorf("the events table holds %q in plaintext: %s", plain, raw)
		}
	}
	if !strings.Contains(raw, `"country": "GB"`) || !strings.Contains(raw, `"referralCode": "ADA123"`) {
		t.Errorf("fields that are not personal must stay readable: %s", raw)
	}

	decode := func(reg *eventstore.Registry) []any {
		t.Helper()
		envs, err := store.ReadStream(ctx, stream, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []any
		for _, env := range envs {
			e, err := reg.Decode(env)
			if err != nil {
				t.Fatalf("decode %s: %v", env.Type, err)
			}
			out = append(out, e)
		}
		return out
	}
	got := decode(reg)
	if r := got[0].(identity.Registered); r.Email != "Ada@Example.com" || r.Name != "Ada Lovelace" || r.Phone != "+447700900123" {
		t.Errorf("decoded %+v", r)
	}
	if d := got[1].(identity.SignedInNewDevice); d.IP != "203.0.113.7" || d.UserAgent != "Firefox/128" {
		t.Errorf("decoded %+v", d)
	}

	if err := c.Erase(ctx, userID); err != nil {
		t.Fatal(err)
	}
	got = decode(reg)
	want := identity.Registered{UserID: userID, Name: "[erased]", Email: "[erased]", Phone: "[erased]", Country: "GB",
		ReferralCode: "ADA123", Role: identity.RoleSubscriber}
	if got[0] != want {
		t.Errorf("after Erase: %+v, want %+v", got[0], want)
	}
	if d := got[1].(identity.SignedInNewDevice); d.IP != "[erased]" || d.UserAgent != "[erased]" || d.DeviceID != "dev-1" {
		t.Errorf("after Erase: %+v", d)
	}
	stored, err := store.ReadStream(ctx, stream, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if meta, err := reg.OpenMetadata(stored[0]); err != nil || meta.ClientIP != "[erased]" || meta.ActorID != userID {
		t.Errorf("metadata after Erase: %+v, %v", meta, err)
	}

	// A binary started with another secret must not quietly show "[erased]" for everyone.
	wrongReg := eventstore.NewRegistry()
	identity.RegisterEvents(wrongReg)
	other := eventstore.NewStreamID(identity.StreamCategory, uOther)
	ne, err := reg.EncodeFor(other, identity.SignedInNewDevice{DeviceID: "d", IP: "198.51.100.1"}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	envs, err := store.Append(ctx, eventstore.StreamAppend{Stream: other, ExpectedVersion: eventstore.NoStream, Events: []eventstore.NewEvent{ne}})
	if err != nil {
		t.Fatal(err)
	}
	wrongReg.SetCipher(newCipher(t, pool, bytes.Repeat([]byte{9}, 32), pii.WithTimeout(5*time.Second)))
	if _, err := wrongReg.Decode(envs[0]); !errors.Is(err, pii.ErrWrongSecret) {
		t.Errorf("decode with a wrong secret: err = %v, want ErrWrongSecret", err)
	}
}

// TestEverySpellingOfAnIDReachesTheSameKey: uuid.Parse accepts an id in braces, in upper case,
// without hyphens or as a URN. Each must act on the one key of that user, never make or erase
// another.
func TestEverySpellingOfAnIDReachesTheSameKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	const id = "0191f3a0-beef-7000-8000-00000000c0de"
	spellings := []string{
		"{" + id + "}", strings.ToUpper(id), "urn:uuid:" + id, strings.ReplaceAll(id, "-", ""),
		"{" + strings.ToUpper(id) + "}",
	}
	sealed, err := c.Seal(id, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spellings {
		if got, err := c.Open(s, sealed); err != nil || got != "ada@example.com" {
			t.Errorf("Open(%q) = %q, %v; want the value sealed for %s", s, got, err, id)
		}
		other, err := c.Seal(s, "x")
		if err != nil {
			t.Fatalf("Seal(%q): %v", s, err)
		}
		if got, err := newCipher(t, pool, secret).Open(id, other); err != nil || got != "x" {
			t.Errorf("a value sealed for %q does not open for %s: %q, %v", s, id, got, err)
		}
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pii_keys`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("pii_keys holds %d rows (%v), want the one key of %s", rows, err, id)
	}

	for _, s := range spellings {
		t.Run("erase "+s, func(t *testing.T) {
			pool := newPool(t)
			c := newCipher(t, pool, secret)
			sealed, err := c.Seal(id, "ada@example.com")
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Erase(ctx, s); err != nil {
				t.Fatal(err)
			}
			fresh := newCipher(t, pool, secret) // no cache: only the table speaks
			if _, err := fresh.Open(id, sealed); !errors.Is(err, eventstore.ErrErased) {
				t.Errorf("after Erase(%q), Open(%s) = %v, want ErrErased", s, id, err)
			}
			var subjects []string
			rows, _ := pool.Query(ctx, `SELECT subject_id FROM pii_keys`)
			for rows.Next() {
				var sub string
				_ = rows.Scan(&sub)
				subjects = append(subjects, sub)
			}
			if len(subjects) != 1 || subjects[0] != id {
				t.Errorf("pii_keys subjects after Erase(%q): %q, want only %s", s, subjects, id)
			}
		})
	}
}

func TestSubjectsMustBeUserIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	for _, bad := range []string{"", "u-1", "not-a-uuid", "0191f3a0-beef-7000-8000", " " + u1} {
		if _, err := c.Seal(bad, "x"); !errors.Is(err, pii.ErrBadSubject) {
			t.Errorf("Seal(%q) = %v, want ErrBadSubject", bad, err)
		}
		if _, err := c.Open(bad, "pii:v1:AAAA"); !errors.Is(err, pii.ErrBadSubject) {
			t.Errorf("Open(%q) = %v, want ErrBadSubject", bad, err)
		}
		if err := c.Erase(ctx, bad); !errors.Is(err, pii.ErrBadSubject) {
			t.Errorf("Erase(%q) = %v, want ErrBadSubject", bad, err)
		}
	}
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pii_keys`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("pii_keys holds %d rows (%v) after refused calls", rows, err)
	}
}

// keyRows returns the subjects of pii_keys with "live" or "erased" for each.
func keyRows(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT subject_id, CASE WHEN key_sealed IS NULL THEN 'erased' ELSE 'live' END FROM pii_keys`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for rows.Next() {
		var s, state string
		if err := rows.Scan(&s, &state); err != nil {
			t.Fatal(err)
		}
		out[s] = state
	}
	return out
}

func backdate(t *testing.T, pool *pgxpool.Pool, subject string, age time.Duration) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `UPDATE pii_keys SET created_at = now() - make_interval(secs => $2) WHERE subject_id = $1`,
		subject, age.Seconds()); err != nil {
		t.Fatal(err)
	}
}

// startStream appends one event to <category>-<subject>, as a registration would.
func startStream(t *testing.T, pool *pgxpool.Pool, category, subject string) {
	t.Helper()
	store := postgres.New(pool)
	defer store.Close()
	if _, err := store.Append(context.Background(), eventstore.StreamAppend{
		Stream: eventstore.NewStreamID(category, subject), ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: "test.started", SchemaVersion: 1, Data: []byte(`{}`)}},
	}); err != nil {
		t.Fatal(err)
	}
}

func TestTidyDeletesOnlyOrphanKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	const (
		user     = "0191f3a0-0000-7000-8000-0000000000b1" // old key, a user stream
		account  = "0191f3a0-0000-7000-8000-0000000000b2" // old key, a stream of another category
		orphan   = "0191f3a0-0000-7000-8000-0000000000b3" // old key, no stream: a registration that failed
		fresh    = "0191f3a0-0000-7000-8000-0000000000b4" // new key, no stream yet: a registration in flight
		erasedID = "0191f3a0-0000-7000-8000-0000000000b5" // a tombstone without a stream
	)
	for _, s := range []string{user, account, orphan, fresh, erasedID} {
		if _, err := c.Seal(s, "x"); err != nil {
			t.Fatal(err)
		}
	}
	startStream(t, pool, "user", user)
	startStream(t, pool, "account", account)
	if err := c.Erase(ctx, erasedID); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{user, account, orphan, erasedID} {
		backdate(t, pool, s, 2*time.Hour)
	}
	got, err := c.Tidy(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if got.Orphans != 1 || got.Respelled != 0 {
		t.Errorf("Tidy = %+v, want the one orphan deleted", got)
	}
	want := map[string]string{user: "live", account: "live", fresh: "live", erasedID: "erased"}
	if rows := keyRows(t, pool); !maps.Equal(rows, want) {
		t.Errorf("pii_keys after Tidy = %v, want %v", rows, want)
	}
	if again, err := c.Tidy(ctx, time.Hour); err != nil || again != (pii.Tidied{}) {
		t.Errorf("a second Tidy = %+v, %v; want nothing to do", again, err)
	}
}

// TestAClaimedKeySurvivesASweep races the sweep against a registration's round trip: the claim
// either keeps the key or, when the sweep won, makes the round trip fail.
func TestAClaimedKeySurvivesASweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	const id = "0191f3a0-0000-7000-8000-0000000000c1"
	if _, err := c.Seal(id, "x"); err != nil {
		t.Fatal(err)
	}
	// The registration took long enough for its key to look like an orphan.
	backdate(t, pool, id, 2*time.Hour)

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	claim, args, err := c.ClaimStatement(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, claim, args...); err != nil {
		t.Fatal(err)
	}
	swept := make(chan pii.Tidied, 1)
	sweepErr := make(chan error, 1)
	go func() {
		got, err := c.Tidy(ctx, time.Hour)
		swept <- got
		sweepErr <- err
	}()
	// The sweep must reach the claimed row and wait for it before the transaction commits.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM pii_keys%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweep never waited for the claimed key")
		}
		time.Sleep(5 * time.Millisecond) // polling pg_stat_activity, not waiting for a guess
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := <-swept; got.Orphans != 0 {
		t.Errorf("the sweep deleted %d keys, among them the one just claimed", got.Orphans)
	}
	if err := <-sweepErr; err != nil {
		t.Fatal(err)
	}
	if rows := keyRows(t, pool); rows[id] != "live" {
		t.Fatalf("pii_keys = %v: the claimed key is gone", rows)
	}

	// The other order: the sweep deleted the key first, so the claim must fail.
	backdate(t, pool, id, 2*time.Hour)
	if got, err := c.Tidy(ctx, time.Hour); err != nil || got.Orphans != 1 {
		t.Fatalf("Tidy = %+v, %v", got, err)
	}
	_, err = pool.Exec(ctx, claim, args...)
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.ConstraintName != pii.KeyGoneConstraint {
		t.Errorf("claiming a swept key: %v, want a violation of %s", err, pii.KeyGoneConstraint)
	}
}

func TestDiscardDeletesOnlyAKeyWithoutAStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	const failed, used, erasedID = "0191f3a0-0000-7000-8000-0000000000d1", "0191f3a0-0000-7000-8000-0000000000d2", "0191f3a0-0000-7000-8000-0000000000d3"
	for _, s := range []string{failed, used, erasedID} {
		if _, err := c.Seal(s, "x"); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Erase(ctx, erasedID); err != nil {
		t.Fatal(err)
	}
	startStream(t, pool, "user", used)
	for _, s := range []string{failed, used, erasedID} {
		if err := c.Discard(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{used: "live", erasedID: "erased"}
	if rows := keyRows(t, pool); !maps.Equal(rows, want) {
		t.Errorf("pii_keys after Discard = %v, want %v", rows, want)
	}
}

// TestTidyFinishesErasuresUnderOtherSpellings repairs what closing "{id}" did before ids were
// canonicalised: a tombstone under that spelling, and the user's real key untouched.
func TestTidyFinishesErasuresUnderOtherSpellings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	c := newCipher(t, pool, secret)
	const id, kept = "0191f3a0-0000-7000-8000-0000000000e1", "0191f3a0-0000-7000-8000-0000000000e2"
	sealed, err := c.Seal(id, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Seal(kept, "x"); err != nil {
		t.Fatal(err)
	}
	startStream(t, pool, "user", id)
	startStream(t, pool, "user", kept)
	for _, spelling := range []string{"{" + id + "}", strings.ToUpper(id), "not-an-id"} {
		if _, err := pool.Exec(ctx, `INSERT INTO pii_keys (subject_id, key_sealed, erased_at) VALUES ($1, NULL, now())`, spelling); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Tidy(ctx, time.Hour)
	if err != nil || got.Respelled != 2 {
		t.Fatalf("Tidy = %+v, %v; want two stray tombstones moved", got, err)
	}
	want := map[string]string{id: "erased", kept: "live", "not-an-id": "erased"}
	if rows := keyRows(t, pool); !maps.Equal(rows, want) {
		t.Errorf("pii_keys after Tidy = %v, want %v", rows, want)
	}
	if _, err := newCipher(t, pool, secret).Open(id, sealed); !errors.Is(err, eventstore.ErrErased) {
		t.Errorf("the user's data after Tidy: %v, want ErrErased", err)
	}
}

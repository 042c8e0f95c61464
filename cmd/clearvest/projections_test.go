package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"clearvest/domain/identity"
	"clearvest/eventstore"
	"clearvest/eventstore/eventstoretest"
	"clearvest/eventstore/postgres"
	"clearvest/projections"
)

// TestProjectionsRetryAndSkip drives `clearvest projections` as an operator would after an
// event the identity read models cannot decode parked them. It sets environment variables, so
// it cannot run in parallel.
func TestProjectionsRetryAndSkip(t *testing.T) {
	url, cli := operatorShell(t)
	ctx := testCtx(t)
	if out, err := cli("migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if out, err := cli("projections", "rebuild", "--all"); err != nil {
		t.Fatalf("rebuild of an empty log: %v\n%s", err, out)
	}
	if _, err := cli("projections", "rebuild", "--all", "--jobs", "0"); err == nil || !strings.Contains(err.Error(), "--jobs must be at least 1") {
		t.Fatalf("rebuild --jobs 0 = %v, want a usage error", err)
	}

	// The serving process: the same read models, on the same database.
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := postgres.New(pool)
	t.Cleanup(store.Close)
	runner, err := projections.NewRunner(pool, store, allProjections(newRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := store.Append(ctx, eventstore.StreamAppend{
		Stream: eventstore.NewStreamID(identity.StreamCategory, eventstore.NewEventID().String()), ExpectedVersion: eventstore.NoStream,
		Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: identity.TypeRegistered, SchemaVersion: 1, Data: []byte(`{"userId": 42}`)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	eventstoretest.WaitVisible(t, store, bad[0].Position)
	position := fmt.Sprint(bad[0].Position)

	if _, err := cli("projections", "rebuild", "users"); err == nil ||
		!strings.Contains(err.Error(), "clearvest projections skip users --position "+position+` --reason "..."`) {
		t.Fatalf("rebuild over the bad event = %v, want the event and how to skip it", err)
	}
	// Rebuilding them all, several at once, stops at the first read model that refuses it.
	if _, err := cli("projections", "rebuild", "--all", "--jobs", "3"); err == nil ||
		!strings.Contains(err.Error(), "--position "+position+` --reason "..."`) {
		t.Fatalf("rebuild --all over the bad event = %v, want the event and how to skip it", err)
	}
	if err := runner.CatchUp(ctx); !errors.Is(err, projections.ErrParked) {
		t.Fatalf("serving runner: %v, want users, securitylog, referrals and activity parked", err)
	}

	// A reactor that has run once has a checkpoint at 0: everything in the log is its lag.
	if _, err := pool.Exec(ctx, `INSERT INTO reactor_checkpoints (name) VALUES ('referrals')`); err != nil {
		t.Fatal(err)
	}
	out, err := cli("projections", "status", "--interval", "1ms")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*referrals\s+0\s+` + position + `\s+[1-9]`).MatchString(out) {
		t.Errorf("status lacks the referrals reactor at position 0 of %s with events to pass:\n%s", position, out)
	}
	for _, want := range []string{
		fmt.Sprintf("users failed at position %s: event %s (user.registered in %s), 1 attempt(s)", position, bad[0].ID, bad[0].StreamID),
		"after a fix, or once the cause is gone: clearvest projections retry users",
		"to pass the event instead:             clearvest projections skip users --position " + position,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}

	for _, args := range [][]string{
		{"projections", "retry"},
		{"projections", "retry", "users", "securitylog"},
		{"projections", "skip", "users", "--position", position},
		{"projections", "skip", "users", "--reason", "r"},
		{"projections", "unpark"},
	} {
		if _, err := cli(args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	if _, err := cli("projections", "skip", "nope", "--position", position, "--reason", "r"); err == nil || !strings.Contains(err.Error(), `no projection named "nope"`) {
		t.Errorf("skip of an unknown projection: %v", err)
	}
	if _, err := cli("projections", "retry", "catalogue"); !errors.Is(err, projections.ErrNotParked) {
		t.Errorf("retry of a running projection: %v, want ErrNotParked", err)
	}

	out, err = cli("projections", "retry", "users", "--by", "alice")
	if err != nil || !strings.Contains(out, "users: the runners will try the event at position "+position+" again") {
		t.Fatalf("retry: %v %q", err, out)
	}
	if out, _ := cli("projections", "status", "--interval", "1ms"); !strings.Contains(out, "retry requested by alice") {
		t.Errorf("status after the retry:\n%s", out)
	}
	if err := runner.CatchUp(ctx); !errors.Is(err, projections.ErrParked) {
		t.Fatalf("the retry of an unchanged handler: %v, want parked again", err)
	}

	out, err = cli("projections", "skip", "users", "--position", position, "--reason", "malformed import")
	if err != nil || !strings.Contains(out, "users: the event at position "+position) || !strings.Contains(out, "decided by "+operator()) {
		t.Fatalf("skip without --by: %v %q", err, out)
	}
	// Flags may also come before the name.
	if out, err := cli("projections", "skip", "--position", position, "--reason", "malformed import", "--by", "bob", "securitylog"); err != nil {
		t.Fatalf("skip with flags first: %v %q", err, out)
	}
	// The referrals read model reads registrations too (the referrer of each user).
	if out, err := cli("projections", "skip", "referrals", "--position", position, "--reason", "malformed import", "--by", "bob"); err != nil {
		t.Fatalf("skip of referrals: %v %q", err, out)
	}
	// So does the activity read model (the country of each user).
	if out, err := cli("projections", "skip", "activity", "--position", position, "--reason", "malformed import", "--by", "bob"); err != nil {
		t.Fatalf("skip of activity: %v %q", err, out)
	}
	if err := runner.CatchUp(ctx); err != nil {
		t.Fatalf("after skipping: %v", err)
	}
	out, err = cli("projections", "status", "--interval", "1ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"users skips 1 event(s):",
		fmt.Sprintf("position %s: event %s (user.registered in %s), skipped by bob at ", position, bad[0].ID, bad[0].StreamID),
		": malformed import",
		"    it had failed with: eventstore: decode user.registered (event " + bad[0].ID.String() + "): json: cannot unmarshal",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status after the skip lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "failed at position") || strings.Count(out, " running ") != len(allProjections(newRegistry())) {
		t.Errorf("status still shows a failure:\n%s", out)
	}
}

// TestProjectionDefinitionsArePinned fails when a read model's schema changes without its
// version being raised. Processes order definitions by version: the same version with another
// schema would make old and new processes rebuild the read model back and forth during a
// rolling deploy. When this fails, raise the projection's Version() and record the new pair.
func TestProjectionDefinitionsArePinned(t *testing.T) {
	t.Parallel()
	pinned := map[string]projections.Definition{
		"catalogue":   {Version: 1, SchemaHash: "29f7c7d13ce1e24c"},
		"users":       {Version: 3, SchemaHash: "127f01b16bc5a649"},
		"securitylog": {Version: 4, SchemaHash: "2c4efe1b3c0a8eba"},
		"plans":       {Version: 1, SchemaHash: "de0bfce3e962dab2"},
		"ledger":      {Version: 1, SchemaHash: "74cb5997f0fa3888"},
		"wallets":     {Version: 3, SchemaHash: "ed1724064685e56e"},
		"history":     {Version: 4, SchemaHash: "2e5415f7db522d44"},
		"investments": {Version: 1, SchemaHash: "94392739c3977c87"},
		"withdrawals": {Version: 2, SchemaHash: "48ce538a0d3452a6"},
		"referrals":   {Version: 1, SchemaHash: "9752f9a1ddf2d6dd"},
		"tickets":     {Version: 1, SchemaHash: "ddcbfd12034cd13b"},
		// The public site's social proof (docs/community.md).
		"testimonials": {Version: 1, SchemaHash: "1eef8a7eed221b2d"},
		"activity":     {Version: 1, SchemaHash: "43b58a9c0737c396"},
		"proposals":    {Version: 1, SchemaHash: "2818ebd767185966"},
		// The staff actions of the audit log (docs/auditing.md).
		"audit": {Version: 1, SchemaHash: "014610b29516caf6"},
	}
	for _, p := range allProjections(newRegistry()) {
		got := projections.DefinitionOf(p)
		want, ok := pinned[p.Name()]
		switch {
		case !ok:
			t.Errorf("%s is not pinned: add %q: {Version: %d, SchemaHash: %q}", p.Name(), p.Name(), got.Version, got.SchemaHash)
		case got.Version == want.Version && got.SchemaHash != want.SchemaHash:
			t.Errorf("%s: the schema changed but the version is still %d: raise %s's Version() and pin {Version: %d, SchemaHash: %q}",
				p.Name(), got.Version, p.Name(), got.Version+1, got.SchemaHash)
		case got != want:
			t.Errorf("%s: definition %+v, pinned %+v: update the pin", p.Name(), got, want)
		}
	}
}

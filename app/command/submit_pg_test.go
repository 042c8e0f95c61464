package command_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"clearvest/app/command"
	"clearvest/domain/domainerr"
	"clearvest/eventstore"
	"clearvest/eventstore/memstore"
	"clearvest/eventstore/postgres"
)

var errSideTaken = domainerr.New(domainerr.Conflict, "that side row exists")

// submitWithSide increments stream's counter by 1 and inserts side row id, in one Submit.
func submitWithSide(ctx context.Context, r *command.Runner, stream eventstore.StreamID, id string) (command.Result, error) {
	return command.Submit(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter, w *command.Writes) error {
		if err := c.Increment(1); err != nil {
			return err
		}
		w.Add(`INSERT INTO side (id, n) VALUES ($1, 1)`, id)
		w.OnUnique("side_pkey", errSideTaken)
		return nil
	})
}

func TestSubmitCommitsEventsAndRowsTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	r, store := pgRunner(t, pool)
	stream := counterStream("submit")

	res, err := submitWithSide(ctx, r, stream, "a")
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != 1 || res.Position == 0 || len(res.Events) != 1 {
		t.Fatalf("result %+v, want version 1 with its position and event", res)
	}
	// A row that exists fails the command with the error named for it, and stores nothing.
	if _, err := submitWithSide(ctx, r, stream, "a"); !errors.Is(err, errSideTaken) {
		t.Fatalf("err = %v, want errSideTaken", err)
	}
	if got := readStream(t, store, stream); len(got) != 1 {
		t.Fatalf("stream holds %d events, want 1: the refused command must store nothing", len(got))
	}
	// The runner's state of the stream is still right: the next command appends at version 2.
	if res, err := submitWithSide(ctx, r, stream, "b"); err != nil || res.Version != 2 {
		t.Fatalf("next command: %+v, %v; want version 2", res, err)
	}
	if rows := sideRows(t, pool); len(rows) != 2 {
		t.Fatalf("side rows %v, want a and b", rows)
	}
}

// scaled increments its own stream by the count of another stream it consults, and refuses
// while that count is 0.
func scaled(by eventstore.StreamID) func(*Counter, *command.Writes) error {
	return func(c *Counter, w *command.Writes) error {
		other, err := command.Consult(w, by, NewCounter)
		if err != nil {
			return err
		}
		if other.count == 0 {
			return errNotPositive
		}
		return c.Increment(other.count)
	}
}

func lastIncrement(t *testing.T, store eventstore.Store, stream eventstore.StreamID) string {
	t.Helper()
	got := readStream(t, store, stream)
	if len(got) == 0 {
		return ""
	}
	return string(got[len(got)-1].Data)
}

// Another process moves a consulted stream after this one cached it: the check fails the append,
// and the command decides again on the stream's new state.
func TestSubmitDecidesAgainWhenAConsultedStreamMoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	mine, store := pgRunner(t, pool)
	theirs, _ := pgRunner(t, pool)
	own, by := counterStream("own"), counterStream("by")

	if _, err := command.Execute(ctx, mine, by, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := command.Submit(ctx, mine, own, NewCounter, eventstore.Metadata{}, scaled(by)); err != nil {
		t.Fatal(err)
	}
	if got := lastIncrement(t, store, own); got != `{"by": 1}` {
		t.Fatalf("first increment %s, want by 1", got)
	}
	if _, err := command.Execute(ctx, theirs, by, NewCounter, eventstore.Metadata{}, increment(5)); err != nil {
		t.Fatal(err)
	}
	if _, err := command.Submit(ctx, mine, own, NewCounter, eventstore.Metadata{}, scaled(by)); err != nil {
		t.Fatal(err)
	}
	if got := lastIncrement(t, store, own); got != `{"by": 6}` {
		t.Fatalf("second increment %s, want by 6: the decision must rest on the consulted stream as it is", got)
	}
}

// A refusal decided on a cached state is confirmed on the streams' tails first.
func TestSubmitConfirmsARefusalOnTheStreamsAsTheyAre(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	mine, store := pgRunner(t, pool)
	theirs, _ := pgRunner(t, pool)
	own, by := counterStream("own"), counterStream("by")

	if _, err := command.Submit(ctx, mine, own, NewCounter, eventstore.Metadata{}, scaled(by)); !errors.Is(err, errNotPositive) {
		t.Fatalf("err = %v, want the refusal while the consulted count is 0", err)
	}
	if _, err := command.Execute(ctx, theirs, by, NewCounter, eventstore.Metadata{}, increment(3)); err != nil {
		t.Fatal(err)
	}
	if _, err := command.Submit(ctx, mine, own, NewCounter, eventstore.Metadata{}, scaled(by)); err != nil {
		t.Fatalf("err = %v: the cached state refused, the stream as it is allows", err)
	}
	if got := lastIncrement(t, store, own); got != `{"by": 3}` {
		t.Fatalf("increment %s, want by 3", got)
	}
}

func plusOne(c *Counter, _ *command.Writes) error { return c.Increment(1) }

func sideClaim(key string) *command.Claim {
	return &command.Claim{Statement: postgres.Statement{SQL: `INSERT INTO side (id) VALUES ($1)`, Args: []any{key}}, Constraint: "side_pkey"}
}

// keyClaim is the claim of a request with an Idempotency-Key: its record, and the key and the
// request's hash its events carry.
func keyClaim(key, hash string) *command.Claim {
	c := sideClaim("claim-" + key + "-" + hash)
	c.Key, c.Hash = key, hash
	return c
}

// A request's claim commits with its first command, and a second request with the same claim
// finds it taken and stores nothing.
func TestSubmitCommitsTheRequestsClaimOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	r, store := pgRunner(t, pool)
	stream := counterStream("claimed")

	first := sideClaim("key-1")
	if _, err := command.Submit(command.WithClaim(ctx, first), r, stream, NewCounter, eventstore.Metadata{}, plusOne); err != nil {
		t.Fatal(err)
	}
	if !first.Committed() || first.Conflicted() {
		t.Fatalf("first claim: committed %v, conflicted %v; want committed", first.Committed(), first.Conflicted())
	}
	// The request's next command does not claim again.
	if _, err := command.Submit(command.WithClaim(ctx, first), r, stream, NewCounter, eventstore.Metadata{}, plusOne); err != nil {
		t.Fatal(err)
	}
	again := sideClaim("key-1")
	if _, err := command.Submit(command.WithClaim(ctx, again), r, stream, NewCounter, eventstore.Metadata{}, plusOne); !errors.Is(err, command.ErrClaimed) {
		t.Fatalf("err = %v, want ErrClaimed", err)
	}
	if again.Committed() || !again.Conflicted() {
		t.Fatalf("second claim: committed %v, conflicted %v; want conflicted", again.Committed(), again.Conflicted())
	}
	if got := readStream(t, store, stream); len(got) != 2 {
		t.Fatalf("stream holds %d events, want the first request's 2", len(got))
	}
	if rows := sideRows(t, pool); len(rows) != 1 {
		t.Fatalf("side rows %v, want the one claim", rows)
	}
}

// Commands submitted at once share appends; a row that fails fails only its own command.
func TestConcurrentSubmitsFailOnlyTheCommandWhoseRowFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	r, store := pgRunner(t, pool)
	if _, err := pool.Exec(ctx, `INSERT INTO side (id) VALUES ('taken-0'), ('taken-1'), ('taken-2')`); err != nil {
		t.Fatal(err)
	}
	const n = 40
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("row-%d", i)
			if i%10 == 0 {
				id = fmt.Sprintf("taken-%d", i/10%3)
			}
			_, errs[i] = submitWithSide(ctx, r, counterStream(fmt.Sprint(i)), id)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		stream := counterStream(fmt.Sprint(i))
		want := 1
		if i%10 == 0 {
			want = 0
			if !errors.Is(err, errSideTaken) {
				t.Errorf("command %d: err = %v, want errSideTaken", i, err)
			}
		} else if err != nil {
			t.Errorf("command %d: %v", i, err)
		}
		if got := readStream(t, store, stream); len(got) != want {
			t.Errorf("command %d: %d events, want %d", i, len(got), want)
		}
	}
	if rows := sideRows(t, pool); len(rows) != 3+n-4 {
		t.Errorf("%d side rows, want %d", len(rows), 3+n-4)
	}
}

// A request whose claim names its key and hash puts them on its events; a repeat is answered
// from those events, and a request with another hash is refused.
func TestSubmitAnswersARepeatFromTheEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	r, store := pgRunner(t, pool)
	other, _ := pgRunner(t, pool) // another process: it reads the stream rather than its cache
	stream := counterStream("keyed")
	claim := func(hash string) *command.Claim { return keyClaim("key-1", hash) }

	first, err := command.Submit(command.WithClaim(ctx, claim("h1")), r, stream, NewCounter, eventstore.Metadata{}, plusOne)
	if err != nil {
		t.Fatal(err)
	}
	for _, runner := range []*command.Runner{r, other} {
		repeat := claim("h1")
		res, err := command.Submit(command.WithClaim(ctx, repeat), runner, stream, NewCounter, eventstore.Metadata{}, plusOne)
		if err != nil {
			t.Fatal(err)
		}
		if !res.IdempotentReplay || !repeat.Replayed() || res.Position != first.Position || len(res.Raised) != 1 {
			t.Fatalf("repeat: %+v, replayed %v; want the first request's event, position %d", res, repeat.Replayed(), first.Position)
		}
		if inc, ok := res.Raised[0].(Incremented); !ok || inc.By != 1 {
			t.Fatalf("replayed event %#v, want the decoded increment", res.Raised[0])
		}
		reuse := claim("h2")
		if _, err := command.Submit(command.WithClaim(ctx, reuse), runner, stream, NewCounter, eventstore.Metadata{}, plusOne); !errors.Is(err, command.ErrIdempotencyKeyReused) || !reuse.Reused() {
			t.Fatalf("another request with the key: err = %v, reused %v; want ErrIdempotencyKeyReused", err, reuse.Reused())
		}
	}
	if got := readStream(t, store, stream); len(got) != 1 || got[0].Metadata.IdempotencyKey != "key-1" || got[0].Metadata.RequestHash != "h1" {
		t.Fatalf("stream %+v, want the one event with the key and hash", got)
	}
}

// Earlier gives a request's checks the answer its command would give a repeat, before the
// command runs, in this process or another: the first request's events, or a refusal of another
// request with the key. Without a claim, or with a key the stream has not seen, there is none.
func TestEarlierAnswersARepeatBeforeItsCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	r, _ := pgRunner(t, pool)
	other, _ := pgRunner(t, pool)
	stream := counterStream("earlier")
	claim := keyClaim
	if _, ok, err := command.Earlier(ctx, r, stream); ok || err != nil {
		t.Fatalf("no claim: ok %v, err %v; want no answer", ok, err)
	}
	if _, ok, err := command.Earlier(command.WithClaim(ctx, claim("key-1", "h1")), r, stream); ok || err != nil {
		t.Fatalf("a key not yet used: ok %v, err %v; want no answer", ok, err)
	}
	first, err := command.Submit(command.WithClaim(ctx, claim("key-1", "h1")), r, stream, NewCounter, eventstore.Metadata{}, plusOne)
	if err != nil {
		t.Fatal(err)
	}
	for _, runner := range []*command.Runner{r, other} {
		repeat := claim("key-1", "h1")
		res, ok, err := command.Earlier(command.WithClaim(ctx, repeat), runner, stream)
		if !ok || err != nil || !res.IdempotentReplay || !repeat.Replayed() || res.Position != first.Position || len(res.Raised) != 1 {
			t.Fatalf("repeat: %+v, ok %v, err %v, replayed %v; want the first request's event, position %d", res, ok, err, repeat.Replayed(), first.Position)
		}
		reuse := claim("key-1", "h2")
		if _, ok, err := command.Earlier(command.WithClaim(ctx, reuse), runner, stream); !ok || !errors.Is(err, command.ErrIdempotencyKeyReused) || !reuse.Reused() {
			t.Fatalf("another request with the key: ok %v, err %v, reused %v; want ErrIdempotencyKeyReused", ok, err, reuse.Reused())
		}
		if _, ok, err := command.Earlier(command.WithClaim(ctx, claim("key-2", "h1")), runner, stream); ok || err != nil {
			t.Fatalf("another key: ok %v, err %v; want no answer", ok, err)
		}
	}
}

func TestSubmitNeedsAPipelineStore(t *testing.T) {
	t.Parallel()
	r := newRunner(memstore.New())
	if _, err := command.Submit(context.Background(), r, counterStream("x"), NewCounter, eventstore.Metadata{}, plusOne); !errors.Is(err, command.ErrNoPipeline) {
		t.Fatalf("err = %v, want ErrNoPipeline", err)
	}
}

// Changes carried alongside commit with the command's events, after them, even when the
// command raises nothing itself; a stale one fails the command, and nothing is stored.
func TestSubmitAppendsChangesAlongside(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	r, store := pgRunner(t, pool)
	own, other := counterStream("own"), counterStream("approval")

	alongside := func() (context.Context, *command.Alongside) {
		t.Helper()
		c, err := command.Load(ctx, r, other, NewCounter)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Increment(1); err != nil {
			t.Fatal(err)
		}
		return command.WithAlongside(ctx, command.Change{Stream: other, Aggregate: c})
	}
	actx, al := alongside()
	res, err := submitWithSide(actx, r, own, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !al.Appended() {
		t.Fatal("the changes alongside were not appended")
	}
	got := readStream(t, store, other)
	if len(got) != 1 || len(res.Events) != 2 || res.Position != got[0].Position {
		t.Fatalf("result %+v, alongside stream %+v: want both events, the position the last one's", res, got)
	}
	// A command that raises nothing still carries them.
	actx, al = alongside()
	if _, err := command.Submit(actx, r, own, NewCounter, eventstore.Metadata{}, func(*Counter, *command.Writes) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if !al.Appended() || len(readStream(t, store, other)) != 2 {
		t.Fatal("a command that raised nothing did not append the changes alongside")
	}
	// Changes decided on a version the stream has left conflict: the command stores nothing.
	actx, al = alongside()
	if _, err := command.Execute(ctx, r, other, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := submitWithSide(actx, r, own, "b"); !errors.Is(err, eventstore.ErrConcurrency) {
		t.Fatalf("err = %v, want the alongside stream's conflict", err)
	}
	if al.Appended() || len(readStream(t, store, own)) != 1 {
		t.Fatal("a command whose changes alongside conflicted stored something")
	}
	if rows := sideRows(t, pool); len(rows) != 1 {
		t.Fatalf("side rows %v, want only a", rows)
	}
}

var errTooBig = domainerr.New(domainerr.RuleBroken, "that side row is too big")

// A statement that breaks a check constraint named with OnViolation fails the command with its
// error; OnUnique does not name it.
func TestSubmitMapsAViolationNamedForIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	if _, err := pool.Exec(ctx, `ALTER TABLE side ADD CONSTRAINT side_small CHECK (n < 100)`); err != nil {
		t.Fatal(err)
	}
	r, store := pgRunner(t, pool)
	stream := counterStream("checked")
	big := func(name func(*command.Writes)) error {
		_, err := command.Submit(ctx, r, stream, NewCounter, eventstore.Metadata{}, func(c *Counter, w *command.Writes) error {
			w.Add(`INSERT INTO side (id, n) VALUES ('big', 100)`)
			name(w)
			return c.Increment(1)
		})
		return err
	}
	if err := big(func(w *command.Writes) { w.OnViolation("side_small", errTooBig) }); !errors.Is(err, errTooBig) {
		t.Fatalf("err = %v, want errTooBig", err)
	}
	if err := big(func(w *command.Writes) { w.OnUnique("side_small", errTooBig) }); err == nil || errors.Is(err, errTooBig) {
		t.Fatalf("err = %v, want the statement's own failure", err)
	}
	if got := readStream(t, store, stream); len(got) != 0 {
		t.Fatalf("stream holds %d events, want none", len(got))
	}
}

// TestSubmitWritesTheRowsOfADecisionThatRaisedNothing: a decision that raises no event but
// queues rows writes them, with a check that the stream is still at the version decided on. A
// stream that moved since the cache read it makes Submit decide again on the stream as it is,
// and only that decision's rows are written.
func TestSubmitWritesTheRowsOfADecisionThatRaisedNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	mine, store := pgRunner(t, pool)
	theirs, _ := pgRunner(t, pool)
	own := counterStream("quiet")
	seen := func(c *Counter, w *command.Writes) error {
		w.Add(`INSERT INTO side (id, n) VALUES ($1, $2)`, fmt.Sprintf("seen-%d", c.count), c.count)
		return nil
	}

	if _, err := command.Execute(ctx, mine, own, NewCounter, eventstore.Metadata{}, increment(2)); err != nil {
		t.Fatal(err)
	}
	res, err := command.Submit(ctx, mine, own, NewCounter, eventstore.Metadata{}, seen)
	if err != nil || res.Version != 1 || res.Position != 0 {
		t.Fatalf("result %+v, %v; want version 1 and no event", res, err)
	}
	if _, err := command.Execute(ctx, theirs, own, NewCounter, eventstore.Metadata{}, increment(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := command.Submit(ctx, mine, own, NewCounter, eventstore.Metadata{}, seen); err != nil {
		t.Fatal(err)
	}
	if rows := sideRows(t, pool); len(rows) != 2 || rows["seen-2"] != 2 || rows["seen-3"] != 3 {
		t.Fatalf("side rows %v, want seen-2 and seen-3: the second decision on the stream as it is", rows)
	}
	if got := readStream(t, store, own); len(got) != 2 {
		t.Fatalf("stream holds %d events, want 2", len(got))
	}
}

// TestWriteSendsRowsThatRecordNoEvent: Write sends its rows in one round trip, all or none: a
// unique violation named with OnUnique fails it with that error and leaves none of its rows,
// and a decision that queues nothing writes nothing.
func TestWriteSendsRowsThatRecordNoEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgPool(t)
	r, _ := pgRunner(t, pool)
	rows := func(ids ...string) func(*command.Writes) error {
		return func(w *command.Writes) error {
			for _, id := range ids {
				w.Add(`INSERT INTO side (id, n) VALUES ($1, 1)`, id)
			}
			w.OnUnique("side_pkey", errSideTaken)
			return nil
		}
	}
	if err := command.Write(ctx, r, rows("a", "b")); err != nil {
		t.Fatal(err)
	}
	if err := command.Write(ctx, r, rows("c", "a")); !errors.Is(err, errSideTaken) {
		t.Fatalf("err = %v, want errSideTaken", err)
	}
	if err := command.Write(ctx, r, rows()); err != nil {
		t.Fatal(err)
	}
	if got := sideRows(t, pool); len(got) != 2 || got["a"] != 1 || got["b"] != 1 {
		t.Fatalf("side rows %v, want a and b only: the refused write leaves none of its rows", got)
	}
}

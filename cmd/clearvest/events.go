package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/aggregate"
	"clearvest/eventstore"
	"clearvest/eventstore/postgres"
)

const eventsUsage = `Usage:
  clearvest events export --stream S | --all [--after POS]
  clearvest events verify
  clearvest events books [--position POS]

  export   write events to standard output as JSON lines, one object per event:
           position, eventId, streamId, version, type, schemaVersion, recordedAt, metadata, data
             --stream S    one stream, in version order
             --all         the whole log, in position order
             --after POS   with --all: only events after global position POS (resume an export)
  verify   read the whole log and check that every event decodes with this binary's registry,
           that every stream's versions run 1, 2, 3... without gaps, that positions strictly
           increase, and the ledger checks (replayed from the log: every money event's postings
           and the whole trial balance sum to zero, no user account ever goes below zero, the
           books agree with each user's account, every money event is one the account's rules
           would have raised from the state before it, and the ledger read model's figures
           equal the replay as of its checkpoint); exits 1 and lists the failures when one fails
  books    fold every money event of the log up to global position POS (default: the head)
           with the double-entry rules and print the trial balance (every account's debit or
           credit balance, the totals) and the reconciliation deposits received - payouts sent
           = investor liabilities + platform equity; exits 1 unless the books balance and the
           difference is zero

No command writes to the database; run clearvest migrate first on a new database.
`

// pageSize bounds memory on any log size while keeping round trips few.
const pageSize = 1000

func runEvents(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: events: missing subcommand (export, verify or books)", errUsage)
	}
	sub := args[0]
	fs := flag.NewFlagSet("events "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var export exportOptions
	var position int64
	switch sub {
	case "export":
		fs.Func("stream", "export one stream", func(s string) error {
			export.Stream = eventstore.StreamID(s)
			return nil
		})
		fs.BoolVar(&export.All, "all", false, "export the whole log")
		fs.Int64Var(&export.After, "after", 0, "with --all: start after this position")
	case "verify":
	case "books":
		fs.Int64Var(&position, "position", 0, "the books as of this global position (0: the head)")
	case "help", "-h", "--help":
		fmt.Fprint(stdout, eventsUsage)
		return nil
	default:
		return fmt.Errorf("%w: events: unknown subcommand %q (want export, verify or books)", errUsage, sub)
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, eventsUsage)
			return nil
		}
		return fmt.Errorf("%w: events %s: %v", errUsage, sub, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: events %s: unexpected argument %q", errUsage, sub, fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) { export.afterSet = export.afterSet || f.Name == "after" })
	if sub == "export" {
		// Checked before connecting, so a typo does not first start a database.
		if err := export.validate(); err != nil {
			return err
		}
	}

	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	pool, _, closeDB, err := openDatabase(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := requireSchema(ctx, pool, postgres.Migrations); err != nil {
		return err
	}
	// Readers of a restored log that was not repaired see only part of it; a partial export or
	// audit must not pass for a whole one.
	if err := postgres.CheckPositions(ctx, pool); err != nil {
		return fmt.Errorf("%w: run clearvest migrate first", err)
	}
	store := postgres.New(pool, postgres.WithLogger(logger))
	defer store.Close()

	if sub == "export" {
		n, err := exportEvents(ctx, store, stdout, export)
		if err != nil {
			return err
		}
		// On stderr: standard output carries nothing but the events.
		logger.Info("events exported", "events", n)
		return nil
	}
	codec, _, err := newCodec(ctx, pool, cfg)
	if err != nil {
		return err
	}
	if sub == "books" {
		return printBooks(ctx, pool, store, codec, position, stdout)
	}
	relaxGC()
	verifiers, err := extraVerifiers(ctx, pool, codec)
	if err != nil {
		return err
	}
	for _, v := range verifiers {
		if c, ok := v.(interface{ Close() }); ok {
			defer c.Close() // a run that stops early still gives back what the verifier holds
		}
	}
	return verifyEvents(ctx, store, codec, stdout, verifyOptions{Now: time.Now(), Verifiers: verifiers})
}

// exportOptions selects what `events export` writes: exactly one of Stream and All.
type exportOptions struct {
	Stream   eventstore.StreamID // one stream, in version order
	All      bool                // the whole log, in position order
	After    int64               // with All: only events with a higher position
	afterSet bool                // --after given explicitly, so it cannot be combined with --stream
}

func (o exportOptions) validate() error {
	switch {
	case o.Stream != "" && o.All:
		return fmt.Errorf("%w: events export: give --stream or --all, not both", errUsage)
	case o.Stream == "" && !o.All:
		return fmt.Errorf("%w: events export: give --stream S or --all", errUsage)
	case o.Stream != "" && (o.afterSet || o.After != 0):
		return fmt.Errorf("%w: events export: --after goes with --all (a stream is always exported whole)", errUsage)
	case o.After < 0:
		return fmt.Errorf("%w: events export: --after must be a position >= 0", errUsage)
	}
	if o.Stream != "" {
		if err := o.Stream.Validate(); err != nil {
			return fmt.Errorf("%w: events export: %v", errUsage, err)
		}
	}
	return nil
}

// exportedEvent is the JSON-lines shape of an event. It is a public format (auditors keep these
// files), so fields are only ever added.
type exportedEvent struct {
	Position      int64               `json:"position"`
	EventID       uuid.UUID           `json:"eventId"`
	StreamID      eventstore.StreamID `json:"streamId"`
	Version       int64               `json:"version"`
	Type          string              `json:"type"`
	SchemaVersion int                 `json:"schemaVersion"`
	RecordedAt    string              `json:"recordedAt"`
	Metadata      eventstore.Metadata `json:"metadata"`
	Data          json.RawMessage     `json:"data"`
}

// exportEvents writes the selected events to w as JSON lines and returns how many it wrote.
// Data is written as stored, undecoded: an export must be faithful even for types this binary
// no longer knows.
func exportEvents(ctx context.Context, store eventstore.Store, w io.Writer, opts exportOptions) (int, error) {
	if err := opts.validate(); err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	// Payloads may hold "<" or "&" (names, reasons); escaping them would make the export differ
	// from the stored text for no benefit outside HTML.
	enc.SetEscapeHTML(false)
	n := 0
	write := func(page []eventstore.Envelope) error {
		for _, e := range page {
			err := enc.Encode(exportedEvent{
				Position: e.Position, EventID: e.ID, StreamID: e.StreamID, Version: e.Version,
				Type: e.Type, SchemaVersion: e.SchemaVersion,
				RecordedAt: e.RecordedAt.UTC().Format(time.RFC3339Nano),
				Metadata:   e.Metadata, Data: e.Data,
			})
			if err != nil {
				return fmt.Errorf("events export: event %s at position %d: %w", e.ID, e.Position, err)
			}
			n++
		}
		return nil
	}
	if opts.All {
		for after := opts.After; ; {
			page, err := store.ReadAll(ctx, after, pageSize)
			if err != nil {
				return n, err
			}
			if err := write(page); err != nil {
				return n, err
			}
			if len(page) < pageSize {
				break
			}
			after = page[len(page)-1].Position
		}
	} else {
		for from := int64(1); ; {
			page, err := store.ReadStream(ctx, opts.Stream, from, pageSize)
			if err != nil {
				return n, err
			}
			if err := write(page); err != nil {
				return n, err
			}
			if len(page) < pageSize {
				break
			}
			from = page[len(page)-1].Version + 1
		}
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("events export: %w", err)
	}
	return n, nil
}

// verifyOptions configures `events verify`.
type verifyOptions struct {
	// Now is the verifier's clock: an event recorded more than maxClockSkew after it means a
	// writer's clock (or a hand-made row) is wrong.
	Now       time.Time
	Verifiers []logVerifier
}

// maxClockSkew tolerates ordinary clock drift between database servers and this process.
const maxClockSkew = 5 * time.Minute

// maxListedFailures keeps the report readable; a systematic fault would otherwise print one line
// per event of the log.
const maxListedFailures = 20

type failureList struct {
	total  int
	listed []string
}

func (f *failureList) add(format string, args ...any) {
	f.total++
	if len(f.listed) < maxListedFailures {
		f.listed = append(f.listed, fmt.Sprintf(format, args...))
	}
}

// streamVersions checks that a stream's versions are exactly 1..n. They are tracked as a set,
// not as a sequence: read-all order is position order, and an append with eventstore.AnyVersion
// can take a lower position than an earlier-committed append to the same stream (its
// transaction started first but waited for the stream's row lock), so versions of one stream
// may legitimately arrive out of order.
type streamVersions struct {
	next  int64          // lowest version not seen yet
	ahead map[int64]bool // versions seen above next; empty once the stream is gap-free so far
}

func (s *streamVersions) see(v int64) (duplicate bool) {
	if v < s.next || s.ahead[v] {
		return true
	}
	if v != s.next {
		if s.ahead == nil {
			s.ahead = map[int64]bool{}
		}
		s.ahead[v] = true
		return false
	}
	for s.next++; s.ahead[s.next]; s.next++ {
		delete(s.ahead, s.next)
	}
	return false
}

// verifyEvents replays the whole log and writes a summary to w. It returns an error when any
// check fails, after listing the first failures.
func verifyEvents(ctx context.Context, store eventstore.Store, registry *eventstore.Registry, w io.Writer, opts verifyOptions) error {
	var (
		fails   failureList
		streams = map[eventstore.StreamID]*streamVersions{}
		types   = map[string]bool{}
		count   int
		last    int64
	)
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	latest := opts.Now.Add(maxClockSkew)
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	later := decodedLater(opts.Verifiers)
	pages, readErr := readAhead(readCtx, store, later)
	for page := range pages {
		for i, e := range page {
			count++
			types[e.Type] = true
			at := eventAt(&page[i])
			if e.Position <= last {
				fails.add("%s: comes after position %d; read-all order must strictly increase", at, last)
			}
			last = max(last, e.Position)
			checkEnvelope(&fails, at, e, latest)

			sv := streams[e.StreamID]
			if sv == nil {
				sv = &streamVersions{next: 1}
				streams[e.StreamID] = sv
			}
			if e.Version >= 1 && sv.see(e.Version) {
				fails.add("%s: stream %s has version %d twice", at, e.StreamID, e.Version)
			}

			if !registry.Known(e.Type) {
				fails.add("%s: unknown event type %q: no registered Go type decodes it", at, e.Type)
				continue
			}
			if slices.Contains(later, e.StreamID.Category()) {
				// Decoded, and its metadata opened, when its stream is read again: once is enough.
				for _, v := range opts.Verifiers {
					for _, err := range joined(v.Observe(e, nil)) {
						fails.add("%s: %s: %v", at, v.Name(), err)
					}
				}
				continue
			}
			ev, err := registry.Decode(e)
			if err != nil {
				fails.add("%s: does not decode: %v", at, err)
				continue
			}
			if _, err := registry.OpenMetadata(e); err != nil {
				fails.add("%s: metadata does not open: %v", at, err)
			}
			for _, v := range opts.Verifiers {
				for _, err := range joined(v.Observe(e, ev)) {
					fails.add("%s: %s: %v", at, v.Name(), err)
				}
			}
		}
	}
	if err := <-readErr; err != nil {
		return err
	}

	ids := make([]eventstore.StreamID, 0, len(streams))
	for id := range streams {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if sv := streams[id]; len(sv.ahead) > 0 {
			top := int64(0)
			for v := range sv.ahead {
				top = max(top, v)
			}
			fails.add("stream %s: version %d is missing (the stream goes up to %d)", id, sv.next, top)
		}
	}
	for _, v := range opts.Verifiers {
		if sv, ok := v.(streamVerifier); ok {
			checks := func(stream eventstore.StreamID) bool { return rereaderOf(opts.Verifiers, stream) == sv }
			if err := verifyStreams(ctx, store, registry, &fails, sv, last, checks); err != nil {
				return err
			}
		}
		for _, err := range joined(v.Finish()) {
			fails.add("%s: %v", v.Name(), err)
		}
	}

	summary := fmt.Sprintf("verified %d events in %d streams, %d types", count, len(streams), len(types))
	if fails.total == 0 {
		_, err := fmt.Fprintf(w, "%s; OK\n", summary)
		return err
	}
	fmt.Fprintf(w, "%s; %d failed:\n", summary, fails.total)
	for _, f := range fails.listed {
		fmt.Fprintf(w, "  %s\n", f)
	}
	if more := fails.total - len(fails.listed); more > 0 {
		fmt.Fprintf(w, "  ... and %d more\n", more)
	}
	return fmt.Errorf("events verify: %d failed checks", fails.total)
}

// payloadSkipper is a store that can read the log without the data and metadata of some
// streams' events (postgres.Store).
type payloadSkipper interface {
	ReadAllWithoutPayloads(ctx context.Context, after int64, limit int, categories []string) ([]eventstore.Envelope, error)
}

// readAhead reads the whole log in position order, a page at a time, one page ahead of the
// caller: the database serves the next page while the last one is checked, where taking turns
// left each side idle half the time. The events of the streams of the bare categories are read
// without their data and metadata when the store can: the first read only notes them. The error
// channel yields once, after pages closes.
func readAhead(ctx context.Context, store eventstore.Store, bare []string) (<-chan []eventstore.Envelope, <-chan error) {
	read := store.ReadAll
	if skipper, ok := store.(payloadSkipper); ok && len(bare) > 0 {
		read = func(ctx context.Context, after int64, limit int) ([]eventstore.Envelope, error) {
			return skipper.ReadAllWithoutPayloads(ctx, after, limit, bare)
		}
	}
	pages := make(chan []eventstore.Envelope, 1)
	done := make(chan error, 1)
	go func() {
		defer close(done)
		defer close(pages)
		var after int64
		for {
			page, err := read(ctx, after, pageSize)
			if err != nil {
				done <- err
				return
			}
			for _, e := range page {
				after = max(after, e.Position)
			}
			select {
			case pages <- page:
			case <-ctx.Done():
				done <- ctx.Err()
				return
			}
			if len(page) < pageSize {
				return
			}
		}
	}()
	return pages, done
}

// decodedLater lists the stream categories whose events are decoded in the second read rather
// than the first: those a stream verifier reads again anyway, when every verifier is one (a
// stream verifier's Observe only notes the streams, so it is handed no event). Decoding money
// events once instead of twice is most of what the second read would otherwise add.
func decodedLater(verifiers []logVerifier) []string {
	var categories []string
	for _, v := range verifiers {
		sv, ok := v.(streamVerifier)
		if !ok {
			return nil
		}
		categories = append(categories, sv.Rereads())
	}
	return categories
}

// rereaderOf is the first stream verifier that reads stream again, nil if none: the one whose
// second read reports the stream's events that do not decode when decodedLater holds.
func rereaderOf(verifiers []logVerifier, stream eventstore.StreamID) streamVerifier {
	for _, v := range verifiers {
		if sv, ok := v.(streamVerifier); ok && sv.Rereads() == stream.Category() {
			return sv
		}
	}
	return nil
}

// streamPage is one page of a stream read again: the events that decoded, in events beside their
// envelopes. end marks the stream's last page. failed lists the events left out for not
// decoding, when this read is the one to report them (report).
type streamPage struct {
	stream eventstore.StreamID
	envs   []eventstore.Envelope
	events []aggregate.Event
	failed []string
	report bool
	end    bool
}

// streamSlot is one stream of the second read: its reader sends the stream's pages, in version
// order, and closes pages after the last.
type streamSlot struct {
	read  streamRead
	pages chan *streamPage
}

// verifyStreams reads the streams v names again, oldest version first, and hands their events
// up to position last (what the read in position order covered) to v, stream after stream in
// the order v named them. Several readers, each on a connection of its own, read and decode
// streams at once, since a reader waits for the database as long as it works; v checks their
// pages in order. At most a few streams are ahead of v, each with at most two pages read. For
// the streams reports names, the first read left decoding to this one (decodedLater), which then
// reports the events that do not decode or whose metadata does not open.
func verifyStreams(ctx context.Context, store eventstore.Store, registry *eventstore.Registry, fails *failureList, v streamVerifier, last int64,
	reports func(eventstore.StreamID) bool) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	readers := runtime.GOMAXPROCS(0) + 1
	inOrder := make(chan *streamSlot, 2*readers) // to v, in the streams' order
	toRead := make(chan *streamSlot)             // to the readers
	var (
		readErr  error
		failOnce sync.Once
	)
	fail := func(err error) {
		failOnce.Do(func() { readErr = err; cancel() })
	}
	go func() {
		defer close(inOrder)
		defer close(toRead)
		for _, r := range v.Streams() {
			slot := &streamSlot{read: r, pages: make(chan *streamPage, 2)}
			// In order first: a slot any reader holds is one v will come to.
			for _, ch := range []chan *streamSlot{inOrder, toRead} {
				select {
				case ch <- slot:
				case <-ctx.Done():
					close(slot.pages)
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			for slot := range toRead {
				send := func(p *streamPage) error {
					decodePage(registry, p)
					select {
					case slot.pages <- p:
						return nil
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				if err := readStream(ctx, store, registry, slot.read, last, reports(slot.read.Stream), send); err != nil {
					fail(err)
				}
				close(slot.pages)
			}
		})
	}
	for slot := range inOrder {
		for p := range slot.pages {
			for _, f := range p.failed {
				fails.add("%s", f)
			}
			for i, e := range p.envs {
				at := eventAt(&p.envs[i])
				for _, err := range joined(v.ObserveStream(e, p.events[i])) {
					fails.add("%s: %s: %v", at, v.Name(), err)
				}
			}
			if p.end {
				for _, err := range joined(v.EndStream(p.stream)) {
					fails.add("%s: %v", v.Name(), err)
				}
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	cancel() // the readers and the dispatcher stop, if a failure left them anything
	wg.Wait()
	if readErr != nil {
		return readErr
	}
	return parent.Err()
}

// readStream sends r's stream, by version, to send, leaving out events after position last and
// those of unknown types. The first read reported those; it reported the events that do not
// decode too, unless it left decoding to this one (report): then this read does, with the
// metadata check the first read would have made.
func readStream(ctx context.Context, store eventstore.Store, registry *eventstore.Registry, r streamRead, last int64, report bool, send func(*streamPage) error) error {
	from := r.FromVersion
	// Pages overlap by one version: a version stored twice (reported by the first read) may
	// straddle a page boundary, and both of its events must still be seen, once.
	var boundary map[int64]bool // positions already sent at version from
	for {
		page, err := store.ReadStream(ctx, r.Stream, from, pageSize)
		if err != nil {
			return err
		}
		out := &streamPage{stream: r.Stream, report: report, envs: page[:0]}
		next := map[int64]bool{}
		top := from
		for _, e := range page {
			if e.Version > top {
				top, next = e.Version, map[int64]bool{}
			}
			next[e.Position] = true // page order is version order: e is at version top
			if e.Version == from && boundary[e.Position] {
				continue
			}
			if e.Position > last || !registry.Known(e.Type) {
				continue
			}
			out.envs = append(out.envs, e) // in place: never ahead of the element read
		}
		out.end = len(page) < pageSize
		if err := send(out); err != nil {
			return err
		}
		if out.end {
			return nil
		}
		if top == from && len(next) == len(boundary) {
			from++ // a whole page of one version, all sent before
			boundary = nil
			continue
		}
		from, boundary = top, next
	}
}

// decodePage decodes p's events, keeping those that decode, and notes the failures when p's
// read is the one to report them.
func decodePage(registry *eventstore.Registry, p *streamPage) {
	kept := p.envs[:0]
	p.events = make([]aggregate.Event, 0, len(p.envs))
	for j := range p.envs {
		e := &p.envs[j]
		ev, err := registry.Decode(*e)
		if err != nil {
			if p.report {
				p.failed = append(p.failed, fmt.Sprintf("%s: does not decode: %v", eventAt(e), err))
			}
			continue
		}
		if p.report {
			if _, err := registry.OpenMetadata(*e); err != nil {
				p.failed = append(p.failed, fmt.Sprintf("%s: metadata does not open: %v", eventAt(e), err))
			}
		}
		kept = append(kept, *e)
		p.events = append(p.events, ev)
	}
	p.envs = kept
}

// eventAt names an event in a failure: where it is in the log and in its stream, and its type.
// The name is written out only for a failure that is listed: on a log of millions of events,
// formatting it for every event took a twentieth of verify's time.
func eventAt(e *eventstore.Envelope) fmt.Stringer { return where{e} }

type where struct{ e *eventstore.Envelope }

func (w where) String() string {
	return fmt.Sprintf("position %d (%s v%d, %s)", w.e.Position, w.e.StreamID, w.e.Version, w.e.Type)
}

// joined splits an error made with errors.Join into its parts, so that each is listed as a
// failure of its own; nil gives none.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// checkEnvelope checks what every stored event must satisfy whatever its type. A store enforces
// all of it on append; finding a violation means rows were written around the store.
func checkEnvelope(fails *failureList, at fmt.Stringer, e eventstore.Envelope, latest time.Time) {
	if err := e.StreamID.Validate(); err != nil {
		fails.add("%s: %v", at, err)
	}
	if e.Position <= 0 {
		fails.add("%s: position must be positive", at)
	}
	if e.Version < 1 {
		fails.add("%s: version must be >= 1", at)
	}
	if e.ID == uuid.Nil {
		fails.add("%s: event id is empty", at)
	}
	if e.SchemaVersion < 1 {
		fails.add("%s: schema version %d must be >= 1", at, e.SchemaVersion)
	}
	switch {
	case e.RecordedAt.IsZero():
		fails.add("%s: recorded_at is missing", at)
	case e.RecordedAt.After(latest):
		fails.add("%s: recorded_at %s is in the future", at, e.RecordedAt.UTC().Format(time.RFC3339Nano))
	}
}

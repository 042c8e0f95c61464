package postgres

import (
	"encoding/json"
	"testing"

	"clearvest/eventstore"
)

// FuzzDecodeMetadata holds the fast metadata parser to encoding/json: for any input both accept,
// they must agree, and anything the store itself writes must take the fast path's answer.
func FuzzDecodeMetadata(f *testing.F) {
	full, _ := json.Marshal(eventstore.Metadata{CorrelationID: "c", CausationID: "k", ActorID: "u1", ActorRole: "admin",
		ImpersonatorID: "u9", IdempotencyKey: "idem", RequestHash: "h", ClientIP: "127.0.0.1"})
	for _, seed := range []string{string(full), `{}`, `{"actorId":"a\"b\\u00e9"}`, `{"clientIp": "::1" }`, `{"actorId":"u1","clientIp":"pii:v1:q8+/Zm9v=="}`,
		`{"actorId":1}`, `{"unknown":"x","actorId":"y"}`, `[]`, `null`, `{"actorId":"a","actorId":"b"}`, `{"actorId":"\ud83d\ude00"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want eventstore.Metadata
		wantErr := json.Unmarshal(b, &want)
		var got eventstore.Metadata
		gotErr := decodeMetadata(b, &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("decodeMetadata(%q) error = %v, encoding/json error = %v", b, gotErr, wantErr)
		}
		if wantErr == nil && got != want {
			t.Fatalf("decodeMetadata(%q) = %+v, encoding/json = %+v", b, got, want)
		}
	})
}

func TestDecodeMetadataRoundTripsWhatTheStoreWrites(t *testing.T) {
	in := eventstore.Metadata{CorrelationID: "0191-ab", ActorID: "user \"quoted\" é", ClientIP: "2001:db8::1", RequestHash: "sha256:ff"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out eventstore.Metadata
	if err := decodeMetadata(b, &out); err != nil || out != in {
		t.Fatalf("round trip = %+v, %v; want %+v", out, err, in)
	}
}

// FuzzAppendMetadata holds the metadata encoder to encoding/json: both must decode to the same
// metadata, whatever the field values.
func FuzzAppendMetadata(f *testing.F) {
	f.Add("c", "k", "u1", "admin", "", "idem", "sha256:ff", "127.0.0.1")
	f.Add("", "", "user \"quoted\" é", "", "\x00", "a\\b", "<&>", "\u2028")
	f.Fuzz(func(t *testing.T, correlation, causation, actor, role, impersonator, key, hash, ip string) {
		in := eventstore.Metadata{CorrelationID: correlation, CausationID: causation, ActorID: actor, ActorRole: role,
			ImpersonatorID: impersonator, IdempotencyKey: key, RequestHash: hash, ClientIP: ip}
		want, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		got := appendMetadata(nil, &in)
		var fromGot, fromWant eventstore.Metadata
		if err := json.Unmarshal(got, &fromGot); err != nil {
			t.Fatalf("appendMetadata wrote invalid JSON %q: %v", got, err)
		}
		if err := json.Unmarshal(want, &fromWant); err != nil {
			t.Fatal(err)
		}
		if fromGot != fromWant {
			t.Fatalf("appendMetadata(%+v) = %q decodes to %+v; encoding/json's %q to %+v", in, got, fromGot, want, fromWant)
		}
	})
}

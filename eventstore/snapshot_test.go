package eventstore_test

import (
	"bytes"
	"errors"
	"testing"

	"clearvest/eventstore"
)

func TestASnapshotsStateIsSealedForItsStreamsSubject(t *testing.T) {
	stream := eventstore.NewStreamID("account", "u1")
	state := []byte{0, 1, 2, 'p', 'i', 'i', ':', 127}

	plain := eventstore.NewRegistry()
	kept, err := plain.SealState(stream, state)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := plain.OpenState(stream, kept); err != nil || !bytes.Equal(got, state) {
		t.Fatalf("without a cipher: %v, %v", got, err)
	}

	c := newFakeCipher()
	sealing := eventstore.NewRegistry()
	sealing.SetCipher(c)
	kept, err = sealing.SealState(stream, state)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(kept, state) || len(c.sealed) != 1 || c.sealed[0] != "u1" {
		t.Fatalf("the state was not sealed for u1: %q, sealed for %v", kept, c.sealed)
	}
	if got, err := sealing.OpenState(stream, kept); err != nil || !bytes.Equal(got, state) {
		t.Fatalf("sealed: %v, %v", got, err)
	}
	if _, err := plain.OpenState(stream, kept); !errors.Is(err, eventstore.ErrNoCipher) {
		t.Errorf("a sealed state opened without a cipher: %v", err)
	}
	if _, err := sealing.OpenState(eventstore.NewStreamID("account", "u2"), kept); err == nil {
		t.Error("u1's state opened as u2's")
	}
	c.erased["u1"] = true
	if _, err := sealing.OpenState(stream, kept); !errors.Is(err, eventstore.ErrErased) {
		t.Errorf("an erased subject's state: %v", err)
	}
	if _, err := sealing.SealState(stream, state); !errors.Is(err, eventstore.ErrErased) {
		t.Errorf("a snapshot was sealed for an erased subject: %v", err)
	}
	for _, bad := range [][]byte{nil, {7, 1}} {
		if _, err := sealing.OpenState(stream, bad); err == nil {
			t.Errorf("%v opened", bad)
		}
	}
}

// binaryCipher is fakeCipher that also seals bytes as bytes, as pii.Cipher does.
type binaryCipher struct{ *fakeCipher }

func (c binaryCipher) SealBytes(subject string, plaintext []byte) ([]byte, error) {
	s, err := c.Seal(subject, string(plaintext))
	return []byte(s), err
}

func (c binaryCipher) OpenBytes(subject string, sealed []byte) ([]byte, error) {
	s, err := c.Open(subject, string(sealed))
	return []byte(s), err
}

// A cipher that seals bytes keeps the state as bytes, and still opens a state an earlier
// snapshot sealed as text; a cipher that cannot open bytes refuses a state sealed so.
func TestASnapshotsStateIsSealedAsBytesWhenTheCipherCan(t *testing.T) {
	stream := eventstore.NewStreamID("account", "u1")
	state := []byte{0, 1, 2, 'p', 'i', 'i', ':', 127}
	text, binary := eventstore.NewRegistry(), eventstore.NewRegistry()
	text.SetCipher(newFakeCipher())
	binary.SetCipher(binaryCipher{newFakeCipher()})

	asBytes, err := binary.SealState(stream, state)
	if err != nil {
		t.Fatal(err)
	}
	asText, err := text.SealState(stream, state)
	if err != nil {
		t.Fatal(err)
	}
	if asBytes[0] == asText[0] {
		t.Fatalf("both kept as %d", asBytes[0])
	}
	for name, kept := range map[string][]byte{"bytes": asBytes, "text": asText} {
		if got, err := binary.OpenState(stream, kept); err != nil || !bytes.Equal(got, state) {
			t.Errorf("sealed as %s, opened with the binary cipher: %v, %v", name, got, err)
		}
	}
	if _, err := text.OpenState(stream, asBytes); !errors.Is(err, eventstore.ErrNoCipher) {
		t.Errorf("sealed as bytes, opened by a cipher that cannot: %v", err)
	}
}

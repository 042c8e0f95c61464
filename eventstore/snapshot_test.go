package eventstore_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
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

// binaryCipher is fakeCipher that also seals bytes as bytes, as pii.Cipher does. The bytes go
// through the fake's text as hex, which its reversal of characters keeps intact.
type binaryCipher struct{ *fakeCipher }

func (c binaryCipher) SealBytes(subject string, plaintext []byte) ([]byte, error) {
	s, err := c.Seal(subject, hex.EncodeToString(plaintext))
	return []byte(s), err
}

func (c binaryCipher) OpenBytes(subject string, sealed []byte) ([]byte, error) {
	s, err := c.Open(subject, string(sealed))
	if err != nil {
		return nil, err
	}
	return hex.DecodeString(s)
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

// A state is compressed before it is sealed: a long account's state repeats its assets,
// networks, addresses and staff ids on every request, and a snapshot is read whole on every cold
// load of its stream. The formats of earlier snapshots still open, and damaged compressed bytes
// fail the snapshot (which is then ignored) rather than the process.
func TestASnapshotsStateIsCompressedBeforeItIsSealed(t *testing.T) {
	stream := eventstore.NewStreamID("account", "u1")
	var state []byte
	for i := range 2000 {
		state = fmt.Appendf(state, "deposit-%06d|USDT|TRC20|TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE|Confirmed|staff-1|", i)
	}
	plain, sealing := eventstore.NewRegistry(), eventstore.NewRegistry()
	c := binaryCipher{newFakeCipher()}
	sealing.SetCipher(c)
	for name, reg := range map[string]*eventstore.Registry{"without a cipher": plain, "sealed": sealing} {
		kept, err := reg.SealState(stream, state)
		if err != nil {
			t.Fatal(err)
		}
		// The fake cipher doubles what it seals (hex): a third is still far below the state.
		if len(kept) > len(state)/3 {
			t.Errorf("%s: %d bytes kept for a %d-byte state", name, len(kept), len(state))
		}
		if got, err := reg.OpenState(stream, kept); err != nil || !bytes.Equal(got, state) {
			t.Errorf("%s: opened %d bytes, %v", name, len(got), err)
		}
	}

	sealedRaw, err := c.SealBytes("u1", state)
	if err != nil {
		t.Fatal(err)
	}
	earlier := map[string][]byte{
		"kept as it was":                append([]byte{0}, state...),
		"sealed as bytes, uncompressed": append([]byte{2}, sealedRaw...),
	}
	for name, kept := range earlier {
		if got, err := sealing.OpenState(stream, kept); err != nil || !bytes.Equal(got, state) {
			t.Errorf("an earlier snapshot %s: opened %d bytes, %v", name, len(got), err)
		}
	}

	compressed, err := plain.SealState(stream, state)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(compressed)
	damaged[len(damaged)/2] ^= 0xff
	sealedGarbage, err := c.SealBytes("u1", []byte("not zstd"))
	if err != nil {
		t.Fatal(err)
	}
	for name, kept := range map[string][]byte{
		"truncated": compressed[:len(compressed)/2], "damaged": damaged,
		"not compressed": append([]byte{3}, state...), "sealed, not compressed": append([]byte{4}, sealedGarbage...),
	} {
		if got, err := sealing.OpenState(stream, kept); err == nil {
			t.Errorf("a %s state opened: %d bytes", name, len(got))
		}
	}
}

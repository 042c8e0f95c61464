package reference_test

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"clearvest/domain/reference"
)

// v7 makes an id the way uuid.NewV7 does: 48 bits of milliseconds, then random bits.
func v7() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(time.Now().UnixMilli()))
	copy(b[:6], ms[2:])
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func TestKnownReferences(t *testing.T) {
	id := "0b7e4a52-6f1c-4c37-9d1e-2f9a8c3b5d10"
	got := reference.For(reference.Deposit, id)
	if !strings.HasPrefix(got, "DEP-") || len(got) != 12 {
		t.Fatalf("For(Deposit) = %q, want DEP- and 8 characters", got)
	}
	// The same id in another spelling names the same movement.
	if again := reference.For(reference.Deposit, strings.ToUpper(id)); again != got {
		t.Fatalf("upper-case id gives %q, want %q", again, got)
	}
	if again := reference.For(reference.Deposit, "{"+id+"}"); again != got {
		t.Fatalf("braced id gives %q, want %q", again, got)
	}
	if again := reference.For(reference.Deposit, "urn:uuid:"+id); again != got {
		t.Fatalf("urn id gives %q, want %q", again, got)
	}
	// Another kind of the same id differs only by its prefix.
	if w := reference.For(reference.Withdrawal, id); w != "WDR-"+got[4:] {
		t.Fatalf("For(Withdrawal) = %q, want WDR-%s", w, got[4:])
	}
	// A pinned value: references are printed on statements, they must never change.
	if got := reference.For(reference.Investment, "00000000-0000-0000-0000-000000000000"); got != "INV-"+pinned {
		t.Fatalf("For(Investment, nil UUID) = %q, want INV-%s", got, pinned)
	}
}

// pinned is the code of the nil UUID (worked out independently of this package).
const pinned = "6X3GHZZQ"

func TestV7IdsMadeTogetherDiffer(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		ref := reference.For(reference.Bonus, v7())
		if seen[ref] {
			t.Fatalf("%s given twice among 10000 ids made in a row", ref)
		}
		seen[ref] = true
	}
}

func TestKindOfRefusesWhatIsNotAReference(t *testing.T) {
	for _, s := range []string{"", "DEP", "DEP-", "DEP-1234567", "DEP-123456789", "XYZ-12345678", "DEP-1234567I",
		"DEP-1234567O", "DEP-1234567U", "DEP-1234567L", "DEP_12345678", "0b7e4a52-6f1c-4c37-9d1e-2f9a8c3b5d10"} {
		if k, err := reference.KindOf(s); err == nil {
			t.Errorf("KindOf(%q) = %q, want an error", s, k)
		}
	}
	if k, err := reference.KindOf(" wdr-0123abcd "); err != nil || k != reference.Withdrawal {
		t.Errorf("KindOf(typed in lower case) = %q, %v", k, err)
	}
}

// FuzzReference checks the properties of every reference: the same id always gives the same
// reference, its prefix is its kind, KindOf reads the kind back, and the code holds only
// unambiguous characters.
func FuzzReference(f *testing.F) {
	f.Add("0b7e4a52-6f1c-4c37-9d1e-2f9a8c3b5d10", 0)
	f.Add("", 3)
	f.Add("not a uuid at all", 4)
	f.Add(v7(), 2)
	f.Fuzz(func(t *testing.T, id string, k int) {
		kind := reference.Kinds[(k%len(reference.Kinds)+len(reference.Kinds))%len(reference.Kinds)]
		ref := reference.For(kind, id)
		if again := reference.For(kind, id); again != ref {
			t.Fatalf("For is not deterministic: %q then %q", ref, again)
		}
		if !strings.HasPrefix(ref, string(kind)+"-") || len(ref) != len(kind)+1+8 {
			t.Fatalf("For(%s, %q) = %q", kind, id, ref)
		}
		if strings.ContainsAny(ref[4:], "ILOU") {
			t.Fatalf("%q holds an ambiguous letter", ref)
		}
		got, err := reference.KindOf(ref)
		if err != nil || got != kind {
			t.Fatalf("KindOf(%q) = %q, %v; want %q", ref, got, err, kind)
		}
	})
}

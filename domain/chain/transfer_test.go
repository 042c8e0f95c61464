package chain

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"
	"time"
)

func TestConfirmations(t *testing.T) {
	cases := []struct{ tip, height, want uint64 }{
		{10, 10, 1}, {12, 10, 3}, {9, 10, 0}, {10, 0, 0},
	}
	for _, c := range cases {
		if got := Confirmations(c.tip, c.height); got != c.want {
			t.Errorf("Confirmations(%d,%d) = %d, want %d", c.tip, c.height, got, c.want)
		}
	}
	if Confirmed(11, 10, 3) {
		t.Error("2 confirmations counted as 3")
	}
	if !Confirmed(12, 10, 3) {
		t.Error("3 confirmations not counted as 3")
	}
	if Confirmed(9, 10, 0) {
		t.Error("a transfer above the tip was confirmed with needed 0")
	}
}

func TestForkPoint(t *testing.T) {
	recorded := []Ref{{10, "a10"}, {11, "a11"}, {12, "a12"}, {13, "a13"}}
	best := map[uint64]string{10: "a10", 11: "a11", 12: "b12", 13: "b13", 14: "b14"}
	onChain := func(h uint64) (string, error) { return best[h], nil }
	got, err := ForkPoint(recorded, onChain)
	if err != nil || got != (Ref{11, "a11"}) {
		t.Fatalf("ForkPoint = %v, %v; want {11 a11}", got, err)
	}
	best[10] = "c10"
	best[11] = "c11"
	if _, err := ForkPoint(recorded, onChain); !errors.Is(err, ErrForkTooDeep) {
		t.Fatalf("ForkPoint with no common block: err %v, want ErrForkTooDeep", err)
	}
	boom := errors.New("node down")
	if _, err := ForkPoint(recorded, func(uint64) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("node error not returned: %v", err)
	}
}

// A random chain with random reorganisations: the fork point ForkPoint finds is exactly the
// highest height at which the old and the new chain agree.
func FuzzForkPoint(f *testing.F) {
	f.Add(int64(1), uint8(5), uint8(2))
	f.Add(int64(7), uint8(20), uint8(19))
	f.Fuzz(func(t *testing.T, seed int64, length, depth uint8) {
		n := uint64(length%40) + 1
		d := uint64(depth) % (n + 1)
		r := rand.New(rand.NewSource(seed))
		old := map[uint64]string{}
		var recorded []Ref
		for h := uint64(1); h <= n; h++ {
			old[h] = fmt.Sprintf("o%d-%d", h, r.Int())
			recorded = append(recorded, Ref{h, old[h]})
		}
		newer := map[uint64]string{}
		for h := uint64(1); h <= n+uint64(r.Intn(3)); h++ {
			if h+d <= n {
				newer[h] = old[h]
			} else {
				newer[h] = fmt.Sprintf("n%d", h)
			}
		}
		got, err := ForkPoint(recorded, func(h uint64) (string, error) { return newer[h], nil })
		if n-d == 0 {
			if !errors.Is(err, ErrForkTooDeep) {
				t.Fatalf("whole chain replaced: got %v %v", got, err)
			}
			return
		}
		if err != nil || got.Height != n-d || got.Hash != old[n-d] {
			t.Fatalf("fork at %d: got %v %v", n-d, got, err)
		}
	})
}

// FuzzTransferCreditedOnce drives one transfer's state through random sightings, credits and
// removals of blocks: it is never credited twice, and only while detected in the block last seen.
func FuzzTransferCreditedOnce(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 3, 1})
	f.Add([]byte{0, 0, 2, 1, 2, 5, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		st := NewTransferState()
		credits := 0
		for _, op := range ops {
			block := fmt.Sprintf("b%d", op>>2&3)
			switch op & 3 {
			case 0, 3:
				st.Detect(TransferDetected{BlockHash: block, Height: uint64(op >> 2 & 3)})
			case 1:
				before := st.Status()
				if st.Credit(TransferCredited{}) {
					if before != StatusDetected {
						t.Fatalf("credited from %q", before)
					}
					credits++
				}
			case 2:
				st.Remove(block, 0, time.Time{})
			}
			if credits > 1 {
				t.Fatalf("credited %d times by %v", credits, ops)
			}
		}
		n := 0
		for _, e := range st.Changes() {
			if _, ok := e.(TransferCredited); ok {
				n++
			}
		}
		if n != credits || n > 1 {
			t.Fatalf("%d credit events", n)
		}
	})
}

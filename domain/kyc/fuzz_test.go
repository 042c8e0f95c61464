package kyc_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/kyc"
)

// FuzzCaseStateMachine drives a case with an arbitrary sequence of uploads, decisions, views and
// deletions, and checks after every step the invariants the rest of the application relies on:
// submissions are numbered 1, 2, 3… without gaps; the status follows only the allowed arrows;
// both sides are on file from the first submission on; a decision is made only on a pending
// case; a re-upload carries exactly the rejected sides; and replaying the raised events gives
// the same state (what the runner does on the next load).
func FuzzCaseStateMachine(f *testing.F) {
	f.Add([]byte{0, 3, 1, 4, 2, 5})
	f.Add([]byte{0, 0, 2, 1, 3, 0, 4, 9, 8})
	f.Add([]byte{7, 0, 5, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{1, 0, 4, 2, 1, 4, 6, 0, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		c := kyc.New()
		aggregate.Load(c, 1, reg)
		history := []aggregate.Event{reg}
		at := t0
		for i, op := range ops {
			at = at.Add(time.Minute)
			before := c.Status()
			resubmit := c.Resubmit()
			n := c.Submission()
			var err error
			switch op % 8 {
			case 0: // both sides
				err = c.Submit(both(), at)
			case 1: // front only
				err = c.Submit([]kyc.Document{doc(kyc.SideFront, "kyc/f")}, at)
			case 2: // back only
				err = c.Submit([]kyc.Document{doc(kyc.SideBack, "kyc/b")}, at)
			case 3:
				err = c.Approve(staffID, int(op/8)%3, at)
			case 4:
				err = c.Reject(staffID, 0, []kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonBlurry}}, "", at)
			case 5:
				err = c.Reject(staffID, 0, []kyc.Rejection{{Side: kyc.SideFront, Reason: kyc.ReasonGlare}, {Side: kyc.SideBack, Reason: kyc.ReasonOther}}, "x", at)
			case 6:
				err = c.RecordView(staffID, max(n, 1), kyc.SideFront)
			case 7:
				c.DeleteDocuments(c.Stored(time.Time{}), kyc.DeletedRetention, at)
			}
			changes := c.Changes()[len(history)-1:]
			if err != nil && len(changes) > 0 {
				t.Fatalf("step %d: refused (%v) yet raised %v", i, err, changes)
			}
			for _, e := range changes {
				switch e := e.(type) {
				case kyc.Submitted:
					if before != kyc.StatusNotSubmitted && before != kyc.StatusRejected {
						t.Fatalf("step %d: submitted while %s", i, before)
					}
					if e.Submission != n+1 {
						t.Fatalf("step %d: submission %d after %d", i, e.Submission, n)
					}
					var sides []kyc.Side
					for _, d := range e.Documents {
						sides = append(sides, d.Side)
					}
					if !slices.Equal(sides, resubmit) {
						t.Fatalf("step %d: sent %v, the case wanted %v", i, sides, resubmit)
					}
				case kyc.Approved, kyc.Rejected:
					if before != kyc.StatusPending {
						t.Fatalf("step %d: decided while %s", i, before)
					}
				}
			}
			history = append(history, changes...)
			if c.Submission() > 0 && len(c.OnFile()) != 2 {
				t.Fatalf("step %d: %d documents on file after a submission", i, len(c.OnFile()))
			}
			if (c.Status() == kyc.StatusNotSubmitted) != (c.Submission() == 0) {
				t.Fatalf("step %d: status %s with %d submissions", i, c.Status(), c.Submission())
			}
			for j, s := range c.Submissions() {
				if s.Number != j+1 {
					t.Fatalf("step %d: submission %d at index %d", i, s.Number, j)
				}
			}
		}
		replayed := kyc.New()
		aggregate.Load(replayed, int64(len(history)), history...)
		if replayed.Status() != c.Status() || !reflect.DeepEqual(replayed.Submissions(), c.Submissions()) ||
			!reflect.DeepEqual(replayed.OnFile(), c.OnFile()) || !reflect.DeepEqual(replayed.Stored(time.Time{}), c.Stored(time.Time{})) {
			t.Fatalf("replaying the events gives another state")
		}
	})
}

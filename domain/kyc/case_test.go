package kyc_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"clearvest/domain/aggregate"
	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/domainerr"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
)

const (
	userID  = "0191f3c2-7a4e-7b1c-9e2d-5a6b7c8d9e0f"
	staffID = "0191f3c2-7a4e-7b1c-9e2d-000000000001"
)

var (
	cases = aggregatetest.For(kyc.New)
	t0    = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	reg   = identity.Registered{UserID: userID, Name: "Ada", Email: "ada@example.com", Role: identity.RoleSubscriber}
)

func doc(side kyc.Side, key string) kyc.Document {
	return kyc.Document{Side: side, Key: key, ContentType: "image/jpeg", Size: 1234, SHA256: strings.Repeat("a", 64)}
}

func both() []kyc.Document {
	return []kyc.Document{doc(kyc.SideFront, "kyc/f1"), doc(kyc.SideBack, "kyc/b1")}
}

func submitted1() kyc.Submitted {
	return kyc.Submitted{Submission: 1, Documents: both(), At: t0}
}

func rejectedBack() kyc.Rejected {
	return kyc.Rejected{Submission: 1, ReviewerID: staffID, Documents: []kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonBlurry}}, At: t0}
}

func TestSubmit(t *testing.T) {
	t.Parallel()
	t.Run("first submission carries both sides", func(t *testing.T) {
		t.Parallel()
		c := cases.Given(reg).
			When(func(c *kyc.Case) error { return c.Submit([]kyc.Document{both()[1], both()[0]}, t0) }).
			Then(t, submitted1())
		if c.Status() != kyc.StatusPending || c.Submission() != 1 || len(c.Resubmit()) != 0 {
			t.Errorf("status %s, submission %d, resubmit %v", c.Status(), c.Submission(), c.Resubmit())
		}
	})
	t.Run("first submission with one side", func(t *testing.T) {
		t.Parallel()
		cases.Given(reg).
			When(func(c *kyc.Case) error { return c.Submit(both()[:1], t0) }).
			ThenError(t, kyc.ErrBothRequired)
	})
	t.Run("nothing while pending", func(t *testing.T) {
		t.Parallel()
		cases.Given(reg, submitted1()).
			When(func(c *kyc.Case) error { return c.Submit(both(), t0) }).
			ThenError(t, kyc.ErrPending)
	})
	t.Run("nothing once approved", func(t *testing.T) {
		t.Parallel()
		cases.Given(reg, submitted1(), kyc.Approved{Submission: 1, ReviewerID: staffID, At: t0}).
			When(func(c *kyc.Case) error { return c.Submit(both(), t0) }).
			ThenError(t, kyc.ErrApproved)
	})
	t.Run("after a rejection only the rejected side, as submission 2", func(t *testing.T) {
		t.Parallel()
		back2 := doc(kyc.SideBack, "kyc/b2")
		c := cases.Given(reg, submitted1(), rejectedBack()).
			When(func(c *kyc.Case) error { return c.Submit([]kyc.Document{back2}, t0) }).
			Then(t, kyc.Submitted{Submission: 2, Documents: []kyc.Document{back2}, At: t0})
		files := c.OnFile()
		if len(files) != 2 || files[0].Submission != 1 || files[0].Key != "kyc/f1" || files[1].Submission != 2 || files[1].Key != "kyc/b2" {
			t.Errorf("on file: %+v", files)
		}
	})
	t.Run("after a rejection of the back, both sides are refused", func(t *testing.T) {
		t.Parallel()
		c := kyc.New()
		aggregate.Load(c, 3, reg, submitted1(), rejectedBack())
		err := c.Submit(both(), t0)
		if !errors.Is(err, kyc.ErrResubmit) || !strings.Contains(err.Error(), "(back)") {
			t.Errorf("message %q does not name the rejected side", err)
		}
	})
	t.Run("after a rejection of the back, the front alone is refused", func(t *testing.T) {
		t.Parallel()
		cases.Given(reg, submitted1(), rejectedBack()).
			When(func(c *kyc.Case) error { return c.Submit(both()[:1], t0) }).
			ThenError(t, kyc.ErrResubmit)
	})
	t.Run("files are checked", func(t *testing.T) {
		t.Parallel()
		big := doc(kyc.SideFront, "kyc/f")
		big.Size = kyc.MaxFileBytes + 1
		svg := doc(kyc.SideFront, "kyc/f")
		svg.ContentType = "image/svg+xml"
		for _, tc := range []struct {
			docs []kyc.Document
			want error
		}{
			{[]kyc.Document{big, doc(kyc.SideBack, "k")}, kyc.ErrFileTooLarge},
			{[]kyc.Document{svg, doc(kyc.SideBack, "k")}, kyc.ErrFileType},
			{[]kyc.Document{doc(kyc.SideFront, "a"), doc(kyc.SideFront, "b")}, kyc.ErrDuplicateSide},
			{[]kyc.Document{doc("left", "a"), doc(kyc.SideBack, "b")}, kyc.ErrInvalidSide},
		} {
			cases.Given(reg).When(func(c *kyc.Case) error { return c.Submit(tc.docs, t0) }).ThenError(t, tc.want)
		}
	})
	t.Run("closed and unknown accounts accept nothing", func(t *testing.T) {
		t.Parallel()
		cases.Given(reg, identity.Closed{}).
			When(func(c *kyc.Case) error { return c.Submit(both(), t0) }).
			ThenError(t, identity.ErrClosed)
		cases.Given().
			When(func(c *kyc.Case) error { return c.Submit(both(), t0) }).
			ThenError(t, identity.ErrNotRegistered)
		cases.Given(reg, submitted1(), identity.Closed{}).
			When(func(c *kyc.Case) error { return c.Approve(staffID, 0, t0) }).
			ThenError(t, identity.ErrClosed)
	})
}

func TestDecide(t *testing.T) {
	t.Parallel()
	t.Run("approve the pending submission", func(t *testing.T) {
		t.Parallel()
		c := cases.Given(reg, submitted1()).
			When(func(c *kyc.Case) error { return c.Approve(staffID, 1, t0) }).
			Then(t, kyc.Approved{Submission: 1, ReviewerID: staffID, At: t0})
		if c.Status() != kyc.StatusApproved || c.LastDecision().ReviewerID != staffID {
			t.Errorf("status %s, decision %+v", c.Status(), c.LastDecision())
		}
	})
	t.Run("decided once", func(t *testing.T) {
		t.Parallel()
		decided := cases.Given(reg, submitted1(), kyc.Approved{Submission: 1, ReviewerID: staffID, At: t0})
		decided.When(func(c *kyc.Case) error { return c.Approve(staffID, 0, t0) }).ThenError(t, kyc.ErrDecided)
		decided.When(func(c *kyc.Case) error { return c.Reject(staffID, 0, rejectedBack().Documents, "", t0) }).ThenError(t, kyc.ErrDecided)
		cases.Given(reg).When(func(c *kyc.Case) error { return c.Approve(staffID, 0, t0) }).ThenError(t, kyc.ErrDecided)
	})
	t.Run("another submission than the pending one", func(t *testing.T) {
		t.Parallel()
		cases.Given(reg, submitted1(), rejectedBack(), kyc.Submitted{Submission: 2, Documents: both()[1:], At: t0}).
			When(func(c *kyc.Case) error { return c.Approve(staffID, 1, t0) }).
			ThenError(t, kyc.ErrDecided)
	})
	t.Run("not one's own case", func(t *testing.T) {
		t.Parallel()
		cases.Given(reg, submitted1()).
			When(func(c *kyc.Case) error { return c.Approve(userID, 0, t0) }).
			ThenError(t, kyc.ErrOwnCase)
	})
	t.Run("reject with reasons", func(t *testing.T) {
		t.Parallel()
		rej := []kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonGlare}, {Side: kyc.SideFront, Reason: kyc.ReasonExpired}}
		c := cases.Given(reg, submitted1()).
			When(func(c *kyc.Case) error { return c.Reject(staffID, 1, rej, "  Too dark  ", t0) }).
			Then(t, kyc.Rejected{Submission: 1, ReviewerID: staffID, Comment: "Too dark", At: t0,
				Documents: []kyc.Rejection{{Side: kyc.SideFront, Reason: kyc.ReasonExpired}, {Side: kyc.SideBack, Reason: kyc.ReasonGlare}}})
		if got := c.Resubmit(); len(got) != 2 {
			t.Errorf("resubmit %v", got)
		}
	})
	t.Run("rejections are checked", func(t *testing.T) {
		t.Parallel()
		pending := cases.Given(reg, submitted1())
		for _, tc := range []struct {
			rej     []kyc.Rejection
			comment string
			want    error
		}{
			{nil, "", kyc.ErrNoRejections},
			{[]kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonGlare}, {Side: kyc.SideBack, Reason: kyc.ReasonBlurry}}, "", kyc.ErrDuplicateRej},
			{[]kyc.Rejection{{Side: kyc.SideBack, Reason: "ugly"}}, "", kyc.ErrInvalidReason},
			{[]kyc.Rejection{{Side: "middle", Reason: kyc.ReasonGlare}}, "", kyc.ErrInvalidSide},
			{[]kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonOther}}, strings.Repeat("é", 1001), kyc.ErrCommentTooLong},
			{[]kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonOther}}, "see \u2066here", kyc.ErrCommentInvisible},
		} {
			pending.When(func(c *kyc.Case) error { return c.Reject(staffID, 0, tc.rej, tc.comment, t0) }).ThenError(t, tc.want)
		}
		pending.When(func(c *kyc.Case) error {
			return c.Reject(staffID, 0, []kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonOther}}, strings.Repeat("é", 1000), t0)
		}).Then(t, kyc.Rejected{Submission: 1, ReviewerID: staffID, Documents: []kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonOther}},
			Comment: strings.Repeat("é", 1000), At: t0})
	})
}

func TestViewsAndDeletion(t *testing.T) {
	t.Parallel()
	decided := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	given := cases.Given(reg, submitted1(), kyc.Approved{Submission: 1, ReviewerID: staffID, At: decided})
	given.When(func(c *kyc.Case) error { return c.RecordView(staffID, 1, kyc.SideBack) }).
		Then(t, kyc.DocumentViewed{Side: kyc.SideBack, Submission: 1, StaffID: staffID})
	given.When(func(c *kyc.Case) error { return c.RecordView(staffID, 2, kyc.SideBack) }).ThenError(t, kyc.ErrNoDocument)

	refs := []kyc.DocumentRef{{Submission: 1, Side: kyc.SideFront}, {Submission: 1, Side: kyc.SideBack}}
	c := given.When(func(c *kyc.Case) error {
		if got := c.Stored(decided); len(got) != 0 {
			t.Errorf("decided at the cut-off is not older than it: %v", got)
		}
		if got := c.Stored(decided.Add(time.Second)); len(got) != 2 {
			t.Errorf("stored before: %v", got)
		}
		c.DeleteDocuments(append(refs, kyc.DocumentRef{Submission: 7, Side: kyc.SideBack}), kyc.DeletedRetention, t0)
		c.DeleteDocuments(refs, kyc.DeletedRetention, t0) // already deleted: nothing more
		return nil
	}).Then(t, kyc.DocumentsDeleted{Documents: refs, Reason: kyc.DeletedRetention, At: t0})
	if !c.Deleted(refs[0]) || len(c.Stored(time.Time{})) != 0 {
		t.Errorf("deleted: %v, stored %v", c.Deleted(refs[0]), c.Stored(time.Time{}))
	}
}

// Retention never deletes the side a rejected case carries over to its next submission: the
// reviewer of that submission needs it, and the user is not asked for it again.
func TestRetentionKeepsWhatARejectedCaseCarriesOver(t *testing.T) {
	t.Parallel()
	decided := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	given := cases.Given(reg, submitted1(),
		kyc.Rejected{Submission: 1, ReviewerID: staffID, Documents: []kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonBlurry}}, At: decided})
	given.When(func(c *kyc.Case) error {
		got := c.Stored(decided.Add(time.Hour))
		want := []kyc.DocumentRef{{Submission: 1, Side: kyc.SideBack}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("retention would delete %v, want only the rejected %v", got, want)
		}
		if all := c.Stored(time.Time{}); len(all) != 2 {
			t.Errorf("closure must still delete both: %v", all)
		}
		return nil
	}).Then(t)
}

func TestIdentityIgnoresKYCEvents(t *testing.T) {
	t.Parallel()
	u := identity.New()
	u.Apply(reg)
	before := *u
	for _, e := range kyc.Events() {
		u.Apply(e)
	}
	u.Apply(submitted1())
	if u.Status() != before.Status() || u.Profile() != before.Profile() || u.EmailVerified() || u.Role() != before.Role() {
		t.Errorf("identity.User changed on KYC events")
	}
}

func TestMayWithdrawNeedsAnApprovedIdentityCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status kyc.Status
		want   error
	}{
		{kyc.StatusNotSubmitted, kyc.ErrWithdrawNoKYC},
		{kyc.StatusPending, kyc.ErrWithdrawPending},
		{kyc.StatusRejected, kyc.ErrWithdrawRejected},
		{kyc.StatusApproved, nil},
	} {
		err := kyc.MayWithdraw(tc.status)
		if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
			t.Errorf("MayWithdraw(%s) = %v, want %v", tc.status, err, tc.want)
		}
		if err != nil {
			if k, _, _ := domainerr.KindOf(err); k != domainerr.Forbidden || err.(*domainerr.Error).Code != kyc.IdentityCheckCode {
				t.Errorf("%v is not a Forbidden %s", err, kyc.IdentityCheckCode)
			}
		}
	}
}

func TestMayInvest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		verified bool
		status   kyc.Status
		want     error
	}{
		{false, kyc.StatusApproved, kyc.ErrInvestUnverified},
		{true, kyc.StatusNotSubmitted, kyc.ErrInvestNoKYC},
		{true, kyc.StatusPending, kyc.ErrInvestPending},
		{true, kyc.StatusRejected, kyc.ErrInvestRejected},
		{true, kyc.StatusApproved, nil},
	} {
		err := kyc.MayInvest(tc.verified, tc.status)
		if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
			t.Errorf("MayInvest(%v, %s) = %v, want %v", tc.verified, tc.status, err, tc.want)
		}
		if err != nil {
			if k, _, _ := domainerr.KindOf(err); k != domainerr.Forbidden {
				t.Errorf("%v is not Forbidden", err)
			}
		}
	}
}

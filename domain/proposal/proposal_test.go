package proposal_test

import (
	"strings"
	"testing"
	"time"

	"clearvest/domain/aggregate/aggregatetest"
	"clearvest/domain/money"
	"clearvest/domain/proposal"
)

var (
	at       = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	subjects = aggregatetest.For(proposal.New)
	opened   = proposal.Opened{ProposalID: "p1", Kind: proposal.KindDepositConfirmation, SubjectID: "DEP-7K3Q-9XM2",
		UserID: "investor", Amount: money.MustParse("20000.00"), Why: "over the threshold",
		Params: map[string]string{"received": "20000.00"}, ProposerID: "author", Reason: "Matches the chain", At: at}
)

func TestOpenRecordsTheProposalWithATrimmedReason(t *testing.T) {
	t.Parallel()
	in := opened
	in.Reason = "  Matches the chain \n"
	subjects.Given().
		When(func(s *proposal.Subject) error { return s.Open(in, at) }).
		Then(t, opened)
}

func TestOpenRefusesASecondOpenProposalForTheSameSubject(t *testing.T) {
	t.Parallel()
	second := opened
	second.ProposalID = "p2"
	subjects.Given(opened).
		When(func(s *proposal.Subject) error { return s.Open(second, at) }).
		ThenError(t, proposal.ErrAlreadyOpen)
}

func TestOpenAcceptsANewProposalOnceTheLastIsDecided(t *testing.T) {
	t.Parallel()
	second := opened
	second.ProposalID = "p2"
	rejected := proposal.Rejected{ProposalID: "p1", StaffID: "admin", Reason: "Amount is wrong", At: at}
	subjects.Given(opened, rejected).
		When(func(s *proposal.Subject) error { return s.Open(second, at) }).
		Then(t, second)
}

func TestOpenRefusesBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(*proposal.Opened)
		want   error
	}{
		{"no reason", func(o *proposal.Opened) { o.Reason = "   " }, proposal.ErrReasonRequired},
		{"long reason", func(o *proposal.Opened) { o.Reason = strings.Repeat("é", 501) }, proposal.ErrReasonTooLong},
		{"no proposer", func(o *proposal.Opened) { o.ProposerID = "" }, proposal.ErrInvalidProposal},
		{"unknown kind", func(o *proposal.Opened) { o.Kind = "transfer" }, proposal.ErrInvalidProposal},
		{"no subject", func(o *proposal.Opened) { o.SubjectID = "" }, proposal.ErrInvalidProposal},
		{"negative amount", func(o *proposal.Opened) { o.Amount = money.MustParse("-1.00") }, proposal.ErrInvalidProposal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := opened
			c.change(&in)
			subjects.Given().When(func(s *proposal.Subject) error { return s.Open(in, at) }).ThenError(t, c.want)
		})
	}
}

func TestTheProposerCanNeitherApproveNorReject(t *testing.T) {
	t.Parallel()
	subjects.Given(opened).
		When(func(s *proposal.Subject) error { return s.Approve("p1", "author", "", at) }).
		ThenError(t, proposal.ErrOwnProposal)
	subjects.Given(opened).
		When(func(s *proposal.Subject) error { return s.Reject("p1", "author", "changed my mind", at) }).
		ThenError(t, proposal.ErrOwnProposal)
}

func TestASecondPersonApprovesOnce(t *testing.T) {
	t.Parallel()
	approved := proposal.Approved{ProposalID: "p1", StaffID: "admin", Reason: "Checked on the explorer", At: at}
	subjects.Given(opened).
		When(func(s *proposal.Subject) error { return s.Approve("p1", "admin", " Checked on the explorer ", at) }).
		Then(t, approved)
	subjects.Given(opened, approved).
		When(func(s *proposal.Subject) error { return s.Approve("p1", "admin2", "", at) }).
		ThenError(t, proposal.ErrDecided)
	subjects.Given(opened, approved).
		When(func(s *proposal.Subject) error { return s.Reject("p1", "admin2", "too late", at) }).
		ThenError(t, proposal.ErrDecided)
}

func TestARejectionNeedsAReason(t *testing.T) {
	t.Parallel()
	subjects.Given(opened).
		When(func(s *proposal.Subject) error { return s.Reject("p1", "admin", " ", at) }).
		ThenError(t, proposal.ErrReasonRequired)
}

func TestDecidingAnUnknownProposalIsNotFound(t *testing.T) {
	t.Parallel()
	subjects.Given(opened).
		When(func(s *proposal.Subject) error { return s.Approve("p9", "admin", "", at) }).
		ThenError(t, proposal.ErrNotFound)
}

func TestStateFollowsTheEvents(t *testing.T) {
	t.Parallel()
	s := proposal.New()
	if _, open := s.Pending(); open {
		t.Fatal("a new subject has an open proposal")
	}
	if err := s.Open(opened, at); err != nil {
		t.Fatal(err)
	}
	p, open := s.Pending()
	if !open || p.ProposalID != "p1" || p.Status != proposal.StatusPending {
		t.Fatalf("pending = %+v, %v", p, open)
	}
	if err := s.Reject("p1", "admin", "wrong amount", at); err != nil {
		t.Fatal(err)
	}
	p, _ = s.Proposal("p1")
	if p.Status != proposal.StatusRejected || p.DeciderID != "admin" || p.DecisionReason != "wrong amount" {
		t.Fatalf("after rejection = %+v", p)
	}
	if _, open := s.Pending(); open {
		t.Fatal("a rejected proposal is still open")
	}
}

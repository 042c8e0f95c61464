package audit_test

import (
	"context"
	"strings"
	"testing"

	"clearvest/app/apptest"
	"clearvest/eventstore"
	"clearvest/projections"
	"clearvest/projections/audit"
	"clearvest/projections/users"
)

// TestTheRuleIsGeneric appends events of types no code here knows, and staff actions the rule must
// leave out, straight to the store: the log holds exactly the staff actions on other people, with
// targets taken from the stream, the payload or an earlier event of the stream.
func TestTheRuleIsGeneric(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := apptest.NewMoneyApp(t)
	alice, staff, other := eventstore.NewEventID().String(), eventstore.NewEventID().String(), eventstore.NewEventID().String()
	admin := eventstore.Metadata{ActorID: staff, ActorRole: "admin", CorrelationID: "c1"}
	appendOne := func(stream, typ, data string, meta eventstore.Metadata) {
		t.Helper()
		if _, err := e.Store.Append(ctx, eventstore.StreamAppend{Stream: eventstore.StreamID(stream), ExpectedVersion: eventstore.AnyVersion,
			Events: []eventstore.NewEvent{{ID: eventstore.NewEventID(), Type: typ, SchemaVersion: 1, Data: []byte(data), Metadata: meta}}}); err != nil {
			t.Fatal(err)
		}
	}
	// Audited: a kind of staff action added later, on alice's account.
	appendOne("account-"+alice, "account.fee_exemption_granted", `{"reason":"VIP","amount":"0.00"}`, admin)
	// Left out: the investor's own request, a staff member's own deposit, the system's work.
	appendOne("account-"+alice, "account.deposit_requested", `{"depositId":"d1","amount":"10.00"}`, eventstore.Metadata{ActorID: alice, ActorRole: "subscriber"})
	appendOne("account-"+staff, "account.deposit_requested", `{"depositId":"d2","amount":"10.00"}`, admin)
	appendOne("account-"+alice, "account.referral_bonus_credited", `{"amount":"5.00"}`, eventstore.Metadata{ActorRole: "system"})
	// A proposal names its user when it opens; its approval, by another admin, concerns the same user.
	appendOne("proposal-deposit_confirmation.DEP-1", "proposal.opened", `{"proposalId":"p1","userId":"`+alice+`","subjectId":"DEP-1","reason":"big","amount":"20000.00"}`, admin)
	r := e.Runner(t, []projections.Projection{users.New(e.Codec), audit.New()}, projections.WithBatchSize(1))
	e.CatchUp(t, r)
	appendOne("proposal-deposit_confirmation.DEP-1", "proposal.approved", `{"proposalId":"p1","staffId":"`+other+`"}`,
		eventstore.Metadata{ActorID: other, ActorRole: "admin"})
	// Staff viewing as alice: the staff member is the actor.
	appendOne("user-"+alice, "user.e_mail_sent", `{"subject":"pii:v1:sealed"}`, eventstore.Metadata{ActorID: alice, ImpersonatorID: staff, ActorRole: "subscriber"})
	e.CatchUp(t, r)

	list, more, err := audit.Log(ctx, e.Pool, audit.Filter{})
	if err != nil || more {
		t.Fatal(err, more)
	}
	type got struct{ kind, actor, target, ref, amount, reason string }
	want := []got{
		{"user.e_mail_sent", staff, alice, "", "", ""},
		{"proposal.approved", other, alice, "p1", "", ""},
		{"proposal.opened", staff, alice, "DEP-1", "20000.00", "big"},
		{"account.fee_exemption_granted", staff, alice, "", "", "VIP"},
	}
	if len(list) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(list), len(want), list)
	}
	for i, w := range want {
		g := list[i]
		if (got{g.Kind, g.ActorID, g.TargetUser, g.Reference, g.Amount, g.Reason}) != w {
			t.Errorf("entry %d: %+v, want %+v", i, g, w)
		}
	}
	kinds, err := audit.Kinds(ctx, e.Pool)
	if err != nil || strings.Join(kinds, ",") != "account.fee_exemption_granted,proposal.approved,proposal.opened,user.e_mail_sent" {
		t.Errorf("kinds: %v %v", kinds, err)
	}
	if s := audit.Describe("account.fee_exemption_granted", ""); s != "Account: fee exemption granted" {
		t.Errorf("describe: %q", s)
	}
	if s := audit.Describe("account.deposit_confirmed", "DEP-X"); s != "Confirmed deposit DEP-X" {
		t.Errorf("describe: %q", s)
	}
}

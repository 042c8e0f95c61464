package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/identity"
	"clearvest/platform/auth"
	"clearvest/platform/auth/session"
)

func TestStepUpLastsFiveMinutesOnItsOwnSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ada := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	bob := f.user(t, identity.RoleSubscriber, identity.StatusActive)
	here, _ := f.create(t, ada)
	there, _ := f.create(t, ada)

	steppedUp := func(user, sid uuid.UUID) bool {
		t.Helper()
		ok, err := f.sessions.SteppedUp(ctx, user, sid)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if steppedUp(ada, here.ID) {
		t.Fatal("a new session counts as confirmed")
	}
	if until, err := f.sessions.MarkSteppedUp(ctx, ada, here.ID); err != nil || !until.Equal(start.Add(session.StepUpLifetime)) {
		t.Fatal(until, err)
	}
	if !steppedUp(ada, here.ID) {
		t.Fatal("a session just confirmed does not count")
	}
	if steppedUp(ada, there.ID) || steppedUp(bob, here.ID) {
		t.Fatal("a confirmation counts for another session or user")
	}
	if _, err := f.sessions.MarkSteppedUp(ctx, bob, here.ID); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("confirming another user's session: %v, want ErrNotFound", err)
	}

	f.clock.Advance(session.StepUpLifetime - time.Second)
	if !steppedUp(ada, here.ID) {
		t.Fatal("the confirmation ended before five minutes")
	}
	f.clock.Advance(time.Second)
	if steppedUp(ada, here.ID) {
		t.Fatal("the confirmation still counts after five minutes")
	}

	if _, err := f.sessions.MarkSteppedUp(ctx, ada, here.ID); err != nil {
		t.Fatal(err)
	}
	if err := auth.Exec(ctx, f.pool, f.sessions.RevokeStatement(here.ID, "logout")); err != nil {
		t.Fatal(err)
	}
	if steppedUp(ada, here.ID) {
		t.Fatal("an ended session counts as confirmed")
	}
	if _, err := f.sessions.MarkSteppedUp(ctx, ada, here.ID); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("confirming an ended session: %v, want ErrNotFound", err)
	}
}

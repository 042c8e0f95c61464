package passkey_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"clearvest/domain/clock"
	"clearvest/platform/auth/internal/authtest"
	"clearvest/platform/auth/passkey"
)

func TestAChallengeAnswersOnceForItsPurposeAndSessionWithinItsLife(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewManual(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	store := passkey.NewChallenges(authtest.NewDB(t), clk)
	user, sess := uuid.New(), uuid.New()
	put := func(purpose string) string {
		t.Helper()
		id, err := store.Put(ctx, passkey.Challenge{Purpose: purpose, UserID: user, SessionID: sess, RPID: "example.com", Origin: "https://example.com", Data: []byte(`{"challenge":"abc"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}

	id := put(passkey.PurposeStepUp)
	c, err := store.Take(ctx, id, passkey.PurposeStepUp, user, sess)
	var data struct{ Challenge string }
	if err != nil || c.RPID != "example.com" || c.Origin != "https://example.com" || json.Unmarshal(c.Data, &data) != nil || data.Challenge != "abc" {
		t.Fatalf("Take = %+v, %v", c, err)
	}
	if _, err := store.Take(ctx, id, passkey.PurposeStepUp, user, sess); !errors.Is(err, passkey.ErrChallenge) {
		t.Fatalf("a second Take = %v, want ErrChallenge", err)
	}

	// The wrong purpose, or another session, uses the challenge up too.
	for name, take := range map[string]func(id string) error{
		"another purpose": func(id string) error {
			_, err := store.Take(ctx, id, passkey.PurposeRegister, user, sess)
			return err
		},
		"another session": func(id string) error {
			_, err := store.Take(ctx, id, passkey.PurposeStepUp, user, uuid.New())
			return err
		},
	} {
		id := put(passkey.PurposeStepUp)
		if err := take(id); !errors.Is(err, passkey.ErrChallenge) {
			t.Fatalf("%s: %v, want ErrChallenge", name, err)
		}
		if _, err := store.Take(ctx, id, passkey.PurposeStepUp, user, sess); !errors.Is(err, passkey.ErrChallenge) {
			t.Fatalf("%s: the challenge survived: %v", name, err)
		}
	}

	// Five minutes later it is gone.
	id = put(passkey.PurposeStepUp)
	clk.Advance(passkey.ChallengeLife)
	if _, err := store.Take(ctx, id, passkey.PurposeStepUp, user, sess); !errors.Is(err, passkey.ErrChallenge) {
		t.Fatalf("an expired challenge: %v, want ErrChallenge", err)
	}
}

package domainerr_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"clearvest/domain/domainerr"
)

var (
	errInsufficient = domainerr.New(domainerr.RuleBroken, "Insufficient balance")
	errLimit        = domainerr.New(domainerr.RuleBroken, "Insufficient balance")
)

func TestSentinelMatchesOnlyItself(t *testing.T) {
	t.Parallel()
	if !errors.Is(errInsufficient, errInsufficient) {
		t.Error("a sentinel does not match itself")
	}
	if errors.Is(errInsufficient, errLimit) {
		t.Error("two sentinels with the same kind and message match each other")
	}
	if errors.Is(domainerr.E(domainerr.RuleBroken, "Insufficient balance"), errInsufficient) {
		t.Error("a one-off error matches a sentinel it was not derived from")
	}
}

func TestWithMessage(t *testing.T) {
	t.Parallel()
	err := errInsufficient.WithMessage("You need $12.50 more")
	if err.Error() != "You need $12.50 more" || err.Kind() != domainerr.RuleBroken {
		t.Errorf("WithMessage = %q, kind %v", err.Error(), err.Kind())
	}
	if !errors.Is(err, errInsufficient) {
		t.Error("WithMessage result does not match its sentinel")
	}
	if errors.Is(err, errLimit) {
		t.Error("WithMessage result matches an unrelated sentinel")
	}
	if errInsufficient.Error() != "Insufficient balance" {
		t.Errorf("WithMessage changed the sentinel to %q", errInsufficient.Error())
	}
}

func TestWrapKeepsCauseInternal(t *testing.T) {
	t.Parallel()
	cause := fmt.Errorf("reading row: %w", io.ErrUnexpectedEOF)
	err := errInsufficient.Wrap(cause)
	if err.Error() != "Insufficient balance" {
		t.Errorf("Wrap leaks its cause into the user message: %q", err.Error())
	}
	if !errors.Is(err, errInsufficient) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("Wrap result does not match both its sentinel and its cause")
	}
	if err.Kind() != domainerr.RuleBroken {
		t.Errorf("Wrap kind = %v", err.Kind())
	}
}

func TestField(t *testing.T) {
	t.Parallel()
	err := domainerr.Field("email", "Please enter a valid email")
	if err.Kind() != domainerr.Invalid || err.Field != "email" || err.Error() != "Please enter a valid email" {
		t.Errorf("Field = %+v", err)
	}
	if got := err.WithMessage("Email is required"); got.Field != "email" {
		t.Errorf("WithMessage dropped the field: %+v", got)
	}
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		kind       domainerr.Kind
		message    string
		classified bool
	}{
		{"sentinel", errInsufficient, domainerr.RuleBroken, "Insufficient balance", true},
		{"wrapped by fmt", fmt.Errorf("withdraw: %w", errInsufficient), domainerr.RuleBroken, "Insufficient balance", true},
		{"outermost wins", domainerr.E(domainerr.Conflict, "Try again").Wrap(errInsufficient), domainerr.Conflict, "Try again", true},
		{"joined", errors.Join(io.EOF, domainerr.E(domainerr.NotFound, "No such deposit")), domainerr.NotFound, "No such deposit", true},
		{"internal", io.EOF, 0, "", false},
		{"nil", nil, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kind, message, ok := domainerr.KindOf(tt.err)
			if kind != tt.kind || message != tt.message || ok != tt.classified {
				t.Errorf("KindOf = %v, %q, %v; want %v, %q, %v", kind, message, ok, tt.kind, tt.message, tt.classified)
			}
		})
	}
}

func TestKindsAreDistinctAndNonZero(t *testing.T) {
	t.Parallel()
	kinds := []domainerr.Kind{
		domainerr.Invalid, domainerr.Unauthenticated, domainerr.Forbidden, domainerr.NotFound,
		domainerr.Conflict, domainerr.TooLarge, domainerr.UnsupportedMedia, domainerr.RuleBroken,
		domainerr.RateLimited, domainerr.Gone,
	}
	seen := map[domainerr.Kind]bool{}
	for _, k := range kinds {
		if k == 0 || seen[k] {
			t.Errorf("kind %d is zero or repeated; the zero Kind must mean unclassified", k)
		}
		seen[k] = true
	}
}

func TestErrorIsClassified(t *testing.T) {
	t.Parallel()
	var c domainerr.Classified = domainerr.E(domainerr.Forbidden, "Not allowed while impersonating")
	if c.Kind() != domainerr.Forbidden {
		t.Errorf("Kind() = %v", c.Kind())
	}
}

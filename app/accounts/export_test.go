package accounts

import (
	"context"

	"github.com/google/uuid"

	"clearvest/platform/auth/otp"
)

// GoogleSignIn lets the package's tests drive the sign-in with a Google ID token directly,
// with a fake verifier, without a provider to redirect through.
func (s *Service) GoogleSignIn(ctx context.Context, in GoogleInput, c Client) (SignIn, error) {
	return s.googleSignIn(ctx, in, c)
}

// AfterCodeMade runs fn when a flow has made a one-time code and before the code is stored.
func (s *Service) AfterCodeMade(fn func(userID uuid.UUID, purpose otp.Purpose)) { s.codeMade = fn }

// IssueCode stores a code of purpose for a user on its own, as another request would.
func (s *Service) IssueCode(ctx context.Context, userID uuid.UUID, purpose otp.Purpose) (string, error) {
	return s.codes.Issue(ctx, nil, userID, purpose, 0)
}

package accounts

import "context"

// GoogleSignIn lets the package's tests drive the sign-in with a Google ID token directly,
// with a fake verifier, without a provider to redirect through.
func (s *Service) GoogleSignIn(ctx context.Context, in GoogleInput, c Client) (SignIn, error) {
	return s.googleSignIn(ctx, in, c)
}

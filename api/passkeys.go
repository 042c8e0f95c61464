package api

import (
	"context"
	"encoding/json"

	"clearvest/api/apigen"
	"clearvest/app/accounts"
)

const msgPasskeyRemoved = "Passkey removed"

var errBadCredential = accounts.ErrPasskeyRejected

// ceremonyJSON is a ceremony's answer: the challenge's id and the browser's options.
func ceremonyJSON(c accounts.Ceremony) (apigen.PasskeyCeremony, error) {
	var options map[string]any
	if err := json.Unmarshal(c.Options, &options); err != nil {
		return apigen.PasskeyCeremony{}, err
	}
	return apigen.PasskeyCeremony{ChallengeId: c.ChallengeID, PublicKey: options}, nil
}

// passkeyAnswer turns the browser's PublicKeyCredential (decoded JSON) back into its bytes,
// which the WebAuthn parser reads.
func passkeyAnswer(challengeID string, credential map[string]any) (accounts.PasskeyAnswer, error) {
	if credential == nil {
		return accounts.PasskeyAnswer{}, errBadCredential
	}
	raw, err := json.Marshal(credential)
	if err != nil {
		return accounts.PasskeyAnswer{}, errBadCredential
	}
	return accounts.PasskeyAnswer{ChallengeID: challengeID, Credential: raw}, nil
}

func passkeyJSON(p accounts.PasskeyView) apigen.Passkey {
	out := apigen.Passkey{Id: p.ID, Name: p.Name, CreatedAt: p.CreatedAt}
	if !p.LastUsedAt.IsZero() {
		t := p.LastUsedAt
		out.LastUsedAt = &t
	}
	return out
}

func (s *server) ListPasskeys(ctx context.Context, _ apigen.ListPasskeysRequestObject) (apigen.ListPasskeysResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := s.accounts.Passkeys(ctx, a)
	if err != nil {
		return nil, err
	}
	out := apigen.PasskeyList{Passkeys: make([]apigen.Passkey, len(keys))}
	for i, k := range keys {
		out.Passkeys[i] = passkeyJSON(k)
	}
	return apigen.ListPasskeys200JSONResponse(out), nil
}

func (s *server) BeginPasskeyRegistration(ctx context.Context, _ apigen.BeginPasskeyRegistrationRequestObject) (apigen.BeginPasskeyRegistrationResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.accounts.BeginPasskeyRegistration(ctx, a)
	if err != nil {
		return nil, err
	}
	out, err := ceremonyJSON(c)
	return apigen.BeginPasskeyRegistration200JSONResponse(out), err
}

func (s *server) FinishPasskeyRegistration(ctx context.Context, req apigen.FinishPasskeyRegistrationRequestObject) (apigen.FinishPasskeyRegistrationResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in, err := passkeyAnswer(req.Body.ChallengeId, req.Body.Credential)
	if err != nil {
		return nil, err
	}
	p, pos, err := s.accounts.FinishPasskeyRegistration(ctx, a, req.Body.Name, in)
	if err != nil {
		return nil, err
	}
	RecordPosition(ctx, pos)
	return apigen.FinishPasskeyRegistration201JSONResponse(passkeyJSON(p)), nil
}

func (s *server) RemovePasskey(ctx context.Context, req apigen.RemovePasskeyRequestObject) (apigen.RemovePasskeyResponseObject, error) {
	if err := s.record(ctx, func(a accounts.Actor) (int64, error) {
		return s.accounts.RemovePasskey(ctx, a, req.CredentialId)
	}); err != nil {
		return nil, err
	}
	return apigen.RemovePasskey200JSONResponse{Message: msgPasskeyRemoved}, nil
}

func (s *server) BeginPasskeyLogin(ctx context.Context, _ apigen.BeginPasskeyLoginRequestObject) (apigen.BeginPasskeyLoginResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	c, err := s.accounts.BeginPasskeyLogin(ctx, clientOf(ctx))
	if err != nil {
		return nil, err
	}
	out, err := ceremonyJSON(c)
	return apigen.BeginPasskeyLogin200JSONResponse(out), err
}

func (s *server) LoginWithPasskey(ctx context.Context, req apigen.LoginWithPasskeyRequestObject) (apigen.LoginWithPasskeyResponseObject, error) {
	if s.accounts == nil {
		return nil, errAccountsMissing
	}
	if req.Body == nil {
		return nil, errBadJSON
	}
	in, err := passkeyAnswer(req.Body.ChallengeId, req.Body.Credential)
	if err != nil {
		return nil, err
	}
	res, err := s.accounts.LoginWithPasskey(ctx, in, clientOf(ctx))
	if err != nil {
		return nil, err
	}
	return apigen.LoginWithPasskey200JSONResponse(s.signedIn(ctx, res)), nil
}

func (s *server) BeginPasskeyStepUp(ctx context.Context, _ apigen.BeginPasskeyStepUpRequestObject) (apigen.BeginPasskeyStepUpResponseObject, error) {
	a, err := s.caller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.accounts.BeginPasskeyStepUp(ctx, a)
	if err != nil {
		return nil, err
	}
	out, err := ceremonyJSON(c)
	return apigen.BeginPasskeyStepUp200JSONResponse(out), err
}

// stepUpPasskey is the step-up request's passkey answer, if it has one.
func stepUpPasskey(b *apigen.StepUpRequest) (*accounts.PasskeyAnswer, error) {
	if b == nil || b.Passkey == nil {
		return nil, nil
	}
	in, err := passkeyAnswer(b.Passkey.ChallengeId, b.Passkey.Credential)
	if err != nil {
		return nil, err
	}
	return &in, nil
}

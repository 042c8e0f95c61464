package token

import (
	"sync"
	"time"
)

// maxVerified bounds the tokens Verify remembers; a full memory starts over.
const maxVerified = 10_000

// verifiedTokens remembers the tokens Verify has accepted. A client presents the same token on
// every request of its 15 minutes, and checking it again each time (two JSON documents decoded
// and an HMAC) was the largest cost left on a signed-in read. Only tokens that passed every
// check are remembered, so forgeries cannot fill the memory, and what a token says cannot
// change; its times are checked again on every use.
type verifiedTokens struct {
	mu sync.RWMutex
	m  map[string]Claims
}

func (v *verifiedTokens) get(token string) (Claims, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	c, ok := v.m[token]
	return c, ok
}

func (v *verifiedTokens) put(token string, c Claims, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.m) >= maxVerified {
		for t, old := range v.m {
			if !now.Before(old.ExpiresAt.Add(Leeway)) {
				delete(v.m, t)
			}
		}
		if len(v.m) >= maxVerified {
			clear(v.m)
		}
	}
	if v.m == nil {
		v.m = make(map[string]Claims)
	}
	v.m[token] = c
}

// stillValid applies the time checks of the parser (expiry and issue time, with Leeway) to
// claims verified earlier.
func (i *Issuer) stillValid(c Claims) (Claims, error) {
	now := i.clock.Now()
	if !now.Before(c.ExpiresAt.Add(Leeway)) {
		return Claims{}, ErrExpired
	}
	if now.Before(c.IssuedAt.Add(-Leeway)) {
		return Claims{}, ErrInvalid
	}
	return c, nil
}

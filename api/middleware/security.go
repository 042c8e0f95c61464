package middleware

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"

	"clearvest/api/internal/reqctx"
)

// SecurityHeaders sets the browser security policy on every response, API and UI alike.
//
// The Content-Security-Policy allows scripts and styles only from our origin or carrying this
// response's nonce. The nonce is fresh per request (a nonce that repeats is no protection) and
// available through Nonce(ctx); the SPA handler stamps it on the <script> and <style> tags of
// index.html. HSTS is sent only in production: on a developer's http://localhost it would pin
// the browser to https for that host.
func SecurityHeaders(production bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			nonce := newNonce()
			h := w.Header()
			h.Set("Content-Security-Policy", ContentSecurityPolicy(nonce))
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			if production {
				h.Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
			}
			next.ServeHTTP(w, r.WithContext(reqctx.WithNonce(r.Context(), nonce)))
		})
	}
}

// ContentSecurityPolicy is the policy for a response whose inline scripts and styles carry
// nonce.
func ContentSecurityPolicy(nonce string) string {
	return "default-src 'self'; " +
		"script-src 'self' 'nonce-" + nonce + "'; " +
		"style-src 'self' 'nonce-" + nonce + "'; " +
		// blob: for previews of files the user picked (object URLs made in the page itself).
		"img-src 'self' data: blob:; " +
		"connect-src 'self'; " +
		"font-src 'self'; " +
		"object-src 'none'; " +
		"base-uri 'self'; " +
		"form-action 'self'; " +
		"frame-ancestors 'none'"
}

// Nonce returns the CSP nonce of the current response, or "" when SecurityHeaders did not run.
func Nonce(ctx context.Context) string { return reqctx.Nonce(ctx) }

func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails: crypto/rand aborts the program instead
	return base64.StdEncoding.EncodeToString(b[:])
}

package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestKYCDocumentViewIsNotAGet: a staff member's look at an identity document is recorded in
// the owner's security log by the POST that sends the file; a GET of the document changes
// nothing (it is not served at all), a request another site could make is refused before
// anything is recorded, and a repeat with the same Idempotency-Key sends the file again without
// a second record.
func TestKYCDocumentViewIsNotAGet(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	owner, u := k.member(t, "kyc-view-owner@example.com", "subscriber")
	staff, _ := k.member(t, "kyc-view-staff@example.com", "author")
	jpg := jpegFile(t)
	expect(t, uploadKYC(t, owner, nil, front(jpg), back(pdfFile())), http.StatusOK)
	doc := "/api/users/kyc/" + u.ID + "/documents/1/front"
	views := func() int {
		t.Helper()
		k.CatchUp(t)
		log := owner.do(http.MethodGet, "/api/users/security-log", nil)
		expect(t, log, http.StatusOK)
		return strings.Count(string(log.body), "viewed by staff")
	}

	expect(t, staff.do(http.MethodGet, doc, nil), http.StatusMethodNotAllowed)
	forged := *staff
	forged.t, forged.header = t, http.Header{"Origin": {"https://evil.example"}, "X-Requested-With": {"XMLHttpRequest"}}
	expect(t, forged.do(http.MethodPost, doc, nil), http.StatusForbidden)
	noHeader := *staff
	noHeader.t, noHeader.header = t, http.Header{"Origin": staff.header["Origin"]}
	expect(t, noHeader.do(http.MethodPost, doc, nil), http.StatusForbidden)
	if n := views(); n != 0 {
		t.Fatalf("%d views recorded by a GET and refused requests, want 0", n)
	}

	keyed := *staff
	keyed.t, keyed.header = t, staff.header.Clone()
	keyed.header.Set("Idempotency-Key", "view-front-1")
	first := keyed.do(http.MethodPost, doc, nil)
	expect(t, first, http.StatusOK)
	again := keyed.do(http.MethodPost, doc, nil)
	expect(t, again, http.StatusOK)
	if !bytes.Equal(first.body, jpg) || !bytes.Equal(again.body, jpg) || again.header.Get("Idempotency-Hit") != "true" || first.header.Get("Idempotency-Hit") != "" {
		t.Fatalf("keyed fetches: %d and %d bytes, hit %q then %q", len(first.body), len(again.body), first.header.Get("Idempotency-Hit"), again.header.Get("Idempotency-Hit"))
	}
	if n := views(); n != 1 {
		t.Fatalf("%d views after one fetch and its repeat, want 1", n)
	}
	// The same key for another document is another request.
	expect(t, keyed.do(http.MethodPost, "/api/users/kyc/"+u.ID+"/documents/1/back", nil), http.StatusUnprocessableEntity)

	expect(t, staff.do(http.MethodPost, doc, nil), http.StatusOK)
	expect(t, owner.do(http.MethodPost, doc, nil), http.StatusOK)
	if n := views(); n != 2 {
		t.Fatalf("%d views after another staff fetch and the owner's own, want 2", n)
	}
}

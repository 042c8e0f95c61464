package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

const (
	msgBoth      = "Please upload both front and back documents."
	msgFileType  = "Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed."
	msgTooLarge  = "File size must be less than 10MB."
	msgDecided   = "This identity check was already decided."
	msgReviewing = "Your documents are already being reviewed."
)

// TestKYCFullFlow walks one identity check through the API: upload, review, rejection of one
// side with a reason, a re-upload of that side only, approval, and the investment gate, with
// the e-mails the user gets and the security log entry of a staff view.
func TestKYCFullFlow(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	user, u := k.member(t, "kyc-flow@example.com", "subscriber")
	author, _ := k.member(t, "kyc-author@example.com", "author")
	admin, _ := k.member(t, "kyc-admin@example.com", "admin")

	res := user.do(http.MethodGet, "/api/invest/eligibility", nil)
	expectIneligible(t, res, "Please upload your identity documents before investing.")
	mine := decodeJSON[myKycJSON](t, user.do(http.MethodGet, "/api/users/kyc", nil))
	if mine.KycStatus != "Not Submitted" || mine.Submission != 0 || !slices.Equal(mine.Resubmit, []string{"front", "back"}) {
		t.Fatalf("before any upload: %+v", mine)
	}

	jpg, pdf := jpegFile(t), pdfFile()
	res = uploadKYC(t, user, nil, front(jpg), back(pdf))
	expect(t, res, http.StatusOK)
	submitted := decodeJSON[struct {
		Message string    `json:"message"`
		Kyc     myKycJSON `json:"kyc"`
	}](t, res)
	if submitted.Message != "KYC documents uploaded successfully!" || submitted.Kyc.KycStatus != "Pending" || submitted.Kyc.Submission != 1 ||
		len(submitted.Kyc.Documents) != 2 || len(submitted.Kyc.Resubmit) != 0 {
		t.Fatalf("upload answer: %+v", submitted)
	}
	f, b := submitted.Kyc.Documents[0], submitted.Kyc.Documents[1]
	if f.Side != "front" || f.ContentType != "image/jpeg" || f.Size != int64(len(jpg)) || len(f.SHA256) != 64 ||
		f.URL != fmt.Sprintf("/api/users/kyc/%s/documents/1/front", u.ID) || b.Side != "back" || b.ContentType != "application/pdf" {
		t.Fatalf("documents: %+v", submitted.Kyc.Documents)
	}
	expectMessage(t, uploadKYC(t, user, nil, front(jpg), back(pdf)), http.StatusConflict, msgReviewing)
	expectIneligible(t, user.do(http.MethodGet, "/api/invest/eligibility", nil),
		"Your identity documents are being reviewed. You can invest once they are approved.")

	k.CatchUp(t)
	queue := decodeJSON[kycQueueJSON](t, author.do(http.MethodGet, "/api/users/kyc/pending", nil))
	if len(queue.PendingUsers) != 1 || queue.PendingUsers[0].ID != u.ID || queue.PendingUsers[0].Submission != 1 ||
		!slices.Equal(queue.PendingUsers[0].Documents, []string{"front", "back"}) {
		t.Fatalf("queue: %+v", queue)
	}

	// Staff download: the file as uploaded, never runnable as a page, and recorded.
	res = author.do(http.MethodPost, f.URL, nil)
	expect(t, res, http.StatusOK)
	if !bytes.Equal(res.body, jpg) || res.header.Get("Content-Type") != "image/jpeg" ||
		res.header.Get("Content-Disposition") != `attachment; filename="front.jpg"` ||
		res.header.Get("X-Content-Type-Options") != "nosniff" || res.header.Get("Content-Security-Policy") != "sandbox; default-src 'none'" ||
		res.header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("download: %d bytes, headers %v", len(res.body), res.header)
	}
	k.CatchUp(t)
	log := user.do(http.MethodGet, "/api/users/security-log", nil)
	expect(t, log, http.StatusOK)
	if !strings.Contains(string(log.body), "Identity document (front) viewed by staff (Test author)") {
		t.Fatalf("security log lacks the staff view: %s", log.body)
	}

	// Reject the back.
	res = author.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/reject", map[string]any{
		"reason": "Please take the photo in daylight.", "submission": 1,
		"documents": []map[string]string{{"side": "back", "reason": "blurry"}},
	})
	expect(t, res, http.StatusOK)
	expectMessage(t, admin.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/approve", map[string]int{"submission": 1}),
		http.StatusConflict, msgDecided)
	mine = decodeJSON[myKycJSON](t, user.do(http.MethodGet, "/api/users/kyc", nil))
	if mine.KycStatus != "Rejected" || !slices.Equal(mine.Resubmit, []string{"back"}) || mine.LastDecision == nil ||
		mine.LastDecision.Status != "Rejected" || mine.LastDecision.Comment != "Please take the photo in daylight." ||
		len(mine.LastDecision.Documents) != 1 || mine.LastDecision.Documents[0].Reason != "blurry" || mine.LastDecision.Reviewer.Name != "Test author" {
		t.Fatalf("after the rejection: %+v (decision %+v)", mine, mine.LastDecision)
	}
	mails := k.MailsTo(t, "kyc-flow@example.com", "Please send your identity document again")
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "Back: The image is blurry or unreadable.") ||
		!strings.Contains(mails[0].Text, "daylight") || !strings.Contains(mails[0].Text, "http://clearvest.test/upload-kyc") {
		t.Fatalf("rejection e-mail: %+v", mails)
	}
	expectIneligible(t, user.do(http.MethodGet, "/api/invest/eligibility", nil),
		"Your identity documents were rejected. Please upload them again before investing.")

	// Only the rejected side goes again.
	expect(t, uploadKYC(t, user, nil, front(jpg), back(pdf)), http.StatusBadRequest)
	res = uploadKYC(t, user, nil, part{field: "back", filename: "again.png", data: jpg})
	expect(t, res, http.StatusOK)
	again := decodeJSON[struct {
		Kyc myKycJSON `json:"kyc"`
	}](t, res).Kyc
	if again.Submission != 2 || again.KycStatus != "Pending" || again.Documents[0].Submission != 1 || again.Documents[1].Submission != 2 {
		t.Fatalf("re-upload: %+v", again)
	}
	k.CatchUp(t)
	queue = decodeJSON[kycQueueJSON](t, admin.do(http.MethodGet, "/api/users/kyc/pending", nil))
	if len(queue.PendingUsers) != 1 || queue.PendingUsers[0].Submission != 2 || !slices.Equal(queue.PendingUsers[0].Documents, []string{"back"}) {
		t.Fatalf("queue after the re-upload: %+v", queue)
	}
	expectMessage(t, admin.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/approve", map[string]int{"submission": 1}),
		http.StatusConflict, msgDecided)
	expect(t, admin.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/approve", map[string]int{"submission": 2}), http.StatusOK)

	res = user.do(http.MethodGet, "/api/invest/eligibility", nil)
	expect(t, res, http.StatusOK)
	if strings.TrimSpace(string(res.body)) != `{"eligible":true}` {
		t.Fatalf("eligibility: %s", res.body)
	}
	if mails := k.MailsTo(t, "kyc-flow@example.com", "Your identity is verified"); len(mails) != 1 {
		t.Fatalf("approval e-mails: %d", len(mails))
	}
	expectMessage(t, uploadKYC(t, user, nil, back(pdf)), http.StatusConflict, "Your identity is already verified.")

	c := decodeJSON[kycCaseJSON](t, author.do(http.MethodGet, "/api/users/kyc/"+u.ID, nil))
	if c.KycStatus != "Approved" || c.User.Email != "kyc-flow@example.com" || len(c.Submissions) != 2 ||
		c.Submissions[0].Submission != 2 || c.Submissions[0].Decision.Status != "Approved" || c.Submissions[0].Decision.Reviewer.Name != "Test admin" ||
		c.Submissions[1].Decision.Status != "Rejected" || len(c.Submissions[1].Documents) != 2 || len(c.Documents) != 2 {
		t.Fatalf("case: %+v", c)
	}
	k.CatchUp(t)
	queue = decodeJSON[kycQueueJSON](t, admin.do(http.MethodGet, "/api/users/kyc/pending", nil))
	if len(queue.PendingUsers) != 0 {
		t.Fatalf("queue after the approval: %+v", queue)
	}
	me := user.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, me, http.StatusOK)
	if !strings.Contains(string(me.body), `"kycStatus":"Approved"`) {
		t.Fatalf("the user's kycStatus: %s", me.body)
	}
}

// TestKYCUploadAttacks sends what an attacker or a confused client might: the type is decided
// by the content only, names never reach storage, and a refused request stores nothing.
func TestKYCUploadAttacks(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	user, u := k.member(t, "kyc-attack@example.com", "subscriber")
	jpg, pdf := jpegFile(t), pdfFile()
	html := []byte("<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>")
	svg := []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	exe := append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"), bytes.Repeat([]byte{0}, 200)...)
	over := append(append([]byte{}, jpg...), bytes.Repeat([]byte{0}, 10<<20)...)

	for _, tc := range []struct {
		name    string
		parts   []part
		status  int
		message string
	}{
		{"wrong magic bytes with an allowed name and type", []part{front(exe), back(pdf)}, http.StatusUnsupportedMediaType, msgFileType},
		{"HTML first, then a JPEG", []part{front(append(append([]byte{}, html...), jpg...)), back(pdf)}, http.StatusUnsupportedMediaType, msgFileType},
		{"SVG with a script", []part{{field: "front", filename: "id.svg", contentType: "image/svg+xml", data: svg}, back(pdf)}, http.StatusUnsupportedMediaType, msgFileType},
		{"a good front and a bad back", []part{front(jpg), back(html)}, http.StatusUnsupportedMediaType, msgFileType},
		{"the back missing", []part{front(jpg)}, http.StatusBadRequest, msgBoth},
		{"no files at all", nil, http.StatusBadRequest, msgBoth},
		{"an unknown part", []part{front(jpg), {field: "selfie", filename: "me.jpg", data: jpg}, back(pdf)}, http.StatusBadRequest, "Only the front and back documents can be uploaded."},
		{"the front twice", []part{front(jpg), front(jpg), back(pdf)}, http.StatusBadRequest, "Each document can be sent only once."},
		{"an empty file", []part{front(nil), back(pdf)}, http.StatusBadRequest, "Please select a file."},
		{"a file over 10 MiB", []part{front(over), back(pdf)}, http.StatusRequestEntityTooLarge, msgTooLarge},
		{"a good front and a back over 10 MiB", []part{front(jpg), back(over)}, http.StatusRequestEntityTooLarge, msgTooLarge},
	} {
		res := uploadKYC(t, user, nil, tc.parts...)
		if res.status != tc.status || decodeError(t, res).Message != tc.message {
			t.Errorf("%s: %d %s, want %d %q", tc.name, res.status, res.body, tc.status, tc.message)
		}
		if files := k.storedFiles(t); len(files) != 0 {
			t.Errorf("%s: files left behind: %v", tc.name, files)
		}
	}
	if mine := decodeJSON[myKycJSON](t, user.do(http.MethodGet, "/api/users/kyc", nil)); mine.KycStatus != "Not Submitted" {
		t.Fatalf("after refused uploads: %+v", mine)
	}

	// A JPEG with HTML appended is a JPEG: stored and served as one, as an attachment that a
	// browser neither sniffs nor runs. Hostile file names are ignored.
	polyglot := append(append([]byte{}, jpg...), html...)
	res := uploadKYC(t, user, nil,
		part{field: "front", filename: "../../etc/passwd", contentType: "text/html", data: polyglot},
		part{field: "back", filename: `C:\Windows\..\..\evil.pdf`, contentType: "application/pdf", data: pdf},
	)
	expect(t, res, http.StatusOK)
	files := k.storedFiles(t)
	name := regexp.MustCompile(`^kyc/[A-Za-z0-9_-]{22}$`)
	if len(files) != 2 || !name.MatchString(files[0]) || !name.MatchString(files[1]) {
		t.Fatalf("stored files: %v", files)
	}
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(k.kyc.Dir, filepath.FromSlash(f)))
		if err != nil || bytes.Contains(raw, []byte("<script>")) || bytes.Contains(raw, []byte("%PDF")) {
			t.Fatalf("%s is not encrypted at rest (%v)", f, err)
		}
	}
	got := user.do(http.MethodPost, "/api/users/kyc/"+u.ID+"/documents/1/front", nil)
	expect(t, got, http.StatusOK)
	if !bytes.Equal(got.body, polyglot) || got.header.Get("Content-Type") != "image/jpeg" ||
		!strings.HasPrefix(got.header.Get("Content-Disposition"), "attachment") || got.header.Get("X-Content-Type-Options") != "nosniff" ||
		got.header.Get("Content-Security-Policy") != "sandbox; default-src 'none'" {
		t.Fatalf("polyglot served as %v", got.header)
	}
	if cd := got.header.Get("Content-Disposition"); strings.Contains(cd, "passwd") || !strings.Contains(cd, "front.jpg") {
		t.Fatalf("Content-Disposition %q", cd)
	}
}

// TestKYCAccess: who may see and decide what.
func TestKYCAccess(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	owner, u := k.member(t, "kyc-owner@example.com", "subscriber")
	other, _ := k.member(t, "kyc-other@example.com", "subscriber")
	author, _ := k.member(t, "kyc-reviewer@example.com", "author")
	expect(t, uploadKYC(t, owner, nil, front(jpegFile(t)), back(pdfFile())), http.StatusOK)
	doc := "/api/users/kyc/" + u.ID + "/documents/1/back"

	expect(t, k.browser(t).do(http.MethodPost, doc, nil), http.StatusUnauthorized)
	expect(t, other.do(http.MethodPost, doc, nil), http.StatusNotFound)
	expect(t, owner.do(http.MethodPost, "/api/users/kyc/"+u.ID+"/documents/1/nope", nil), http.StatusNotFound)
	expect(t, owner.do(http.MethodPost, doc, nil), http.StatusOK)
	expect(t, owner.do(http.MethodPost, "/api/users/kyc/"+u.ID+"/documents/2/back", nil), http.StatusNotFound)
	expect(t, other.do(http.MethodGet, "/api/users/kyc/pending", nil), http.StatusForbidden)
	expect(t, other.do(http.MethodGet, "/api/users/kyc/"+u.ID, nil), http.StatusForbidden)
	expect(t, other.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/approve", map[string]any{}), http.StatusForbidden)
	expect(t, owner.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/approve", map[string]any{}), http.StatusForbidden)
	expect(t, author.do(http.MethodPost, doc, nil), http.StatusOK)

	// The queue is oldest first; staff never decide their own case.
	o := decodeUser(t, other.do(http.MethodGet, "/api/users/getUser", nil))
	expect(t, uploadKYC(t, other, nil, front(jpegFile(t)), back(pdfFile())), http.StatusOK)
	expect(t, uploadKYC(t, author, nil, front(jpegFile(t)), back(pdfFile())), http.StatusOK)
	k.CatchUp(t)
	queue := decodeJSON[kycQueueJSON](t, author.do(http.MethodGet, "/api/users/kyc/pending", nil))
	if len(queue.PendingUsers) != 3 || queue.PendingUsers[0].ID != u.ID || queue.PendingUsers[1].ID != o.ID {
		t.Fatalf("queue: %+v", queue)
	}
	a := decodeUser(t, author.do(http.MethodGet, "/api/users/getUser", nil))
	expectMessage(t, author.do(http.MethodPatch, "/api/users/kyc/"+a.ID+"/approve", map[string]any{}), http.StatusUnprocessableEntity,
		"You cannot decide your own identity check.")
	expect(t, author.do(http.MethodGet, "/api/users/kyc/not-a-user", nil), http.StatusNotFound)
	res := author.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/reject", map[string]any{
		"documents": []map[string]string{{"side": "back", "reason": "blurry"}, {"side": "back", "reason": "glare"}}})
	expectMessage(t, res, http.StatusBadRequest, "Each document can be rejected only once.")
}

// TestKYCDoubleDecision: two reviewers deciding the same case at once; one wins, the other is
// told it was decided.
func TestKYCDoubleDecision(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	user, u := k.member(t, "kyc-twice@example.com", "subscriber")
	first, _ := k.member(t, "kyc-first@example.com", "author")
	second, _ := k.member(t, "kyc-second@example.com", "admin")
	expect(t, uploadKYC(t, user, nil, front(jpegFile(t)), back(pdfFile())), http.StatusOK)

	var wg sync.WaitGroup
	results := make([]response, 2)
	wg.Go(func() {
		results[0] = first.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/approve", map[string]int{"submission": 1})
	})
	wg.Go(func() {
		results[1] = second.do(http.MethodPatch, "/api/users/kyc/"+u.ID+"/reject", map[string]any{
			"submission": 1, "documents": []map[string]string{{"side": "front", "reason": "expired"}}})
	})
	wg.Wait()
	statuses := []int{results[0].status, results[1].status}
	slices.Sort(statuses)
	if !slices.Equal(statuses, []int{http.StatusOK, http.StatusConflict}) {
		t.Fatalf("statuses %v: %s / %s", statuses, results[0].body, results[1].body)
	}
	for _, r := range results {
		if r.status == http.StatusConflict && decodeError(t, r).Message != msgDecided {
			t.Fatalf("the loser was told %s", r.body)
		}
	}
	approved, rejected := len(k.MailsTo(t, "kyc-twice@example.com", "verified")), len(k.MailsTo(t, "kyc-twice@example.com", "again"))
	if approved+rejected != 1 {
		t.Fatalf("decision e-mails: %d approvals, %d rejections", approved, rejected)
	}
}

// TestKYCIdempotentUpload: a repeated upload with the same Idempotency-Key gets the first
// answer and creates nothing; the key is honoured by the command, since the body is streamed
// and never held to be hashed.
func TestKYCIdempotentUpload(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	user, _ := k.member(t, "kyc-idem@example.com", "subscriber")
	jpg, pdf := jpegFile(t), pdfFile()
	key := http.Header{"Idempotency-Key": {"upload-7f3a"}}
	body, ct := multipartBody(t, front(jpg), back(pdf))
	first := uploadRaw(t, user, key, body, ct)
	expect(t, first, http.StatusOK)
	again := uploadRaw(t, user, key, body, ct)
	expect(t, again, http.StatusOK)
	if again.header.Get("Idempotency-Hit") != "true" || !bytes.Equal(again.body, first.body) {
		t.Fatalf("replay: hit %q, body %s", again.header.Get("Idempotency-Hit"), again.body)
	}
	if files := k.storedFiles(t); len(files) != 2 {
		t.Fatalf("files after a replay: %v", files)
	}
	// The same key with other files is another request.
	other, otherCT := multipartBody(t, front(jpg), back(append(pdfFile(), "% changed\n"...)))
	expectMessage(t, uploadRaw(t, user, key, other, otherCT), http.StatusUnprocessableEntity,
		"This Idempotency-Key was already used with a different request.")
	if files := k.storedFiles(t); len(files) != 2 {
		t.Fatalf("files after a reused key: %v", files)
	}
	if mine := decodeJSON[myKycJSON](t, user.do(http.MethodGet, "/api/users/kyc", nil)); mine.Submission != 1 {
		t.Fatalf("submissions after a replay: %d", mine.Submission)
	}
}

// TestKYCClosureDeletesDocuments: closing an account deletes its document files, and their
// addresses answer 410 (staff) or 404 (the former owner can no longer sign in).
func TestKYCClosureDeletesDocuments(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	user, u := k.member(t, "kyc-close@example.com", "subscriber")
	admin, _ := k.member(t, "kyc-closer@example.com", "admin")
	expect(t, uploadKYC(t, user, nil, front(jpegFile(t)), back(pdfFile())), http.StatusOK)
	if files := k.storedFiles(t); len(files) != 2 {
		t.Fatalf("stored: %v", files)
	}
	expect(t, admin.do(http.MethodDelete, "/api/users/"+u.ID, nil), http.StatusOK)
	if files := k.storedFiles(t); len(files) != 0 {
		t.Fatalf("files after the closure: %v", files)
	}
	expect(t, admin.do(http.MethodPost, "/api/users/kyc/"+u.ID+"/documents/1/front", nil), http.StatusGone)
	c := decodeJSON[kycCaseJSON](t, admin.do(http.MethodGet, "/api/users/kyc/"+u.ID, nil))
	for _, d := range c.Documents {
		if d.URL != "" {
			t.Fatalf("a closed account's document still has a URL: %+v", d)
		}
	}
	if got := user.do(http.MethodPost, "/api/users/kyc/"+u.ID+"/documents/1/front", nil).status; got != http.StatusUnauthorized && got != http.StatusNotFound {
		t.Fatalf("the closed account's own session fetched its document: %d", got)
	}
}

// expectIneligible checks an eligibility answer that says no: not being able to invest yet is an
// answer (200), not an error status, with the sentence saying what is missing.
func expectIneligible(t *testing.T, res response, reason string) {
	t.Helper()
	expect(t, res, http.StatusOK)
	got := decodeJSON[struct {
		Eligible bool   `json:"eligible"`
		Reason   string `json:"reason"`
	}](t, res)
	if got.Eligible || got.Reason != reason {
		t.Fatalf("eligibility: %s, want not eligible because %q", res.body, reason)
	}
}

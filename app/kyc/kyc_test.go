package kyc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"strings"
	"testing"

	"clearvest/app/accounts"
	appkyc "clearvest/app/kyc"
	"clearvest/app/kyc/kyctest"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
)

func body(t *testing.T, parts map[string]string) *multipart.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, side := range []string{"front", "back"} {
		data, ok := parts[side]
		if !ok {
			continue
		}
		p, err := w.CreateFormFile(side, side+".bin")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(p, data)
	}
	_ = w.Close()
	return multipart.NewReader(&buf, w.Boundary())
}

const (
	jpeg = "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01 some image"
	pdf  = "%PDF-1.4\n%%EOF\n"
)

func member(t *testing.T, env *kyctest.Env, email, role string) appkyc.Actor {
	t.Helper()
	u, err := env.Accounts.CreateUser(context.Background(), accounts.CreateUserInput{
		Name: "N " + role, Email: email, Password: "quiet-harbour-lantern-42", Role: role, Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	return appkyc.Actor{UserID: u.ID, Role: identity.Role(role)}
}

// TestUploadKeepsNothingOnFailure: a rule of the case refusing the upload after both files were
// stored leaves no file behind.
func TestUploadKeepsNothingOnFailure(t *testing.T) {
	t.Parallel()
	env := kyctest.New(t)
	ctx := context.Background()
	a := member(t, env, "rules@example.com", "subscriber")
	staff := member(t, env, "staff@example.com", "author")
	up, err := env.KYC.Upload(ctx, a, body(t, map[string]string{"front": jpeg, "back": pdf}), "")
	if err != nil {
		t.Fatal(err)
	}
	first := up.Case
	if _, err := env.KYC.Reject(ctx, staff, a.UserID, appkyc.RejectInput{Documents: []kyc.Rejection{{Side: kyc.SideBack, Reason: kyc.ReasonGlare}}}); err != nil {
		t.Fatal(err)
	}
	// After the rejection only the back may come: both sides are read and stored, then the case
	// refuses, and the two new files go again.
	_, err = env.KYC.Upload(ctx, a, body(t, map[string]string{"front": jpeg, "back": pdf}), "")
	if !errors.Is(err, kyc.ErrResubmit) {
		t.Fatalf("upload of both sides after a rejection of one: %v", err)
	}
	for _, d := range first.Documents {
		f, _, err := env.Blobs.Open(ctx, keyOf(t, env, a, d.Side))
		if err != nil {
			t.Fatalf("the first submission's %s is gone: %v", d.Side, err)
		}
		f.Close()
	}
	if n := countKYCFiles(t, env); n != 2 {
		t.Fatalf("%d files stored, want the first submission's 2", n)
	}
}

// TestUploadIdempotencyKeyInTheStream: the runner finds an upload's earlier events by their
// Idempotency-Key, so a repeat whose HTTP record was lost answers with the first submission
// and keeps no second copy; the same key with other files is refused.
func TestUploadIdempotencyKeyInTheStream(t *testing.T) {
	t.Parallel()
	env := kyctest.New(t)
	ctx := context.Background()
	a := member(t, env, "idem@example.com", "subscriber")
	files := map[string]string{"front": jpeg, "back": pdf}
	first, err := env.KYC.Upload(ctx, a, body(t, files), "key-1")
	if err != nil || first.Replayed {
		t.Fatal(err, first.Replayed)
	}
	again, err := env.KYC.Upload(ctx, a, body(t, files), "key-1")
	if err != nil || !again.Replayed || again.Position != first.Position || again.Case.Submission != 1 {
		t.Fatalf("replay: %v, %+v", err, again)
	}
	if n := countKYCFiles(t, env); n != 2 {
		t.Fatalf("%d files after a replay, want 2", n)
	}
	_, err = env.KYC.Upload(ctx, a, body(t, map[string]string{"front": jpeg + "other", "back": pdf}), "key-1")
	if err == nil || !strings.Contains(err.Error(), "Idempotency-Key") {
		t.Fatalf("the key with other files: %v", err)
	}
	if n := countKYCFiles(t, env); n != 2 {
		t.Fatalf("%d files after a refused reuse, want 2", n)
	}
}

// TestDocumentGoneWhenTheFileIs: a document whose file is missing answers 410; the other side
// still streams, with its detected type and a name of ours.
func TestDocumentGoneWhenTheFileIs(t *testing.T) {
	t.Parallel()
	env := kyctest.New(t)
	ctx := context.Background()
	a := member(t, env, "gone@example.com", "subscriber")
	if _, err := env.KYC.Upload(ctx, a, body(t, map[string]string{"front": jpeg, "back": pdf}), ""); err != nil {
		t.Fatal(err)
	}
	if err := env.Blobs.Delete(ctx, keyOf(t, env, a, kyc.SideBack)); err != nil {
		t.Fatal(err)
	}
	if _, err := env.KYC.Document(ctx, a, a.UserID, 1, "back", ""); !errors.Is(err, appkyc.ErrDocGone) {
		t.Fatalf("a missing file: %v, want 410", err)
	}
	f, err := env.KYC.Document(ctx, a, a.UserID, 1, "front", "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Body.Close()
	if f.ContentType != "image/jpeg" || f.Filename != "front.jpg" {
		t.Fatalf("front: %s %s", f.ContentType, f.Filename)
	}
}

// TestDocumentGoneWhenTheKeyIs: a file whose owner's personal-data key was destroyed cannot be
// decrypted, and answers 410 like a deleted one.
func TestDocumentGoneWhenTheKeyIs(t *testing.T) {
	t.Parallel()
	env := kyctest.New(t)
	ctx := context.Background()
	a := member(t, env, "erased@example.com", "subscriber")
	staff := member(t, env, "viewer@example.com", "admin")
	if _, err := env.KYC.Upload(ctx, a, body(t, map[string]string{"front": jpeg, "back": pdf}), ""); err != nil {
		t.Fatal(err)
	}
	raw, _, err := env.Blobs.Open(ctx, keyOf(t, env, a, kyc.SideFront))
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := io.ReadAll(raw)
	raw.Close()
	if bytes.Contains(stored, []byte("JFIF")) {
		t.Fatal("the stored file holds the plaintext")
	}
	if err := env.Cipher.Erase(ctx, a.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.KYC.Document(ctx, staff, a.UserID, 1, "front", ""); !errors.Is(err, appkyc.ErrDocGone) {
		t.Fatalf("a file of an erased key: %v, want 410", err)
	}
}

func keyOf(t *testing.T, env *kyctest.Env, a appkyc.Actor, side kyc.Side) string {
	t.Helper()
	c, err := env.Case(context.Background(), a.UserID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.OnFile() {
		if f.Side == side {
			return f.Key
		}
	}
	t.Fatalf("no %s on file", side)
	return ""
}

func countKYCFiles(t *testing.T, env *kyctest.Env) int {
	t.Helper()
	n, err := env.CountFiles()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"clearvest/app/accounts"
	appkyc "clearvest/app/kyc"
	"clearvest/domain/identity"
	"clearvest/domain/kyc"
	"clearvest/projections"
)

func kycMultipart(t *testing.T) *multipart.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for side, data := range map[string]string{
		"front": "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + strings.Repeat("x", 100),
		"back":  "%PDF-1.4\n%%EOF\n",
	} {
		p, err := w.CreateFormFile(side, side)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(p, data)
	}
	_ = w.Close()
	return multipart.NewReader(&buf, w.Boundary())
}

// operatorIdentity opens the services a CLI tool opens, on operatorShell's configuration.
func operatorIdentity(t *testing.T) identityParts {
	t.Helper()
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ident, done, err := openIdentity(testCtx(t), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(done)
	return ident
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestKYCPurge drives `clearvest kyc purge` as an operator would: decided checks older than the
// period lose their files, pending ones keep theirs, the deletion is recorded (the document
// answers 410 and shows no URL), and a second run finds nothing more. It sets environment
// variables, so it cannot run in parallel.
func TestKYCPurge(t *testing.T) {
	_, cli := operatorShell(t)
	ctx := testCtx(t)
	ident := operatorIdentity(t)
	create := func(email, role string) appkyc.Actor {
		u, err := ident.accounts.CreateUser(ctx, accounts.CreateUserInput{Name: "N " + role, Email: email, Password: "quiet-harbour-lantern-42", Role: role, Verified: true})
		if err != nil {
			t.Fatal(err)
		}
		return appkyc.Actor{UserID: u.ID, Role: identity.Role(role)}
	}
	decided, pending, staff := create("decided@example.com", "subscriber"), create("pending@example.com", "subscriber"), create("staff@example.com", "admin")
	for _, a := range []appkyc.Actor{decided, pending} {
		if _, err := ident.kyc.Upload(ctx, a, kycMultipart(t), ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ident.kyc.Approve(ctx, staff, decided.UserID, 1); err != nil {
		t.Fatal(err)
	}
	blobs := filepath.Join(os.Getenv("CLEARVEST_DATA_DIR"), "blobs")
	if n := countFiles(t, blobs); n != 4 {
		t.Fatalf("%d files before the purge", n)
	}

	if _, err := cli("kyc", "purge"); !errors.Is(err, errUsage) {
		t.Errorf("no period: %v, want a usage error", err)
	}
	if _, err := cli("kyc", "purge", "--older-than", "-3d"); !errors.Is(err, errUsage) {
		t.Errorf("negative period: %v, want a usage error", err)
	}
	out, err := cli("kyc", "purge", "--older-than", "3650d")
	if err != nil || !strings.Contains(out, "0 user(s), 0 document(s) deleted") {
		t.Fatalf("long period: %v %q", err, out)
	}
	// Decided a moment ago is older than a nanosecond.
	out, err = cli("kyc", "purge", "--older-than", "1ns")
	if err != nil || !strings.Contains(out, "deleted 1/front, 1/back of user "+decided.UserID+" (retention)") ||
		!strings.Contains(out, "1 user(s), 2 document(s) deleted") {
		t.Fatalf("purge: %v %q", err, out)
	}
	if n := countFiles(t, blobs); n != 2 {
		t.Fatalf("%d files after the purge, want the pending user's 2", n)
	}
	if _, err := ident.kyc.Document(ctx, staff, decided.UserID, 1, "front", ""); !errors.Is(err, appkyc.ErrDocGone) {
		t.Fatalf("a purged document: %v, want 410", err)
	}
	mine, err := ident.kyc.MyCase(ctx, decided)
	if err != nil || mine.Status != kyc.StatusApproved || len(mine.Documents) != 2 || mine.Documents[0].URL != "" {
		t.Fatalf("case after the purge: %v %+v", err, mine)
	}
	f, err := ident.kyc.Document(ctx, staff, pending.UserID, 1, "front", "")
	if err != nil {
		t.Fatalf("a pending document: %v", err)
	}
	f.Body.Close()
	out, err = cli("kyc", "purge", "--older-than", "1ns")
	if err != nil || !strings.Contains(out, "0 user(s), 0 document(s) deleted") {
		t.Fatalf("second run: %v %q", err, out)
	}
}

// TestSeedSubmitsASampleIdentityCheck: `clearvest seed` leaves the sample applicant's check in
// the staff queue, with two PNG documents that say on their face they are samples (the words
// are drawn, so the test can only check the picture decodes and is the marked one we draw).
func TestSeedSubmitsASampleIdentityCheck(t *testing.T) {
	_, cli := operatorShell(t)
	ctx := testCtx(t)
	out, err := cli("seed")
	if err != nil || !strings.Contains(out, "applicant@clearvest.local") {
		t.Fatalf("seed: %v %q", err, out)
	}
	ident := operatorIdentity(t)
	// The queue is a read model: bring it up to date, as a server would.
	catchUp := func() {
		t.Helper()
		runner, err := projections.NewRunner(ident.pool, ident.store, allProjections(ident.codec))
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.Prepare(ctx); err != nil {
			t.Fatal(err)
		}
		if err := runner.CatchUp(ctx); err != nil {
			t.Fatal(err)
		}
	}
	catchUp()
	page, _, err := ident.kyc.QueuePage(ctx, "", nil)
	queue := page.Items
	if err != nil || len(queue) != 1 || queue[0].Email != "applicant@clearvest.local" || queue[0].Submission != 1 {
		t.Fatalf("queue after seeding: %v %+v", err, queue)
	}
	admin, err := ident.accounts.CreateUser(ctx, accounts.CreateUserInput{Name: "Reviewer", Email: "reviewer@example.com", Password: "quiet-harbour-lantern-42", Role: "admin", Verified: true})
	if err != nil {
		t.Fatal(err)
	}
	staff := appkyc.Actor{UserID: admin.ID, Role: identity.RoleAdmin}
	for _, side := range []string{"front", "back"} {
		f, err := ident.kyc.Document(ctx, staff, queue[0].ID, 1, side, "")
		if err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		data, err := io.ReadAll(f.Body)
		f.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		want, err := sampleDocument(side, "Sample Applicant")
		if err != nil {
			t.Fatal(err)
		}
		if f.ContentType != "image/png" || !bytes.Equal(data, want) {
			t.Errorf("%s: %s, %d bytes; want the drawn sample PNG", side, f.ContentType, len(data))
		}
	}
	// A second seed changes nothing: the logins exist, no second submission is made.
	if _, err := cli("seed"); err != nil {
		t.Fatal(err)
	}
	catchUp()
	if again, _, err := ident.kyc.QueuePage(ctx, "", nil); err != nil || len(again.Items) != 1 || again.Items[0].Submission != 1 {
		t.Fatalf("queue after seeding twice: %v %+v", err, again.Items)
	}
}

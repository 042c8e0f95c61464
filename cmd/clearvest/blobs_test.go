package main

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"clearvest/platform/config"
)

// TestBlobURLSelectsTheS3Store follows CLEARVEST_BLOB_URL as the README documents it, with
// tls=false and a region, to a store that keeps files in the named bucket.
func TestBlobURLSelectsTheS3Store(t *testing.T) {
	t.Parallel()
	backend := s3mem.New()
	if err := backend.CreateBucket("profile-photos"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)

	env := map[string]string{
		config.EnvDataDir: t.TempDir(),
		config.EnvBlobURL: "s3://AKID:wJal%2FK7M@" + strings.TrimPrefix(srv.URL, "http://") + "/profile-photos?region=eu-central-1&tls=false",
	}
	cfg, err := config.Load(func(name string) string { return env[name] })
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := openBlobs(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := blobs.Put(t.Context(), "photos/a.jpg", strings.NewReader("jpeg bytes")); err != nil {
		t.Fatal(err)
	}
	o, err := backend.GetObject("profile-photos", "photos/a.jpg", nil)
	if err != nil {
		t.Fatalf("the file is not in the bucket: %v", err)
	}
	defer o.Contents.Close()
	if b, err := io.ReadAll(o.Contents); err != nil || string(b) != "jpeg bytes" {
		t.Fatalf("bucket holds %q, %v", b, err)
	}
}

package blob_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"clearvest/platform/blob"
)

const (
	fakeAccessKey = "AKIDFAKEFAKEFAKE"
	fakeSecretKey = "fake/secret+key/FAKEFAKEFAKEFAKEFAKE"
	fakeRegion    = "eu-test-1"
	fakeBucket    = "clearvest-test"
)

// fakeS3 is an in-process S3 that, like the real one, refuses any request whose SigV4
// signature it cannot reproduce. The check is written from the specification independently of
// the store's signer, so the two would have to make the same mistake for a bug to pass.
type fakeS3 struct {
	mu      sync.Mutex
	objects map[string]fakeObject // by key, without the bucket
}

type fakeObject struct {
	data        []byte
	contentType string
	etag        string
	modTime     time.Time
}

func newFakeS3(t *testing.T) (*fakeS3, *httptest.Server) {
	t.Helper()
	f := &fakeS3{objects: map[string]fakeObject{}}
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func newS3Store(t *testing.T, srv *httptest.Server, mutate func(*blob.S3Config)) *blob.S3 {
	t.Helper()
	cfg := blob.S3Config{
		Endpoint: srv.URL, Bucket: fakeBucket, Region: fakeRegion,
		AccessKey: fakeAccessKey, SecretKey: fakeSecretKey, Client: srv.Client(),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := blob.NewS3(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fakeS3) object(key string) (fakeObject, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.objects[key]
	return o, ok
}

func s3ErrorResponse(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, message)
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s3ErrorResponse(w, http.StatusBadRequest, "IncompleteBody", err.Error())
		return
	}
	if err := verifySigV4(r, body); err != nil {
		s3ErrorResponse(w, http.StatusForbidden, "SignatureDoesNotMatch", err.Error())
		return
	}
	key, ok := strings.CutPrefix(r.URL.Path, "/"+fakeBucket+"/")
	if !ok {
		s3ErrorResponse(w, http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
		return
	}
	switch r.Method {
	case http.MethodPut:
		sum := md5.Sum(body)
		f.mu.Lock()
		f.objects[key] = fakeObject{
			data: body, contentType: r.Header.Get("Content-Type"),
			etag: `"` + hex.EncodeToString(sum[:]) + `"`, modTime: time.Now().UTC().Truncate(time.Second),
		}
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	case http.MethodGet:
		o, ok := f.object(key)
		if !ok {
			s3ErrorResponse(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
			return
		}
		w.Header().Set("ETag", o.etag)
		w.Header().Set("Content-Type", o.contentType)
		// ServeContent answers Range and If-Match as S3 does: 206 and 412.
		http.ServeContent(w, r, "", o.modTime, bytes.NewReader(o.data))
	case http.MethodDelete:
		f.mu.Lock()
		delete(f.objects, key)
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		s3ErrorResponse(w, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method)
	}
}

// verifySigV4 recomputes the signature of r the way S3 does, from what arrived on the wire.
func verifySigV4(r *http.Request, body []byte) error {
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")
	if !ok {
		return errors.New("not a SigV4 Authorization header")
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(auth, ", ") {
		k, v, _ := strings.Cut(part, "=")
		fields[k] = v
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 5 || cred[0] != fakeAccessKey || cred[2] != fakeRegion || cred[3] != "s3" || cred[4] != "aws4_request" {
		return fmt.Errorf("bad credential scope %q", fields["Credential"])
	}
	amzDate := r.Header.Get("X-Amz-Date")
	signedAt, err := time.Parse("20060102T150405Z", amzDate)
	if err != nil || cred[1] != amzDate[:8] || time.Since(signedAt).Abs() > 15*time.Minute {
		return fmt.Errorf("bad or stale X-Amz-Date %q", amzDate)
	}
	payloadHash := sha256.Sum256(body)
	if got := r.Header.Get("X-Amz-Content-Sha256"); got != hex.EncodeToString(payloadHash[:]) {
		return fmt.Errorf("X-Amz-Content-Sha256 %q does not match the body", got)
	}

	signed := strings.Split(fields["SignedHeaders"], ";")
	if !sort.StringsAreSorted(signed) || !slices.Contains(signed, "host") {
		return fmt.Errorf("bad SignedHeaders %q", fields["SignedHeaders"])
	}
	for name := range r.Header {
		if lower := strings.ToLower(name); strings.HasPrefix(lower, "x-amz-") && !slices.Contains(signed, lower) {
			return fmt.Errorf("header %s is not signed", lower)
		}
	}
	var headers strings.Builder
	for _, name := range signed {
		value := r.Host
		if name != "host" {
			var vs []string
			for _, v := range r.Header.Values(name) {
				vs = append(vs, strings.Join(strings.Fields(v), " "))
			}
			value = strings.Join(vs, ",")
		}
		headers.WriteString(name + ":" + value + "\n")
	}
	rawPath, rawQuery, _ := strings.Cut(r.RequestURI, "?")
	if rawQuery != "" {
		return fmt.Errorf("unexpected query %q", rawQuery)
	}
	canonical := r.Method + "\n" + rawPath + "\n\n" + headers.String() + "\n" + fields["SignedHeaders"] + "\n" + r.Header.Get("X-Amz-Content-Sha256")
	canonicalHash := sha256.Sum256([]byte(canonical))
	stringToSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + strings.Join(cred[1:], "/") + "\n" + hex.EncodeToString(canonicalHash[:])

	mac := func(key []byte, data string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	key := mac(mac(mac(mac([]byte("AWS4"+fakeSecretKey), cred[1]), cred[2]), cred[3]), cred[4])
	want := hex.EncodeToString(mac(key, stringToSign))
	if !hmac.Equal([]byte(want), []byte(fields["Signature"])) {
		return errors.New("signature does not match")
	}
	return nil
}

func TestS3Contract(t *testing.T) {
	t.Parallel()
	testStore(t, func(t *testing.T) blob.Store {
		_, srv := newFakeS3(t)
		return newS3Store(t, srv, nil)
	})
}

func TestS3PutSendsContentType(t *testing.T) {
	t.Parallel()
	fake, srv := newFakeS3(t)
	s := newS3Store(t, srv, nil)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	put(t, s, "photos/a.png", png)
	o, ok := fake.object("photos/a.png")
	if !ok || string(o.data) != png || o.contentType != "image/png" {
		t.Fatalf("stored %+v, want the PNG bytes as image/png", o)
	}
}

func TestS3WrongSecretIsReported(t *testing.T) {
	t.Parallel()
	_, srv := newFakeS3(t)
	s := newS3Store(t, srv, func(c *blob.S3Config) { c.SecretKey = "wrong" })
	err := s.Put(t.Context(), "photos/a.jpg", strings.NewReader("x"))
	if err == nil || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
		t.Fatalf("Put = %v, want an error naming SignatureDoesNotMatch", err)
	}
	if _, _, err := s.Open(t.Context(), "photos/a.jpg"); err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Open = %v, want an error other than ErrNotFound", err)
	}
}

func TestS3MissingBucketIsNotAMissingKey(t *testing.T) {
	t.Parallel()
	_, srv := newFakeS3(t)
	s := newS3Store(t, srv, func(c *blob.S3Config) { c.Bucket = "other-bucket" })
	_, _, err := s.Open(t.Context(), "photos/a.jpg")
	if err == nil || errors.Is(err, blob.ErrNotFound) || !strings.Contains(err.Error(), "NoSuchBucket") {
		t.Fatalf("Open = %v, want an error naming NoSuchBucket", err)
	}
}

func TestS3ReadAfterSeekRefusesANewerVersion(t *testing.T) {
	t.Parallel()
	_, srv := newFakeS3(t)
	s := newS3Store(t, srv, nil)
	put(t, s, "doc", "old content")
	f, _, err := s.Open(t.Context(), "doc")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	put(t, s, "doc", "new content!")
	if _, err := f.Seek(4, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("read %q, %v; want an error saying the object changed", b, err)
	}
}

func TestNewS3RefusesBadConfig(t *testing.T) {
	t.Parallel()
	ok := blob.S3Config{Endpoint: "https://s3.example.com", Bucket: "b", AccessKey: "a", SecretKey: "s"}
	for name, mutate := range map[string]func(*blob.S3Config){
		"no scheme":     func(c *blob.S3Config) { c.Endpoint = "s3.example.com" },
		"ftp":           func(c *blob.S3Config) { c.Endpoint = "ftp://s3.example.com" },
		"path":          func(c *blob.S3Config) { c.Endpoint = "https://s3.example.com/prefix" },
		"no bucket":     func(c *blob.S3Config) { c.Bucket = "" },
		"slash":         func(c *blob.S3Config) { c.Bucket = "a/b" },
		"no access key": func(c *blob.S3Config) { c.AccessKey = "" },
		"no secret":     func(c *blob.S3Config) { c.SecretKey = "" },
	} {
		c := ok
		mutate(&c)
		if _, err := blob.NewS3(c); err == nil {
			t.Errorf("%s: NewS3(%+v) succeeded", name, c)
		}
	}
	if _, err := blob.NewS3(ok); err != nil {
		t.Errorf("valid config refused: %v", err)
	}
}

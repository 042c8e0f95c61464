package blob_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"clearvest/platform/blob"
)

const (
	fakeAccessKey = "AKIDFAKEFAKEFAKE"
	fakeSecretKey = "fake/secret+key/FAKEFAKEFAKEFAKEFAKE"
	fakeRegion    = "eu-test-1"
	fakeBucket    = "clearvest-test"
)

// fakeS3 is an in-process S3: gofakes3 with its in-memory backend, served by httptest. In
// front of it sits what gofakes3 leaves out and these tests need: the SigV4 check S3 makes on
// every request (done with the AWS SDK's signer, an implementation independent of the
// client's) and on a body whose SHA-256 was signed, signed-chunk bodies in multipart parts,
// If-Match on GET, and transient failures on demand.
type fakeS3 struct {
	srv     *httptest.Server
	backend *s3mem.Backend
	s3      http.Handler

	mu       sync.Mutex
	failures int      // answer this many coming requests with 503 SlowDown
	requests []string // "METHOD key?query" of every request that passed the checks
}

func newFakeS3(t *testing.T, useTLS bool) *fakeS3 {
	t.Helper()
	f := &fakeS3{backend: s3mem.New()}
	f.s3 = gofakes3.New(f.backend).Server()
	if err := f.backend.CreateBucket(fakeBucket); err != nil {
		t.Fatal(err)
	}
	if useTLS {
		f.srv = httptest.NewTLSServer(f)
	} else {
		f.srv = httptest.NewServer(f)
	}
	t.Cleanup(f.srv.Close)
	return f
}

// store returns a store on the fake, with mutate applied to its configuration.
func (f *fakeS3) store(t *testing.T, mutate func(*blob.S3Config)) *blob.S3 {
	t.Helper()
	cfg := blob.S3Config{
		Endpoint: f.srv.URL, Bucket: fakeBucket, Region: fakeRegion,
		AccessKey: fakeAccessKey, SecretKey: fakeSecretKey, Transport: f.srv.Client().Transport,
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

func (f *fakeS3) failNext(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = n
}

func (f *fakeS3) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func s3Error(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, message)
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if status, code, message := verifySigV4(r); status != 0 {
		s3Error(w, status, code, message)
		return
	}
	f.mu.Lock()
	failing := f.failures > 0
	if failing {
		f.failures--
	} else {
		f.requests = append(f.requests, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	}
	f.mu.Unlock()
	if failing {
		s3Error(w, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
		return
	}
	switch payload := r.Header.Get("X-Amz-Content-Sha256"); {
	case payload == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD":
		if err := decodeChunked(r); err != nil {
			s3Error(w, http.StatusBadRequest, "IncompleteBody", err.Error())
			return
		}
	case payload != "UNSIGNED-PAYLOAD":
		body, err := io.ReadAll(r.Body)
		if sum := sha256.Sum256(body); err != nil || hex.EncodeToString(sum[:]) != payload {
			s3Error(w, http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if match := r.Header.Get("If-Match"); r.Method == http.MethodGet && match != "" {
		current := httptest.NewRecorder()
		f.s3.ServeHTTP(current, r.Clone(r.Context()))
		if etag := current.Header().Get("ETag"); current.Code < 300 && etag != match {
			s3Error(w, http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
			return
		}
	}
	f.s3.ServeHTTP(w, r)
}

// verifySigV4 recomputes the signature of r from what arrived on the wire, as S3 does, and
// returns the status and error S3 would answer when it does not match.
func verifySigV4(r *http.Request) (status int, code, message string) {
	fields, ok := authFields(r.Header)
	if !ok {
		return http.StatusForbidden, "AccessDenied", "not a SigV4 Authorization header"
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[3] != "s3" || scope[4] != "aws4_request" {
		return http.StatusBadRequest, "AuthorizationHeaderMalformed", "bad credential scope " + fields["Credential"]
	}
	if scope[0] != fakeAccessKey {
		return http.StatusForbidden, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records."
	}
	if scope[2] != fakeRegion {
		return http.StatusBadRequest, "AuthorizationHeaderMalformed", fmt.Sprintf("the region '%s' is wrong; expecting '%s'", scope[2], fakeRegion)
	}
	signedAt, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || scope[1] != signedAt.Format("20060102") || time.Since(signedAt).Abs() > 15*time.Minute {
		return http.StatusForbidden, "RequestTimeTooSkewed", "bad or stale X-Amz-Date"
	}

	// Sign a copy holding exactly the headers the client says it signed.
	signed := strings.Split(fields["SignedHeaders"], ";")
	c := r.Clone(r.Context())
	c.Header = http.Header{}
	c.ContentLength = 0
	for _, name := range signed {
		switch name {
		case "host":
		case "content-length":
			c.ContentLength = r.ContentLength
		default:
			c.Header[http.CanonicalHeaderKey(name)] = r.Header.Values(name)
		}
	}
	creds := aws.Credentials{AccessKeyID: fakeAccessKey, SecretAccessKey: fakeSecretKey}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	if err := signer.SignHTTP(r.Context(), creds, c, r.Header.Get("X-Amz-Content-Sha256"), "s3", fakeRegion, signedAt); err != nil {
		return http.StatusInternalServerError, "InternalError", err.Error()
	}
	if want, _ := authFields(c.Header); want["Signature"] != fields["Signature"] || want["SignedHeaders"] != fields["SignedHeaders"] {
		return http.StatusForbidden, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method."
	}
	return 0, "", ""
}

// decodeChunked replaces a body sent in signed chunks (aws-chunked: "size-in-hex;chunk-signature=...\r\n",
// the data, "\r\n", ending with a chunk of size 0) by its content. gofakes3 decodes it only
// in whole-object PUTs, S3 in parts of multipart uploads too. The chunk signatures are not
// checked; the seed signature was.
func decodeChunked(r *http.Request) error {
	in := bufio.NewReader(r.Body)
	var out bytes.Buffer
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return err
		}
		hexSize, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		size, err := strconv.ParseInt(hexSize, 16, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("bad chunk header %q", line)
		}
		if _, err := io.CopyN(&out, in, size); err != nil {
			return err
		}
		if crlf, err := in.ReadString('\n'); err != nil || crlf != "\r\n" {
			return fmt.Errorf("chunk not followed by CRLF: %q, %v", crlf, err)
		}
		if size == 0 {
			break
		}
	}
	if decoded := r.Header.Get("X-Amz-Decoded-Content-Length"); decoded != strconv.Itoa(out.Len()) {
		return fmt.Errorf("decoded %d bytes, X-Amz-Decoded-Content-Length says %s", out.Len(), decoded)
	}
	r.Body = io.NopCloser(&out)
	r.ContentLength = int64(out.Len())
	r.TransferEncoding = nil
	r.Header.Set("Content-Length", strconv.Itoa(out.Len()))
	r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	r.Header.Del("Content-Encoding")
	return nil
}

// authFields splits a SigV4 Authorization header into Credential, SignedHeaders and Signature.
func authFields(h http.Header) (map[string]string, bool) {
	auth, ok := strings.CutPrefix(h.Get("Authorization"), "AWS4-HMAC-SHA256 ")
	if !ok {
		return nil, false
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(auth, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		fields[k] = v
	}
	return fields, true
}

func TestS3Contract(t *testing.T) {
	t.Parallel()
	for _, useTLS := range []bool{true, false} {
		t.Run("tls="+strconv.FormatBool(useTLS), func(t *testing.T) {
			t.Parallel()
			testStore(t, func(t *testing.T) blob.Store {
				return newFakeS3(t, useTLS).store(t, nil)
			})
		})
	}
}

func TestS3StreamsLongUploadsInParts(t *testing.T) {
	t.Parallel()
	fake := newFakeS3(t, true)
	s := fake.store(t, nil)
	content, _ := stream(t, blob.PartSize+blob.PartSize/2)
	if err := s.Put(t.Context(), "kyc/passport.pdf", content); err != nil {
		t.Fatal(err)
	}
	put(t, s, "photos/a.jpg", "small")
	var parts, singles int
	for _, req := range fake.seen() {
		switch {
		case strings.HasPrefix(req, "PUT /"+fakeBucket+"/kyc/passport.pdf?") && strings.Contains(req, "partNumber="):
			parts++
		case req == "PUT /"+fakeBucket+"/photos/a.jpg?":
			singles++
		}
	}
	if parts != 2 || singles != 1 {
		t.Errorf("requests %q: want the long upload in 2 parts and the small one in a single PUT", fake.seen())
	}
}

func TestS3AbortsAFailedStream(t *testing.T) {
	t.Parallel()
	fake := newFakeS3(t, true)
	s := fake.store(t, nil)
	head, _ := stream(t, blob.PartSize+1000)
	if err := s.Put(t.Context(), "kyc/passport.pdf", io.MultiReader(head, failingReader{})); !errors.Is(err, errReader) {
		t.Fatalf("Put = %v, want the reader's error", err)
	}
	var sent, aborted bool
	for _, req := range fake.seen() {
		sent = sent || strings.HasPrefix(req, "PUT /"+fakeBucket+"/kyc/passport.pdf?") && strings.Contains(req, "partNumber=1&")
		aborted = aborted || strings.HasPrefix(req, "DELETE /"+fakeBucket+"/kyc/passport.pdf?uploadId=")
	}
	if !sent || !aborted {
		t.Fatalf("requests %q: want the first part streamed before the reader failed, then the upload aborted", fake.seen())
	}
	list := httptest.NewRecorder()
	fake.s3.ServeHTTP(list, httptest.NewRequest(http.MethodGet, "/"+fakeBucket+"?uploads", nil))
	var uploads struct {
		Keys []string `xml:"Upload>Key"`
	}
	if err := xml.Unmarshal(list.Body.Bytes(), &uploads); err != nil || list.Code != http.StatusOK {
		t.Fatalf("listing uploads: %d %s: %v", list.Code, list.Body, err)
	}
	if len(uploads.Keys) != 0 {
		t.Errorf("unfinished uploads left behind: %q", uploads.Keys)
	}
}

func TestS3RetriesTransientFailures(t *testing.T) {
	t.Parallel()
	fake := newFakeS3(t, true)
	s := fake.store(t, nil)
	fake.failNext(2)
	put(t, s, "photos/a.jpg", "jpeg bytes")
	fake.failNext(2)
	f, _, err := s.Open(t.Context(), "photos/a.jpg")
	if err != nil {
		t.Fatalf("Open after two 503s: %v", err)
	}
	defer f.Close()
	if got := readAll(t, f); got != "jpeg bytes" {
		t.Errorf("content = %q", got)
	}
}

func TestS3PutSendsContentType(t *testing.T) {
	t.Parallel()
	fake := newFakeS3(t, true)
	s := fake.store(t, nil)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	put(t, s, "photos/a.png", png)
	o, err := fake.backend.HeadObject(fakeBucket, "photos/a.png")
	if err != nil {
		t.Fatal(err)
	}
	if o.Size != int64(len(png)) || o.Metadata["Content-Type"] != "image/png" {
		t.Fatalf("stored %d bytes with metadata %v, want the PNG as image/png", o.Size, o.Metadata)
	}
}

func TestS3ConfigurationErrorsAreReported(t *testing.T) {
	t.Parallel()
	fake := newFakeS3(t, true)
	put(t, fake.store(t, nil), "photos/a.jpg", "x")
	for _, tt := range []struct {
		name   string
		mutate func(*blob.S3Config)
		want   string
	}{
		{"wrong access key", func(c *blob.S3Config) { c.AccessKey = "AKIDOTHER" }, "InvalidAccessKeyId"},
		{"wrong secret key", func(c *blob.S3Config) { c.SecretKey = "wrong" }, "SignatureDoesNotMatch"},
		{"wrong region", func(c *blob.S3Config) { c.Region = "us-west-2" }, "AuthorizationHeaderMalformed: the region 'us-west-2' is wrong"},
		{"missing bucket", func(c *blob.S3Config) { c.Bucket = "other-bucket" }, "NoSuchBucket"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := fake.store(t, tt.mutate)
			err := s.Put(t.Context(), "photos/b.jpg", strings.NewReader("x"))
			checkReported(t, "Put", err, tt.want)
			_, _, err = s.Open(t.Context(), "photos/a.jpg")
			checkReported(t, "Open", err, tt.want)
			err = s.Delete(t.Context(), "photos/a.jpg")
			checkReported(t, "Delete", err, tt.want)
		})
	}
}

func TestS3EndpointErrorsAreReported(t *testing.T) {
	t.Parallel()
	plain, secure := newFakeS3(t, false), newFakeS3(t, true)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	for _, tt := range []struct {
		name   string
		fake   *fakeS3
		mutate func(*blob.S3Config)
		want   string
	}{
		{"nothing listening", plain, func(c *blob.S3Config) { c.Endpoint = "http://" + closedAddr }, "connection refused"},
		{"TLS to a plain server", plain, func(c *blob.S3Config) { c.Endpoint = strings.Replace(c.Endpoint, "http:", "https:", 1) }, "server gave HTTP response to HTTPS client"},
		{"plain to a TLS server", secure, func(c *blob.S3Config) { c.Endpoint = strings.Replace(c.Endpoint, "https:", "http:", 1) }, "400 Bad Request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.fake.store(t, tt.mutate)
			_, _, err := s.Open(t.Context(), "photos/a.jpg")
			checkReported(t, "Open", err, tt.want)
		})
	}
}

// checkReported fails unless err is an error an operator can act on: not a missing key, naming
// the bucket, the endpoint and the cause.
func checkReported(t *testing.T, op string, err error, want string) {
	t.Helper()
	if err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Errorf("%s = %v, want an error other than ErrNotFound", op, err)
		return
	}
	for _, part := range []string{want, "bucket ", " at http"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%s = %q, want it to contain %q", op, err, part)
		}
	}
}

func TestS3ReadAfterSeekRefusesANewerVersion(t *testing.T) {
	t.Parallel()
	s := newFakeS3(t, true).store(t, nil)
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

package blob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// S3Config locates a bucket of an S3-compatible object store (AWS S3, MinIO, Ceph, Cloudflare
// R2, ...).
type S3Config struct {
	// Endpoint is the base URL of the service, scheme and host only: "https://s3.amazonaws.com",
	// "http://127.0.0.1:9000".
	Endpoint  string
	Bucket    string
	Region    string // "us-east-1" when empty; MinIO and R2 accept any
	AccessKey string
	SecretKey string
	// Client is the HTTP client to use; nil means a default one. Tests pass the client of an
	// httptest server.
	Client *http.Client
}

// S3 is a Store in a bucket of an S3-compatible object store. Requests use path-style URLs
// (endpoint/bucket/key) because every compatible implementation supports them, while
// virtual-hosted buckets (bucket.endpoint) need wildcard DNS that self-hosted ones rarely have.
type S3 struct {
	base   *url.URL
	bucket string
	signer sigV4
	client *http.Client
	now    func() time.Time
}

var _ Store = (*S3)(nil)

// NewS3 checks cfg and returns the store. It makes no request: an unreachable service is
// reported by the first operation, so the application can start while the store is briefly down.
func NewS3(cfg S3Config) (*S3, error) {
	base, err := url.Parse(cfg.Endpoint)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" ||
		(base.Path != "" && base.Path != "/") || base.RawQuery != "" || base.User != nil {
		return nil, fmt.Errorf("blob: s3 endpoint %q must be a URL with scheme and host only, e.g. https://s3.amazonaws.com", cfg.Endpoint)
	}
	base.Path = ""
	if cfg.Bucket == "" || strings.Contains(cfg.Bucket, "/") {
		return nil, fmt.Errorf("blob: s3 bucket %q is not a bucket name", cfg.Bucket)
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, errors.New("blob: s3 needs an access key and a secret key")
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	client := cfg.Client
	if client == nil {
		transport := http.DefaultTransport.(*http.Transport).Clone()
		// No overall timeout: a large object may legitimately take long to stream. A service
		// that accepts the connection and then says nothing is caught here instead.
		transport.ResponseHeaderTimeout = 30 * time.Second
		client = &http.Client{Transport: transport}
	}
	// A redirect from S3 means a wrong region or endpoint; following it would drop the
	// Authorization header and turn a clear error into a confusing one.
	noRedirects := *client
	noRedirects.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &S3{
		base:   base,
		bucket: cfg.Bucket,
		signer: sigV4{accessKey: cfg.AccessKey, secretKey: cfg.SecretKey, region: region, service: "s3"},
		client: &noRedirects,
		now:    time.Now,
	}, nil
}

func (s *S3) objectURL(key string) *url.URL {
	u := *s.base
	u.Path = "/" + s.bucket + "/" + key
	// Set explicitly so the path on the wire is exactly the one signed; Go's own escaping
	// leaves characters such as '+' and '=' alone, which SigV4 encodes.
	u.RawPath = "/" + uriEncode(s.bucket, true) + "/" + uriEncode(key, false)
	return &u
}

func (s *S3) do(ctx context.Context, method, key string, body []byte, header http.Header) (*http.Response, error) {
	var r io.Reader
	payloadSHA := emptyPayloadSHA
	if body != nil {
		r = bytes.NewReader(body)
		sum := sha256.Sum256(body)
		payloadSHA = hex.EncodeToString(sum[:])
	}
	req, err := http.NewRequestWithContext(ctx, method, s.objectURL(key).String(), r)
	if err != nil {
		return nil, fmt.Errorf("blob: s3 %s %s: %w", method, key, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	s.signer.sign(req, payloadSHA, s.now())
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("blob: s3 %s %s: %w", method, key, err)
	}
	return resp, nil
}

// Put implements Store. The content is read into memory first: the signature covers its
// SHA-256, which must be known before the request starts. Blobs here are small (photos are at
// most a few megabytes), and S3 itself makes an object visible only once it is complete.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) error {
	if err := checkKey(key); err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	// The interface carries no content type; sniffing gives the bucket a sensible one for
	// anyone inspecting it, though our own handler decides what it serves.
	header := http.Header{"Content-Type": {http.DetectContentType(data)}}
	resp, err := s.do(ctx, http.MethodPut, key, data, header)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return responseError(http.MethodPut, key, resp)
	}
	return nil
}

// Open implements Store. The object is streamed: nothing is buffered, and a Seek costs a new
// ranged request only when the next Read comes. ctx governs the reads as well as the opening.
func (s *S3) Open(ctx context.Context, key string) (io.ReadSeekCloser, Info, error) {
	if err := checkKey(key); err != nil {
		return nil, Info{}, err
	}
	resp, err := s.do(ctx, http.MethodGet, key, nil, nil)
	if err != nil {
		return nil, Info{}, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, Info{}, responseError(http.MethodGet, key, resp)
	}
	if resp.ContentLength < 0 {
		resp.Body.Close()
		return nil, Info{}, fmt.Errorf("blob: s3 GET %s: response has no Content-Length", key)
	}
	info := Info{Size: resp.ContentLength}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		info.ModTime = t
	}
	return &s3Object{
		s: s, ctx: ctx, key: key, etag: resp.Header.Get("ETag"), size: info.Size, body: resp.Body,
	}, info, nil
}

// Delete implements Store.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	resp, err := s.do(ctx, http.MethodDelete, key, nil, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusNoContent:
		return nil
	case resp.StatusCode == http.StatusNotFound:
		// S3 answers 204 for a missing key, but some compatible stores answer 404 NoSuchKey.
		err := responseError(http.MethodDelete, key, resp)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	}
	return responseError(http.MethodDelete, key, resp)
}

// responseError turns a failed response into an error carrying S3's own code and message
// (SignatureDoesNotMatch, NoSuchBucket, ...), which is what an operator needs to fix the setup.
func responseError(method, key string, resp *http.Response) error {
	var body struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = xml.Unmarshal(raw, &body) // a body that is not S3's XML still leaves the status to report
	// Only NoSuchKey means the object is missing; a 404 for a missing bucket is a configuration
	// error that must not pass for an absent photo. A bare 404 (HEAD, or a terse store) counts
	// as a missing key.
	if resp.StatusCode == http.StatusNotFound && (body.Code == "NoSuchKey" || body.Code == "") {
		return ErrNotFound
	}
	detail := resp.Status
	if body.Code != "" {
		detail += ": " + body.Code
	}
	if body.Message != "" {
		detail += ": " + body.Message
	}
	return fmt.Errorf("blob: s3 %s %s: %s", method, key, detail)
}

// s3Object reads an object as it arrives. After a Seek the next Read asks for the rest of the
// object from the new offset, pinned to the ETag first seen, so a concurrent overwrite makes the
// read fail instead of splicing two versions together.
type s3Object struct {
	s      *S3
	ctx    context.Context
	key    string
	etag   string
	size   int64
	off    int64
	body   io.ReadCloser // nil: open at off on the next Read
	closed bool
}

func (o *s3Object) Read(p []byte) (int, error) {
	if o.closed {
		return 0, fmt.Errorf("blob: read %s: already closed", o.key)
	}
	if o.off >= o.size {
		return 0, io.EOF
	}
	if o.body == nil {
		if err := o.reopen(); err != nil {
			return 0, err
		}
	}
	n, err := o.body.Read(p)
	o.off += int64(n)
	if errors.Is(err, io.EOF) && o.off < o.size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (o *s3Object) reopen() error {
	header := http.Header{"Range": {"bytes=" + strconv.FormatInt(o.off, 10) + "-"}}
	if o.etag != "" {
		header.Set("If-Match", o.etag)
	}
	resp, err := o.s.do(o.ctx, http.MethodGet, o.key, nil, header)
	if err != nil {
		return err
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusOK:
		// A store that ignores Range sends the whole object; skip to the offset.
		if _, err := io.CopyN(io.Discard, resp.Body, o.off); err != nil {
			resp.Body.Close()
			return fmt.Errorf("blob: s3 GET %s: %w", o.key, err)
		}
	case http.StatusPreconditionFailed:
		resp.Body.Close()
		return fmt.Errorf("blob: s3 GET %s: the object changed while being read", o.key)
	default:
		defer resp.Body.Close()
		return responseError(http.MethodGet, o.key, resp)
	}
	o.body = resp.Body
	return nil
}

func (o *s3Object) Seek(offset int64, whence int) (int64, error) {
	if o.closed {
		return 0, fmt.Errorf("blob: seek %s: already closed", o.key)
	}
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = o.off + offset
	case io.SeekEnd:
		abs = o.size + offset
	default:
		return 0, fmt.Errorf("blob: seek %s: invalid whence %d", o.key, whence)
	}
	if abs < 0 {
		return 0, fmt.Errorf("blob: seek %s: negative position", o.key)
	}
	if abs != o.off && o.body != nil {
		o.body.Close()
		o.body = nil
	}
	o.off = abs
	return abs, nil
}

func (o *s3Object) Close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	if o.body != nil {
		return o.body.Close()
	}
	return nil
}

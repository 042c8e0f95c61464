package blob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config locates a bucket of an S3-compatible object store (AWS S3, MinIO, Ceph, Cloudflare
// R2, ...).
type S3Config struct {
	// Endpoint is the base URL of the service, scheme and host only: "https://s3.amazonaws.com",
	// "http://127.0.0.1:9000". The scheme decides whether requests use TLS.
	Endpoint  string
	Bucket    string
	Region    string // "us-east-1" when empty; MinIO and R2 accept any
	AccessKey string
	SecretKey string
	// Transport carries the requests; nil means the client library's default, which has
	// connection, TLS handshake and response header timeouts but no overall one, since a
	// large object may legitimately take long to stream. Tests pass an httptest server's.
	Transport http.RoundTripper
}

// PartSize is how much of an upload of unknown length is held in memory and sent per request.
// S3 allows at most 10,000 parts, so an object may reach 80 GiB, and one upload holds about two
// parts in memory: the client library's buffer and ours (see S3.Put).
const PartSize = 8 << 20

// S3 is a Store in a bucket of an S3-compatible object store, through the minio-go client:
// it signs requests, streams uploads of unknown length as multipart uploads, and retries
// throttled or failed requests with back-off. Requests use path-style URLs
// (endpoint/bucket/key) because every compatible implementation supports them, while
// virtual-hosted buckets (bucket.endpoint) need wildcard DNS that self-hosted ones rarely have.
type S3 struct {
	client *minio.Client
	bucket string
	where  string // bucket and endpoint, for error messages
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
	client, err := minio.New(base.Host, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: base.Scheme == "https",
		// Given explicitly, so the client never asks the service for the bucket's location.
		Region:       region,
		BucketLookup: minio.BucketLookupPath,
		Transport:    cfg.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("blob: s3 endpoint %q: %w", cfg.Endpoint, err)
	}
	return &S3{client: client, bucket: cfg.Bucket, where: fmt.Sprintf("bucket %s at %s://%s", cfg.Bucket, base.Scheme, base.Host)}, nil
}

// Put implements Store. Content that fits in one part goes up in a single request whose
// signature covers its SHA-256, so S3 refuses a body altered on the way. Anything longer is
// streamed as a multipart upload, one part in memory at a time, which S3 makes visible only
// once complete and which the client aborts if r fails midway.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	head, err := io.ReadAll(io.LimitReader(r, PartSize))
	if err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	// The interface carries no content type; sniffing gives the bucket a sensible one for
	// anyone inspecting it, though our own handlers decide what they serve.
	opts := minio.PutObjectOptions{ContentType: http.DetectContentType(head), PartSize: PartSize}
	if len(head) == PartSize {
		_, err = s.client.PutObject(ctx, s.bucket, key, io.MultiReader(bytes.NewReader(head), r), -1, opts)
	} else {
		sum := sha256.Sum256(head)
		// With the hash given, this stops the client from signing the body chunk by chunk
		// instead (its default over plain HTTP), which sends an empty body without a
		// Content-Length.
		opts.DisableContentSha256 = true
		_, err = minio.Core{Client: s.client}.PutObject(ctx, s.bucket, key, bytes.NewReader(head), int64(len(head)), "", hex.EncodeToString(sum[:]), opts)
	}
	if err != nil {
		return s.fail("PUT", key, err)
	}
	return nil
}

// Open implements Store. The object is streamed: nothing is buffered, and a Seek costs a new
// ranged request only when the next Read comes, pinned to the version first read so that a
// concurrent overwrite makes the read fail instead of splicing two versions together. ctx
// governs the reads as well as the opening.
func (s *S3) Open(ctx context.Context, key string) (io.ReadSeekCloser, Info, error) {
	if err := checkKey(key); err != nil {
		return nil, Info{}, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, Info{}, s.fail("GET", key, err)
	}
	// A Read of no bytes makes the object send its GET now, so a missing key is reported here
	// and the size comes from that response. Stat first would cost a HEAD as well, and a HEAD
	// answer has no body to tell a missing bucket from a missing key.
	if _, err := obj.Read(nil); err != nil && !errors.Is(err, io.EOF) {
		obj.Close()
		return nil, Info{}, s.fail("GET", key, err)
	}
	oi, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, Info{}, s.fail("GET", key, err)
	}
	return &s3Object{Object: obj, s: s, key: key}, Info{Size: oi.Size, ModTime: oi.LastModified}, nil
}

// Stat implements Store. It is one HEAD request, whose answer has no body: a missing bucket
// reads as ErrNotFound here, unlike in Open.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := checkKey(key); err != nil {
		return Info{}, err
	}
	oi, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Info{}, s.fail("HEAD", key, err)
	}
	return Info{Size: oi.Size, ModTime: oi.LastModified}, nil
}

// Delete implements Store.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
	// S3 answers 204 for a missing key, but some compatible stores answer 404 NoSuchKey.
	if err := s.fail("DELETE", key, err); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

// fail turns a client error into one an operator can act on: S3's own code and message
// (InvalidAccessKeyId, SignatureDoesNotMatch, NoSuchBucket, ...) with the bucket and endpoint.
// Only NoSuchKey means the object is missing; a missing bucket is a configuration error that
// must not pass for an absent photo.
func (s *S3) fail(method, key string, err error) error {
	if err == nil {
		return nil
	}
	var resp minio.ErrorResponse
	if !errors.As(err, &resp) || resp.Code == "" {
		return fmt.Errorf("blob: s3 %s %s (%s): %w", method, key, s.where, err)
	}
	switch resp.Code {
	case minio.NoSuchKey:
		return ErrNotFound
	case minio.PreconditionFailed:
		return fmt.Errorf("blob: s3 %s %s: the object changed while being read", method, key)
	}
	return fmt.Errorf("blob: s3 %s %s (%s): %s: %s", method, key, s.where, resp.Code, resp.Message)
}

// s3Object gives the client's object the store's errors.
type s3Object struct {
	*minio.Object
	s   *S3
	key string
}

func (o *s3Object) Read(p []byte) (int, error) {
	n, err := o.Object.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = o.s.fail("GET", o.key, err)
	}
	return n, err
}

func (o *s3Object) Seek(offset int64, whence int) (int64, error) {
	pos, err := o.Object.Seek(offset, whence)
	if err != nil && !errors.Is(err, io.EOF) {
		err = o.s.fail("GET", o.key, err)
	}
	return pos, err
}

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"

	"clearvest/app/kyc"
	"clearvest/eventstore/pii"
	"clearvest/platform/blob"
)

// kycFiles is where identity documents are kept: the configured blob store (local disk or S3).
func kycFiles(blobs blob.Store, _ *pii.Cipher) kyc.Files {
	return plainFiles{blobs}
}

type plainFiles struct{ store blob.Store }

func (p plainFiles) Put(ctx context.Context, key, _ string, r io.Reader) (kyc.Written, error) {
	h := sha256.New()
	c := &countingReader{r: io.TeeReader(r, h)}
	if err := p.store.Put(ctx, key, c); err != nil {
		return kyc.Written{}, err
	}
	return kyc.Written{Size: c.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func (p plainFiles) Open(ctx context.Context, key, _ string) (io.ReadCloser, error) {
	f, _, err := p.store.Open(ctx, key)
	return f, err
}

func (p plainFiles) Delete(ctx context.Context, key string) error { return p.store.Delete(ctx, key) }

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

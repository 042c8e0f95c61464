package kyc

import (
	"context"
	"io"

	"clearvest/platform/blob/sealed"
)

// SealedFiles keeps the documents in a sealed store: each file encrypted under a random key of
// its own, wrapped by the personal-data key of the user it belongs to.
func SealedFiles(s *sealed.Store) Files { return sealedFiles{s} }

type sealedFiles struct{ s *sealed.Store }

func (f sealedFiles) Put(ctx context.Context, key, subject string, r io.Reader) (Written, error) {
	w, err := f.s.Put(ctx, key, subject, r)
	return Written{Size: w.Size, SHA256: w.SHA256}, err
}

func (f sealedFiles) Open(ctx context.Context, key, subject string) (io.ReadCloser, error) {
	return f.s.Open(ctx, key, subject)
}

func (f sealedFiles) Delete(ctx context.Context, key string) error { return f.s.Delete(ctx, key) }

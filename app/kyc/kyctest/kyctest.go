// Package kyctest wires a real KYC service for tests, on top of an accounts test environment:
// the same database, command runner, personal-data cipher and mail outbox, and a blob
// directory whose files tests can look at.
package kyctest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"clearvest/app/accounts/accountstest"
	"clearvest/app/command"
	"clearvest/app/kyc"
	"clearvest/domain/identity"
	domainkyc "clearvest/domain/kyc"
	"clearvest/eventstore"
	"clearvest/platform/blob"
)

// Env is an accounts environment with the KYC service.
type Env struct {
	*accountstest.Env
	KYC *kyc.Service
	// Blobs is the store under the documents; Dir is its directory.
	Blobs blob.Store
	Dir   string
}

// New builds the environment. Closing an account deletes its documents, as in serve.
func New(t testing.TB, opts ...accountstest.Option) *Env {
	t.Helper()
	var svc *kyc.Service
	opts = append(opts, accountstest.WithOnClosed(func(ctx context.Context, userID string) error {
		return svc.DeleteClosedAccountFiles(ctx, userID)
	}))
	env := accountstest.New(t, opts...)
	dir := filepath.Join(t.TempDir(), "kyc-blobs")
	blobs, err := blob.NewDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc, err = kyc.New(kyc.Config{PublicURL: accountstest.PublicURL}, kyc.Deps{
		Pool: env.Pool, Commands: env.Commands, Files: PlainFiles{Store: blobs}, Keys: env.Cipher, Sender: env.Sender,
		Clock: env.Clock, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Env: env, KYC: svc, Blobs: blobs, Dir: dir}
}

// Case loads a user's case as the stream is now.
func (e *Env) Case(ctx context.Context, userID string) (*domainkyc.Case, error) {
	return command.Load(ctx, e.Commands, eventstore.NewStreamID(identity.StreamCategory, userID), domainkyc.New)
}

// CountFiles counts the stored document files (temporary files of a write in progress aside).
func (e *Env) CountFiles() (int, error) {
	n := 0
	err := filepath.WalkDir(e.Dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			n++
		}
		return err
	})
	return n, err
}

// PlainFiles keeps documents in a blob store as they are, measuring them while they stream.
type PlainFiles struct{ Store blob.Store }

func (p PlainFiles) Put(ctx context.Context, key, _ string, r io.Reader) (kyc.Written, error) {
	h := sha256.New()
	c := &counter{r: io.TeeReader(r, h)}
	if err := p.Store.Put(ctx, key, c); err != nil {
		return kyc.Written{}, err
	}
	return kyc.Written{Size: c.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func (p PlainFiles) Open(ctx context.Context, key, _ string) (io.ReadCloser, error) {
	f, _, err := p.Store.Open(ctx, key)
	return f, err
}

func (p PlainFiles) Delete(ctx context.Context, key string) error { return p.Store.Delete(ctx, key) }

type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// Package kyctest wires a real KYC service for tests, as serve does, on top of an accounts test
// environment: the same database, command runner, personal-data cipher and mail outbox, and the
// sealed store over a blob directory whose files tests can look at.
package kyctest

import (
	"context"
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
	"clearvest/platform/blob/sealed"
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
		Pool: env.Pool, Commands: env.Commands, Files: kyc.SealedFiles(sealed.New(blobs, env.Cipher)), Keys: env.Cipher, Sender: env.Sender,
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

// Package blob stores files the application keeps outside the database: profile photos now, KYC
// documents later. Keys are relative slash-separated paths ("photos/abc.jpg") chosen by the
// application, never by a client, and an implementation must refuse any key that would leave its
// storage. The local-disk store is the default; the S3 store (any S3-compatible service) is for
// deployments where several hosts must share files.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound is returned for a key that holds nothing.
var ErrNotFound = errors.New("blob: not found")

// ErrInvalidKey is returned for a key that is not a clean relative path.
var ErrInvalidKey = errors.New("blob: invalid key")

// Info describes a stored blob.
type Info struct {
	Size    int64
	ModTime time.Time
}

// Store keeps blobs by key.
type Store interface {
	// Put stores the content of r under key, replacing what was there. The length need not be
	// known in advance and the content is never held in memory whole. Readers see either the
	// old content or the whole new one, never a part; if r fails, nothing changes.
	Put(ctx context.Context, key string, r io.Reader) error
	// Open returns the content of key, streamed rather than read into memory; the caller
	// closes it.
	Open(ctx context.Context, key string) (io.ReadSeekCloser, Info, error)
	// Stat describes key without reading it.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// Disk is a Store in a directory of the local file system. Every access goes through an
// os.Root, so no key, however crafted, reaches a file outside the directory, even by a symbolic
// link planted inside it.
type Disk struct {
	dir string
}

// NewDisk returns a store in dir, creating the directory (0700: the files are personal data).
func NewDisk(dir string) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob: %w", err)
	}
	return &Disk{dir: dir}, nil
}

var _ Store = (*Disk)(nil)

func checkKey(key string) error {
	if key == "" || !fs.ValidPath(key) || strings.Contains(key, `\`) || path.Clean(key) != key {
		return fmt.Errorf("%w: %q", ErrInvalidKey, key)
	}
	return nil
}

// Put implements Store.
func (d *Disk) Put(ctx context.Context, key string, r io.Reader) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	defer root.Close()
	if dir := path.Dir(key); dir != "." {
		if err := root.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("blob: %w", err)
		}
	}
	// Written under a temporary name and renamed, so a reader never serves half a file.
	tmp := path.Join(path.Dir(key), ".tmp-"+filepath.Base(key)+"-"+fmt.Sprint(time.Now().UnixNano()))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	defer root.Remove(tmp) //nolint:errcheck // fails harmlessly once renamed
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := root.Rename(tmp, key); err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	return nil
}

// Open implements Store.
func (d *Disk) Open(_ context.Context, key string) (io.ReadSeekCloser, Info, error) {
	if err := checkKey(key); err != nil {
		return nil, Info{}, err
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return nil, Info{}, fmt.Errorf("blob: %w", err)
	}
	defer root.Close()
	f, err := root.Open(key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Info{}, ErrNotFound
	}
	if err != nil {
		return nil, Info{}, fmt.Errorf("blob: %w", err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, Info{}, ErrNotFound
	}
	return f, Info{Size: st.Size(), ModTime: st.ModTime()}, nil
}

// Stat implements Store.
func (d *Disk) Stat(_ context.Context, key string) (Info, error) {
	if err := checkKey(key); err != nil {
		return Info{}, err
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return Info{}, fmt.Errorf("blob: %w", err)
	}
	defer root.Close()
	st, err := root.Stat(key)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, ErrNotFound
	}
	if err != nil {
		return Info{}, fmt.Errorf("blob: %w", err)
	}
	if !st.Mode().IsRegular() {
		return Info{}, ErrNotFound
	}
	return Info{Size: st.Size(), ModTime: st.ModTime()}, nil
}

// Delete implements Store.
func (d *Disk) Delete(_ context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	defer root.Close()
	if err := root.Remove(key); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: %w", err)
	}
	return nil
}

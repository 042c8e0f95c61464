//go:build !unix

package pgembed

import (
	"context"
	"errors"
	"log/slog"
	"syscall"
)

// account exists only on Unix, where a root process must hand the server to another user.
type account struct{}

var errUnsupported = errors.New("the embedded PostgreSQL runs on Linux and macOS only; set DATABASE_URL to use a PostgreSQL server")

func serverAccount(context.Context, paths, *slog.Logger) (*account, error) { return nil, nil }
func (*account) prepareDataDir(string) error                               { return nil }
func (*account) chown(string) error                                        { return nil }
func (*account) chownTree(string) error                                    { return nil }
func (*account) sysProcAttr() *syscall.SysProcAttr                         { return nil }

func lockFile(context.Context, string, *slog.Logger) (func(), error) { return nil, errUnsupported }

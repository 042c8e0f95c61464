//go:build !linux

package pgembed

import (
	"context"
	"errors"
)

// Kill crashes the server for tests of crash recovery; it is implemented on Linux only.
func (c *Cluster) Kill(context.Context) error {
	return errors.New("pgembed: Kill is implemented on Linux only")
}

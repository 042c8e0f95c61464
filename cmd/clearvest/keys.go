package main

import (
	"context"
	"log/slog"
	"time"

	"clearvest/eventstore/pii"
)

const (
	// orphanKeyAge is how old a personal-data key without any stream must be before it is
	// deleted: far longer than any registration's transaction, which claims its key anyway.
	orphanKeyAge = time.Hour
	// tidyInterval is how often each serve process tidies the key table.
	tidyInterval = time.Hour
)

// tidyKeys runs pii.Cipher.Tidy at start and then every tidyInterval until ctx ends. Several
// processes doing it at once is harmless; a failure is logged and retried next time.
func tidyKeys(ctx context.Context, cipher *pii.Cipher, logger *slog.Logger) {
	t := time.NewTicker(tidyInterval)
	defer t.Stop()
	for {
		got, err := cipher.Tidy(ctx, orphanKeyAge)
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Error("tidying personal-data keys failed", "err", err)
		case got.Orphans > 0 || got.Respelled > 0:
			logger.Info("personal-data keys tidied", "orphans_deleted", got.Orphans, "erasures_finished", got.Respelled)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"clearvest/eventstore/pii"
	"clearvest/platform/config"
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

const keysUsage = `Usage: clearvest keys rotate

Seals every personal-data key and every authenticator secret again with the current
CLEARVEST_SECRET_KEY, opening each with it or with a key of CLEARVEST_SECRET_KEY_PREVIOUS.

To change the secret key: restart every serve process with the new key as CLEARVEST_SECRET_KEY
and the old one in CLEARVEST_SECRET_KEY_PREVIOUS, run this command, then remove the old key from
CLEARVEST_SECRET_KEY_PREVIOUS. It works while serve runs and may run again.
`

func runKeys(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: keys needs a subcommand: rotate", errUsage)
	}
	switch args[0] {
	case "rotate":
	case "help", "-h", "--help":
		fmt.Fprint(stdout, keysUsage)
		return nil
	default:
		return fmt.Errorf("%w: keys: unknown subcommand %q (want rotate)", errUsage, args[0])
	}
	if len(args) > 1 {
		return fmt.Errorf("%w: keys rotate: unexpected argument %q", errUsage, args[1])
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	ident, done, err := openIdentity(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer done()
	keys, err := ident.cipher.Rotate(ctx)
	if err != nil {
		return fmt.Errorf("keys rotate: %w (%d personal-data keys were sealed again before it stopped)", err, keys.Resealed)
	}
	fmt.Fprintf(stdout, "personal-data keys: %d sealed again with the current key, %d already were\n", keys.Resealed, keys.Current)
	totps, err := ident.accounts.RotateSecrets(ctx)
	if err != nil {
		return fmt.Errorf("keys rotate: %w", err)
	}
	fmt.Fprintf(stdout, "authenticator secrets: %d sealed again with the current key\n", totps)
	fmt.Fprintf(stdout, `Nothing stored needs %[1]s any more. Removing the old key from it ends only
what was handed out under it: e-mailed links and codes sent before the rotation (they last up to
7 days), Google sign-ins under way, and access tokens (15 minutes; browsers renew them from their
session, so nobody is signed out).
`, config.EnvSecretKeyPrev)
	return nil
}

package mail

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"clearvest/platform/correlation"
	"clearvest/platform/pgmigrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migrations creates the mail_outbox table.
var Migrations = pgmigrate.MustFromFS("mail", migrationFS, "migrations")

// Outbox row states.
const (
	StatusPending = "pending"
	StatusSent    = "sent"
	StatusFailed  = "failed"
)

// ForgetRecipientStatement deletes every message to address from the outbox, with the event
// that closes the account: pending ones are not sent, and sent or failed ones no longer keep
// the address, the bodies (which greet the recipient by name) or the error a mail server gave
// about them. It is part of erasing a closed account. Addresses match ignoring case, whether
// stored bare or as "Name <address>".
func ForgetRecipientStatement(address string) (string, []any, error) {
	addr := strings.ToLower(strings.TrimSpace(address))
	if addr == "" {
		return "", nil, errors.New("mail: forget recipient: empty address")
	}
	return `DELETE FROM mail_outbox WHERE lower(to_address) = $1 OR lower(to_address) LIKE '%<' || $2 || '>'`,
		[]any{addr, escapeLike(addr)}, nil
}

// escapeLike makes s match literally inside a LIKE pattern.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Enqueue records msg for sending, inside the caller's transaction: if the transaction rolls
// back, the message was never there. dedupeKey names what causes the message, conventionally the
// causing event's id and the template ("<event-id>/password_reset"); a second Enqueue with the
// same key does nothing, so replaying a command or a handler never mails twice. scrub blanks the
// bodies once the message is sent or given up, for messages carrying one-time links or codes.
//
// Call Sender.Kick after the transaction commits for prompt delivery; otherwise the next poll
// picks the message up.
func Enqueue(ctx context.Context, tx pgx.Tx, dedupeKey string, msg Message, scrub bool) error {
	sql, args, err := EnqueueStatement(ctx, dedupeKey, msg, scrub)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("mail: enqueue: %w", err)
	}
	return nil
}

// EnqueueStatement is Enqueue as a statement and its arguments, for a command that queues its
// writes to send them in one round trip (command.Submit). The row keeps ctx's correlation id.
func EnqueueStatement(ctx context.Context, dedupeKey string, msg Message, scrub bool) (string, []any, error) {
	if strings.TrimSpace(dedupeKey) == "" {
		return "", nil, errors.New("mail: enqueue: empty dedupe key")
	}
	if err := msg.validate(); err != nil {
		return "", nil, fmt.Errorf("mail: enqueue: %w", err)
	}
	id, err := uuid.NewV7() // time-ordered, so new rows append to the index
	if err != nil {
		return "", nil, fmt.Errorf("mail: enqueue: %w", err)
	}
	headers := make(map[string]string, len(msg.Headers)+1)
	hasID := false
	for k, v := range msg.Headers {
		headers[k] = v
		hasID = hasID || strings.EqualFold(k, "Message-ID")
	}
	if !hasID {
		// Fixed now rather than at send time, so that a message sent twice (a sender died after
		// handing it over) carries the same Message-ID and mail clients show it once.
		headers["Message-ID"] = "<" + id.String() + ">"
	}
	h, err := json.Marshal(headers)
	if err != nil {
		return "", nil, fmt.Errorf("mail: enqueue: %w", err)
	}
	return `INSERT INTO mail_outbox
		(id, dedupe_key, to_address, subject, text_body, html_body, headers, scrub_after_send, correlation_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULLIF($9, ''))
		ON CONFLICT (dedupe_key) DO NOTHING`,
		[]any{[16]byte(id), dedupeKey, msg.To, msg.Subject, msg.Text, msg.HTML, h, scrub, correlation.ID(ctx)}, nil
}

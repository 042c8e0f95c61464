package mail

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// BatchItem is one message of a batch: its dedupe key, the message, when it may be sent at the
// earliest (the pace of a bulk send), and whether its bodies are blanked once it is sent (a
// message carrying a one-time link, as Enqueue's scrub).
type BatchItem struct {
	DedupeKey string
	Message   Message
	Due       time.Time
	Scrub     bool
}

// BatchStatement is the statement, and its arguments, that records one message of a batch
// under the batch's name, due at its own time, for a command that sends its writes in one round
// trip (command.Submit). Like Enqueue, an item whose dedupe key is already in the outbox is left
// as it is, so a retried command never mails anyone twice.
func BatchStatement(ctx context.Context, batch string, it BatchItem) (string, []any, error) {
	if batch == "" {
		return "", nil, errors.New("mail: enqueue batch: empty batch name")
	}
	_, args, err := EnqueueStatement(ctx, it.DedupeKey, it.Message, it.Scrub)
	if err != nil {
		return "", nil, err
	}
	// EnqueueStatement's columns, with the batch and the due time added.
	return `INSERT INTO mail_outbox
		(id, dedupe_key, to_address, subject, text_body, html_body, headers, scrub_after_send, correlation_id, batch, next_attempt_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULLIF($9, ''), $10, $11)
		ON CONFLICT (dedupe_key) DO NOTHING`, append(args, batch, it.Due), nil
}

// BatchProgress is where a batch stands: messages sent, given up, and still waiting.
type BatchProgress struct {
	Sent, Failed, Pending int
}

// Querier is what reading a batch needs: a pool or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// BatchCounts returns the progress of each named batch (a batch with no rows left is all zero).
func BatchCounts(ctx context.Context, q Querier, batches []string) (map[string]BatchProgress, error) {
	out := make(map[string]BatchProgress, len(batches))
	if len(batches) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT batch,
		count(*) FILTER (WHERE status = 'sent'), count(*) FILTER (WHERE status = 'failed'), count(*) FILTER (WHERE status = 'pending')
		FROM mail_outbox WHERE batch = ANY($1) GROUP BY batch`, batches)
	if err != nil {
		return nil, fmt.Errorf("mail: batch counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var p BatchProgress
		if err := rows.Scan(&name, &p.Sent, &p.Failed, &p.Pending); err != nil {
			return nil, fmt.Errorf("mail: batch counts: %w", err)
		}
		out[name] = p
	}
	return out, rows.Err()
}

// Withdrawable counts the batch's messages that still wait and that no sender is working on:
// what WithdrawStatement would delete now.
func Withdrawable(ctx context.Context, q Querier, batch string) (int, error) {
	rows, err := q.Query(ctx, `SELECT count(*) FROM mail_outbox WHERE batch = $1 AND status = 'pending' AND claim IS NULL`, batch)
	if err != nil {
		return 0, fmt.Errorf("mail: withdrawable: %w", err)
	}
	n, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[int])
	if err != nil {
		return 0, fmt.Errorf("mail: withdrawable: %w", err)
	}
	return n, nil
}

// WithdrawnAsCounted is the constraint WithdrawStatement's check violation names.
const WithdrawnAsCounted = "mail_withdrawn_as_counted"

// WithdrawStatement is the statement, and its arguments, that deletes the batch's messages that
// still wait and that no sender is working on, for a command that sends its writes in one round
// trip (command.Submit): it fails the transaction with a check violation of WithdrawnAsCounted
// unless it deletes exactly expected of them. A message a sender has claimed is being handed
// over already; it is left to finish (and counts as sent or failed).
func WithdrawStatement(batch string, expected int) (string, []any) {
	return `SELECT mail_withdraw_batch($1, $2)`, []any{batch, expected}
}

// Package correlation carries the id that ties together what one cause set off: an HTTP
// request's id, or one item of a background job. The commands it runs put it on their events
// (eventstore.Metadata.CorrelationID), the e-mails they queue keep it in the outbox, and the log
// lines about any of them name it, so an operator can follow a request from its access log line
// to its events, the read models that took them in, and the e-mail that went out.
package correlation

import (
	"context"
	"crypto/rand"
)

type key struct{}

// With returns ctx carrying id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, key{}, id)
}

// ID is the id ctx carries, or "".
func ID(ctx context.Context) string {
	id, _ := ctx.Value(key{}).(string)
	return id
}

// Ensure returns ctx with an id: the one it carries, else a fresh one. A background job calls
// it once per item, before the item's commands, so their events and e-mails share the id.
func Ensure(ctx context.Context) context.Context {
	if ID(ctx) != "" {
		return ctx
	}
	return With(ctx, rand.Text())
}

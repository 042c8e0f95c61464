package api

import (
	"context"
	"encoding/json"
	"strconv"

	"clearvest/api/apigen"
	"clearvest/app/queuefeed"
	"clearvest/domain/domainerr"
)

var errQueueFeedUnavailable = domainerr.New(domainerr.RuleBroken, "Live queue updates are not available on this server.")

// staffChange is the data of a staff stream's `changed` event.
type staffChange struct {
	Position string   `json:"position"`
	Queues   []string `json:"queues"`
}

// StreamStaffEvents tells staff, live, which of their queues changed: a new request, or a
// decision (another staff member's included).
func (s *server) StreamStaffEvents(ctx context.Context, _ apigen.StreamStaffEventsRequestObject) (apigen.StreamStaffEventsResponseObject, error) {
	if s.queueFeed == nil {
		return nil, errQueueFeedUnavailable
	}
	if _, err := s.caller(ctx); err != nil {
		return nil, err
	}
	// Subscribed before the stream opens, so a change after the client saw "ready" is never
	// missed.
	// A closed feed (the server is stopping) fails the request; the browser retries, reaching
	// another process.
	changes, stop, err := s.queueFeed.Subscribe(ctx)
	if err != nil {
		return nil, err
	}
	return eventStream[queuefeed.Change]{ctx: ctx, changes: changes, stop: stop, data: func(c queuefeed.Change) string {
		b, _ := json.Marshal(staffChange{Position: strconv.FormatInt(c.Position, 10), Queues: c.Queues})
		return string(b)
	}}, nil
}

package apptest

import (
	"context"
	"testing"

	"clearvest/app/command"
	"clearvest/domain/testimonial"
	"clearvest/eventstore"
)

// DoTestimonial runs one command on a testimonial's stream through the same command runner. The
// testimonial events must be registered on a.Codec first (testimonial.RegisterEvents).
func (a *IdentityApp) DoTestimonial(t *testing.T, id string, decide func(*testimonial.Testimonial) error) {
	t.Helper()
	res, err := command.Execute(context.Background(), a.commands, eventstore.NewStreamID(testimonial.StreamCategory, id), testimonial.New,
		eventstore.Metadata{}, decide)
	if err != nil {
		t.Fatalf("command on testimonial-%s: %v", id, err)
	}
	a.Last = max(a.Last, res.Position)
}

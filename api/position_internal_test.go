package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"clearvest/api/middleware"
)

func TestRecordPositionSetsTheHighestPosition(t *testing.T) {
	t.Parallel()
	handler := recordPositions(func(ctx context.Context, _ http.ResponseWriter, _ *http.Request, _ any) (any, error) {
		var wg sync.WaitGroup
		for _, p := range []int64{7, 31, 12} {
			wg.Go(func() { RecordPosition(ctx, p) })
		}
		wg.Wait()
		return nil, nil
	}, "AnyOperation")

	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/api/anything", nil)
	if _, err := handler(r.Context(), w, r, nil); err != nil {
		t.Fatal(err)
	}
	if got := w.Header().Get(middleware.HeaderPosition); got != "31" {
		t.Errorf("%s = %q, want 31", middleware.HeaderPosition, got)
	}

	// Outside a strict operation there is nowhere to record; it must not panic.
	RecordPosition(context.Background(), 5)
}

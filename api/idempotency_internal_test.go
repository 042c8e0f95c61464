package api

import (
	"net/http"
	"testing"

	"clearvest/api/apigen"
)

// Every state-changing operation takes an Idempotency-Key (docs/product-rules.md, "API
// conventions") and declares the answers it may give for it.
func TestEveryStateChangingOperationTakesAnIdempotencyKey(t *testing.T) {
	doc, err := apigen.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := idempotentOperations()
	if err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			switch method {
			case http.MethodPost, http.MethodPut, http.MethodPatch:
			default:
				continue
			}
			if !ops[method+" "+path] {
				t.Errorf("%s (%s %s) does not take the Idempotency-Key header", op.OperationID, method, path)
			}
			for _, status := range []int{http.StatusConflict, http.StatusUnprocessableEntity} {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s (%s %s) does not declare %d", op.OperationID, method, path, status)
				}
			}
		}
	}
}

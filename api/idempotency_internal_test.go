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

// An operation named for the key to be claimed by its command, but misspelt, would quietly have
// it claimed ahead: each must be one that takes the key.
func TestOperationsClaimedByTheirCommandTakeTheKey(t *testing.T) {
	ops, err := idempotentOperations()
	if err != nil {
		t.Fatal(err)
	}
	for op := range claimedByCommand {
		if !ops[op] {
			t.Errorf("%s is listed in claimedByCommand but is no operation that takes the Idempotency-Key header", op)
		}
		if streamedBodies[op] {
			t.Errorf("%s streams its body, so its key cannot be claimed by its command", op)
		}
	}
}

package api

import (
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"clearvest/api/apigen"
)

// specOperations maps "METHOD /path" (the path as written in openapi.yaml) to each operation of
// the embedded OpenAPI document. The document is parsed once per process and only read after:
// parsing it is the dearest part of New, which tests call for every server they start.
var specOperations = sync.OnceValues(func() (map[string]*openapi3.Operation, error) {
	doc, err := apigen.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("api: reading the embedded OpenAPI document: %w", err)
	}
	ops := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops[method+" "+path] = op
		}
	}
	return ops, nil
})

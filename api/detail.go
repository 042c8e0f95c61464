package api

import "clearvest/api/apigen"

// detailedError adds fields of the Error schema to a refusal (httperr.DetailError): the current
// figures of a 409 on a quote that changed.
type detailedError struct {
	error
	fill func(*apigen.Error)
}

func (e detailedError) Unwrap() error                  { return e.error }
func (e detailedError) ErrorDetail(body *apigen.Error) { e.fill(body) }

func detailed(err error, fill func(*apigen.Error)) error {
	return detailedError{error: err, fill: fill}
}

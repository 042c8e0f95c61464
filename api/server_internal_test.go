package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"clearvest/api/apigen"
)

func TestParameterErrorsNameTheParameter(t *testing.T) {
	t.Parallel()
	cause := errors.New("strconv.ParseInt: parsing \"x\": invalid syntax")
	tests := []struct {
		name    string
		err     error
		status  int
		message string
		field   string
	}{
		{"required", &apigen.RequiredParamError{ParamName: "id"}, 400, "id is required.", "id"},
		{"required header", &apigen.RequiredHeaderError{ParamName: "Idempotency-Key", Err: cause}, 400, "The Idempotency-Key header is required.", "Idempotency-Key"},
		{"bad format", &apigen.InvalidParamFormatError{ParamName: "id", Err: cause}, 400, "id has an invalid value.", "id"},
		{"unmarshal", &apigen.UnmarshalingParamError{ParamName: "filter", Err: cause}, 400, "filter has an invalid value.", "filter"},
		{"repeated", &apigen.TooManyValuesForParamError{ParamName: "page", Count: 2}, 400, "page was given more than once.", "page"},
		{"cookie", &apigen.UnescapedCookieParamError{ParamName: "session", Err: cause}, 400, "The session cookie is malformed.", "session"},
		{"anything else", cause, 400, "The request could not be understood. Please check it and try again.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := httptest.NewRecorder()
			parameterError(w, httptest.NewRequest(http.MethodGet, "/api/x", nil), tt.err)
			var body apigen.Error
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			field := ""
			if body.Field != nil {
				field = *body.Field
			}
			if w.Code != tt.status || body.Message != tt.message || field != tt.field {
				t.Errorf("got %d %q field %q, want %d %q field %q", w.Code, body.Message, field, tt.status, tt.message, tt.field)
			}
		})
	}
}

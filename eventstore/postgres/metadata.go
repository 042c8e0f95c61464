package postgres

import (
	"encoding/json"

	"clearvest/eventstore"
)

// decodeMetadata is json.Unmarshal into m. Metadata as the store writes it (a flat object of
// plain ASCII strings under the exact field names) is decoded without reflection, which is
// most of the cost of reading the log; anything else — escapes, other keys, other value
// types — is left to encoding/json, so the result is always the same.
func decodeMetadata(b []byte, m *eventstore.Metadata) error {
	if decodeFlatMetadata(b, m) {
		return nil
	}
	*m = eventstore.Metadata{}
	return json.Unmarshal(b, m)
}

func decodeFlatMetadata(b []byte, m *eventstore.Metadata) bool {
	i := skipJSONSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false
	}
	if i = skipJSONSpace(b, i+1); i < len(b) && b[i] == '}' {
		return skipJSONSpace(b, i+1) == len(b)
	}
	for {
		key, next, ok := plainJSONString(b, i)
		if !ok {
			return false
		}
		if i = skipJSONSpace(b, next); i == len(b) || b[i] != ':' {
			return false
		}
		value, next, ok := plainJSONString(b, skipJSONSpace(b, i+1))
		if !ok {
			return false
		}
		var field *string
		switch string(key) {
		case "correlationId":
			field = &m.CorrelationID
		case "causationId":
			field = &m.CausationID
		case "actorId":
			field = &m.ActorID
		case "actorRole":
			field = &m.ActorRole
		case "impersonatorId":
			field = &m.ImpersonatorID
		case "idempotencyKey":
			field = &m.IdempotencyKey
		case "requestHash":
			field = &m.RequestHash
		case "clientIp":
			field = &m.ClientIP
		default:
			return false
		}
		*field = string(value)
		if i = skipJSONSpace(b, next); i == len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return skipJSONSpace(b, i+1) == len(b)
		case ',':
			i = skipJSONSpace(b, i+1)
		default:
			return false
		}
	}
}

// plainJSONString returns the contents of the string starting at b[i] and the index after it,
// if it is made of printable ASCII without escapes.
func plainJSONString(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// appendMetadata appends m as JSON, as json.Marshal would write it up to escaping: the same
// keys in the same order, empty fields omitted. Every append encodes one object per event, and
// reflection was most of that cost; strings that need escaping still go through encoding/json.
func appendMetadata(dst []byte, m *eventstore.Metadata) []byte {
	dst = append(dst, '{')
	first := true
	field := func(key, value string) {
		if value == "" {
			return
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, '"')
		dst = append(dst, key...)
		dst = append(dst, '"', ':')
		dst = appendJSONString(dst, value)
	}
	field("correlationId", m.CorrelationID)
	field("causationId", m.CausationID)
	field("actorId", m.ActorID)
	field("actorRole", m.ActorRole)
	field("impersonatorId", m.ImpersonatorID)
	field("idempotencyKey", m.IdempotencyKey)
	field("requestHash", m.RequestHash)
	field("clientIp", m.ClientIP)
	return append(dst, '}')
}

func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			quoted, _ := json.Marshal(s) // a string always marshals
			return append(dst, quoted...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

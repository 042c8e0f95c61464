package middleware

import (
	"bufio"
	"net"
	"net/http"
)

// recorder remembers the status and size of a response for logs and metrics, and whether the
// response has started so that late errors are not written over it. One recorder is shared by
// all middleware of a request: wrap reuses an existing one instead of stacking wrappers.
type recorder struct {
	http.ResponseWriter
	status  int
	bytes   int64
	started bool
}

func wrap(w http.ResponseWriter) *recorder {
	if rec, ok := w.(*recorder); ok {
		return rec
	}
	return &recorder{ResponseWriter: w}
}

func (rec *recorder) WriteHeader(code int) {
	// Informational responses (103 Early Hints) precede the real status line.
	if !rec.started && (code >= 200 || code == http.StatusSwitchingProtocols) {
		rec.status = code
		rec.started = true
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if !rec.started {
		rec.status = http.StatusOK
		rec.started = true
	}
	n, err := rec.ResponseWriter.Write(b)
	rec.bytes += int64(n)
	return n, err
}

// Status is the status sent, or 200 when the handler returned without writing (net/http then
// sends 200 with an empty body).
func (rec *recorder) Status() int {
	if !rec.started {
		return http.StatusOK
	}
	return rec.status
}

// Written reports whether the status line has been sent; httperr checks it.
func (rec *recorder) Written() bool { return rec.started }

// Flush keeps streaming responses working through the wrapper.
func (rec *recorder) Flush() {
	if !rec.started {
		rec.status = http.StatusOK
		rec.started = true
	}
	if f, ok := rec.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack keeps protocol upgrades working through the wrapper.
func (rec *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(rec.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer (deadlines, full duplex).
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// endlessFile yields a JPEG header and then zeros, up to size bytes, counting what was read.
type endlessFile struct {
	size, read int64
	counter    *atomic.Int64
}

func (e *endlessFile) Read(p []byte) (int, error) {
	if e.read >= e.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	n = min(n, e.size-e.read)
	for i := range p[:n] {
		p[i] = 0
	}
	if e.read == 0 && n >= 4 {
		copy(p, []byte{0xFF, 0xD8, 0xFF, 0xE0})
	}
	e.read += n
	e.counter.Add(n)
	return int(n), nil
}

// TestKYCOversizeBodyIsCutShort streams a ~2 GB upload generated on the fly: the server must
// answer 413 after reading little more than the per-file limit, store nothing, and never read
// the rest. A raw connection is used so that the test sees exactly how much the server took.
func TestKYCOversizeBodyIsCutShort(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	_, u := k.member(t, "kyc-huge@example.com", "subscriber")
	addr := strings.TrimPrefix(k.srv.URL, "http://")

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const boundary = "b0undary"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"front\"; filename=\"front.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
	fmt.Fprintf(conn, "POST /api/users/uploadKycDocuments HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=%s\r\nTransfer-Encoding: chunked\r\n\r\n", addr, u.Token, boundary)

	var sent atomic.Int64
	writeErr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(conn, 64<<10)
		chunk := func(b []byte) error {
			if _, err := fmt.Fprintf(w, "%x\r\n", len(b)); err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
			_, err := w.WriteString("\r\n")
			return err
		}
		if err := chunk([]byte(head)); err != nil {
			writeErr <- err
			return
		}
		body := &endlessFile{size: 2 << 30, counter: &sent}
		buf := make([]byte, 32<<10)
		for {
			n, err := body.Read(buf)
			if n > 0 {
				if err := chunk(buf[:n]); err != nil {
					writeErr <- err
					return
				}
			}
			if err != nil {
				writeErr <- w.Flush()
				return
			}
		}
	}()

	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodPost, URL: &url.URL{}})
	if err != nil {
		t.Fatalf("no answer: %v (sent %d bytes)", err, sent.Load())
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	res.Body.Close()
	conn.Close()
	<-writeErr // the writer stops once the connection is gone

	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), msgTooLarge) {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	// The server stopped after the file's 10 MiB; the rest of what was sent sat in the kernel's
	// socket buffers (several MiB each way on loopback), far from the 2 GiB offered.
	if got := sent.Load(); got > 40<<20 {
		t.Fatalf("the client got %d bytes into the server before the answer", got)
	}
	if files := k.storedFiles(t); len(files) != 0 {
		t.Fatalf("files stored: %v", files)
	}
}

// TestKYCDeclaredHugeBodyIsRefusedUnread: a Content-Length over the route's limit is refused
// before a byte of the body is read.
func TestKYCDeclaredHugeBodyIsRefusedUnread(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	_, u := k.member(t, "kyc-declared@example.com", "subscriber")
	addr := strings.TrimPrefix(k.srv.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/users/uploadKycDocuments HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 2147483648\r\n\r\n", addr, u.Token)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodPost, URL: &url.URL{}})
	if err != nil {
		t.Fatalf("no answer without a body: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d", res.StatusCode)
	}
}

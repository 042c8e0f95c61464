package api_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"clearvest/platform/imagetest"
)

// TestKYCImageOverThePixelBudgetIsRefused: a document whose header declares more than 40
// megapixels is refused with 413 from its header, and nothing is stored.
func TestKYCImageOverThePixelBudgetIsRefused(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	c, _ := k.member(t, "kyc-pixels@example.com", "subscriber")
	bomb := part{field: "front", filename: "front.png", contentType: "image/png", data: imagetest.PNGDeclaring(8000, 6000, 8)}
	expectMessage(t, uploadKYC(t, c, nil, bomb, back(pdfFile())), http.StatusRequestEntityTooLarge,
		"This image is too large: documents may have at most 40 megapixels. Please upload a smaller scan or photo.")
	if files := k.storedFiles(t); len(files) != 0 {
		t.Fatalf("files stored: %v", files)
	}
	ok := part{field: "front", filename: "front.png", contentType: "image/png", data: imagetest.PNGDeclaring(2000, 1500, 8)}
	expect(t, uploadKYC(t, c, nil, ok, back(pdfFile())), http.StatusOK)
}

// TestKYCDeclaredHugeBodyWithAnIdempotencyKeyIsRefusedUnread: an Idempotency-Key does not get a
// request past the size refusal; the body is still never read.
func TestKYCDeclaredHugeBodyWithAnIdempotencyKeyIsRefusedUnread(t *testing.T) {
	t.Parallel()
	k := newKYCApp(t)
	_, u := k.member(t, "kyc-declared-key@example.com", "subscriber")
	addr := strings.TrimPrefix(k.srv.URL, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/users/uploadKycDocuments HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Idempotency-Key: upload-1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 2147483648\r\n\r\n", addr, u.Token)
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

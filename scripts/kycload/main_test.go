package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseStatus(t *testing.T) {
	t.Parallel()
	text := "Name:\tclearvest\nVmPeak:\t 1500000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t   65432 kB\nThreads:\t9\n"
	m, err := parseStatus(text)
	if err != nil {
		t.Fatal(err)
	}
	if m.hwm != 123456<<10 || m.rss != 65432<<10 {
		t.Fatalf("parsed %+v, want VmHWM 123456 kB and VmRSS 65432 kB in bytes", m)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t 12 kB\n", "VmRSS:\t 12 MB\nVmHWM:\t 12 kB\n", "VmRSS:\t x kB\nVmHWM:\t 1 kB\n"} {
		if _, err := parseStatus(bad); err == nil {
			t.Errorf("parseStatus(%q) succeeded", bad)
		}
	}
}

// TestMeasuresAProcessGrowing reads this process's own status while it touches 64 MiB: the
// resident set must grow by about that much, and the sampler must see it.
func TestMeasuresAProcessGrowing(t *testing.T) {
	pid := os.Getpid()
	before, err := readStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	if before.rss <= 0 || before.hwm < before.rss {
		t.Fatalf("status %+v: want a resident set and a high-water mark at least as large", before)
	}
	s := startSampler(pid, time.Millisecond)
	block := make([]byte, 64<<20)
	for i := range block {
		block[i] = byte(i)
	}
	after, err := readStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	peak, samples, err := s.Stop()
	if err != nil || samples < 2 {
		t.Fatalf("sampler: %d samples, %v", samples, err)
	}
	if grew := after.rss - before.rss; grew < 60<<20 {
		t.Fatalf("VmRSS grew by %d bytes after touching 64 MiB", grew)
	}
	// Stop takes a last sample, so the block is counted whatever the ticker did.
	if peak < after.rss-(4<<20) {
		t.Fatalf("sampled peak %d, below the resident set %d seen while the block was alive", peak, after.rss)
	}
	if after.hwm < after.rss {
		t.Fatalf("VmHWM %d below VmRSS %d", after.hwm, after.rss)
	}
	_ = block[len(block)-1]
}

func TestDocumentsAreTheirType(t *testing.T) {
	t.Parallel()
	front, back := document(jpegHeader, 1_000_000), document(pdfHeader, 1_000_000)
	if got := http.DetectContentType(front); got != "image/jpeg" {
		t.Errorf("front sniffs as %s", got)
	}
	if got := http.DetectContentType(back); got != "application/pdf" {
		t.Errorf("back sniffs as %s", got)
	}
	if other := document(jpegHeader, 1_000_000); bytes.Equal(front[100:200], other[100:200]) {
		t.Error("two documents share their padding: it must be random, so nothing can compress it")
	}

	body, ctype := multipartBody(front, back)
	_, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	got := map[string][]byte{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		got[p.FormName()] = b
	}
	if !bytes.Equal(got["front"], front) || !bytes.Equal(got["back"], back) || len(got) != 2 {
		t.Fatalf("parts %d: want exactly front and back with their content", len(got))
	}
}

func TestCopyFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "copy")
	files := [][]byte{document(pdfHeader, 300_000), document(jpegHeader, 200_000)}
	d, err := copyFiles(dir, files)
	if err != nil || d <= 0 {
		t.Fatalf("copyFiles = %v, %v", d, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the copies were left behind: %v", err)
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	var lines bytes.Buffer
	for _, above := range []float64{30, 50, 40} {
		_ = json.NewEncoder(&lines).Encode(result{Investors: 10, Bytes: 200e6, IdleMB: 20, PeakMB: 20 + above, AboveIdleMB: above,
			PeakFrom: "VmHWM", UploadSec: 2, UploadMBps: 100, CopySec: 1, CopyMBps: 200})
	}
	if err := os.WriteFile(path, lines.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report([]string{path}, &out); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(rows) != 6 {
		t.Fatalf("table:\n%s\nwant a header, a rule, 3 rounds and the medians", out.String())
	}
	if want := "| median | 20 | 60 | 40 |  | 200 | 2.00 | 100 | 1.00 | 200 |"; rows[5] != want {
		t.Fatalf("median row\n got %s\nwant %s", rows[5], want)
	}
}

func TestReadTokens(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tokens")
	_ = os.WriteFile(path, []byte("tok1 id1\ntok2 id2\n\n"), 0o600)
	got, err := readTokens(path)
	if err != nil || len(got) != 2 || got[0] != "tok1" || got[1] != "tok2" {
		t.Fatalf("readTokens = %q, %v", got, err)
	}
	_ = os.WriteFile(path, []byte("\n"), 0o600)
	if _, err := readTokens(path); err == nil {
		t.Fatal("an empty tokens file was accepted")
	}
}

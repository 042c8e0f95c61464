// Command kycload is the client side of the KYC upload benchmark (docs/benchmarks.md, "KYC
// document uploads"), run by scripts/bench-kyc.sh against bin/clearvest serve.
//
//	kycload register -url BASE_URL -n 10
//	    signs n investors up through the API and prints one "TOKEN USER_ID" line each
//	kycload upload -url BASE_URL -pid PID -tokens FILE -copy-dir DIR [-size 10000000]
//	    uploads a front (JPEG) and a back (PDF) of -size bytes for every investor of FILE, all at
//	    the same moment, while sampling the server's memory; then copies the same bytes as files
//	    in DIR, as many at once; prints one result line
//	kycload report FILE
//	    prints the result lines of FILE as a table, with medians
//
// Memory is the server's resident set from /proc/PID/status: idle is VmRSS after a warm-up
// request per investor; the peak is the larger of VmRSS sampled every 10 ms during the uploads
// and VmHWM, the kernel's own high-water mark, reset just before them by writing 5 to
// /proc/PID/clear_refs (when permitted; otherwise sampling alone, which can miss a peak
// shorter than 10 ms).
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "register":
		err = register(os.Args[2:], os.Stdout)
	case "upload":
		err = upload(os.Args[2:], os.Stdout)
	case "report":
		err = report(os.Args[2:], os.Stdout)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "kycload: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kycload register -url URL -n N | kycload upload -url URL -pid PID -tokens FILE -copy-dir DIR | kycload report FILE")
	os.Exit(2)
}

var client = &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{
	MaxIdleConnsPerHost: 100, DisableCompression: true,
}}

// register signs n investors up as an API client would.
func register(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("register", flag.ExitOnError)
	base := fs.String("url", "", "the server's base URL")
	n := fs.Int("n", 10, "how many investors")
	_ = fs.Parse(args)
	if *base == "" || *n < 1 {
		return errors.New("register: -url and a positive -n are required")
	}
	for range *n {
		password := "Bench-" + rand.Text()
		body, _ := json.Marshal(map[string]any{
			"name": "KYC Benchmark", "email": "kyc-" + strings.ToLower(rand.Text()) + "@example.com",
			"password": password, "confirmPassword": password, "phone": "+44 20 7946 0018", "country": "United Kingdom",
			"acceptTerms": true,
		})
		res, err := client.Post(strings.TrimRight(*base, "/")+"/api/users/register", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var u struct {
			ID    string `json:"_id"`
			Token string `json:"token"`
		}
		if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &u) != nil || u.Token == "" {
			return fmt.Errorf("register: status %d: %s", res.StatusCode, b)
		}
		fmt.Fprintln(out, u.Token, u.ID)
	}
	return nil
}

// Documents are a real file header followed by random padding: the server decides the type by
// the content's first bytes, and random bytes cannot be compressed or deduplicated anywhere.
var (
	jpegHeader = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
	pdfHeader  = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
)

// document returns size bytes starting with header.
func document(header []byte, size int) []byte {
	b := make([]byte, size)
	_, _ = rand.Read(b)
	copy(b, header)
	return b
}

// multipartBody is a request body with the parts front and back, and its content type.
func multipartBody(front, back []byte) ([]byte, string) {
	var buf bytes.Buffer
	buf.Grow(len(front) + len(back) + 1024)
	w := multipart.NewWriter(&buf)
	for _, p := range []struct {
		field, file, ctype string
		content            []byte
	}{{"front", "front.jpg", "image/jpeg", front}, {"back", "back.pdf", "application/pdf", back}} {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.field, p.file))
		h.Set("Content-Type", p.ctype)
		part, _ := w.CreatePart(h)
		_, _ = part.Write(p.content)
	}
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType()
}

// memStatus is a process's resident set and its high-water mark, in bytes.
type memStatus struct {
	rss, hwm int64
}

// parseStatus reads VmRSS and VmHWM from the text of /proc/PID/status.
func parseStatus(text string) (memStatus, error) {
	var m memStatus
	var found int
	for line := range strings.SplitSeq(text, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			return m, fmt.Errorf("unexpected %s line %q", name, line)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("%s: %w", name, err)
		}
		if name == "VmRSS" {
			m.rss = kb << 10
		} else {
			m.hwm = kb << 10
		}
		found++
	}
	if found != 2 {
		return m, errors.New("VmRSS or VmHWM missing (not Linux, or a kernel thread)")
	}
	return m, nil
}

func readStatus(pid int) (memStatus, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memStatus{}, err
	}
	return parseStatus(string(b))
}

// resetPeak makes the kernel start VmHWM again from the current resident set.
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// sampler records the highest VmRSS of a process until stopped.
type sampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}
	max  int64
	n    int
	err  error
}

func startSampler(pid int, every time.Duration) *sampler {
	s := &sampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.stop:
				s.sample()
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) sample() {
	m, err := readStatus(s.pid)
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.max = max(s.max, m.rss)
	s.n++
}

// Stop ends sampling and returns the highest VmRSS seen and how many samples were taken.
func (s *sampler) Stop() (peak int64, samples int, err error) {
	close(s.stop)
	<-s.done
	return s.max, s.n, s.err
}

// result is one round: the uploads and the file copy of the same bytes.
type result struct {
	Investors    int     `json:"investors"`
	Bytes        int64   `json:"bytes"` // document bytes uploaded (and copied), headers excluded
	IdleMB       float64 `json:"idle_mb"`
	PeakMB       float64 `json:"peak_mb"`
	AboveIdleMB  float64 `json:"above_idle_mb"`
	PeakFrom     string  `json:"peak_from"` // "VmHWM" or "samples"
	Samples      int     `json:"samples"`
	UploadSec    float64 `json:"upload_s"`
	UploadMBps   float64 `json:"upload_mb_s"`
	CopySec      float64 `json:"copy_s"`
	CopyMBps     float64 `json:"copy_mb_s"`
	IdempotencyK bool    `json:"idempotency_key,omitempty"`
}

const mb = 1e6

func upload(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("upload", flag.ExitOnError)
	base := fs.String("url", "", "the server's base URL")
	pid := fs.Int("pid", 0, "the server's process id, whose memory is measured")
	tokensFile := fs.String("tokens", "", `file of "TOKEN USER_ID" lines (kycload register)`)
	copyDir := fs.String("copy-dir", "", "directory for the file-copy baseline, on the disk the server stores files on")
	size := fs.Int("size", 10_000_000, "bytes per document (the limit is 10,485,760)")
	every := fs.Duration("sample", 10*time.Millisecond, "how often VmRSS is sampled")
	idemKey := fs.Bool("idempotency-key", false, "send an Idempotency-Key with each upload")
	_ = fs.Parse(args)
	if *base == "" || *pid <= 0 || *tokensFile == "" || *copyDir == "" || *size < len(jpegHeader) {
		return errors.New("upload: -url, -pid, -tokens, -copy-dir and a -size of at least a header are required")
	}
	tokens, err := readTokens(*tokensFile)
	if err != nil {
		return err
	}
	url := strings.TrimRight(*base, "/")

	// Everything the client needs is made before the server is measured.
	type doc struct{ front, back []byte }
	docs := make([]doc, len(tokens))
	bodies := make([][]byte, len(tokens))
	ctypes := make([]string, len(tokens)) // each body has its own boundary
	for i := range tokens {
		docs[i] = doc{document(jpegHeader, *size), document(pdfHeader, *size)}
		bodies[i], ctypes[i] = multipartBody(docs[i].front, docs[i].back)
	}
	for _, tok := range tokens {
		if err := warmUp(url, tok); err != nil {
			return err
		}
	}
	idle, err := readStatus(*pid)
	if err != nil {
		return fmt.Errorf("server memory: %w", err)
	}
	hwmReset := resetPeak(*pid) == nil
	s := startSampler(*pid, *every)
	start := make(chan struct{})
	errs := make([]error, len(tokens))
	var wg sync.WaitGroup
	for i, tok := range tokens {
		wg.Go(func() {
			<-start
			errs[i] = send(url, tok, bodies[i], ctypes[i], *idemKey)
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(began)
	sampled, samples, serr := s.Stop()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("sampling the server's memory: %w", serr)
	}
	peak, from := sampled, "samples"
	if hwmReset {
		end, err := readStatus(*pid)
		if err != nil {
			return err
		}
		if end.hwm >= peak {
			peak, from = end.hwm, "VmHWM"
		}
	}

	total := int64(len(tokens)) * 2 * int64(*size)
	var files [][]byte
	for _, d := range docs {
		files = append(files, d.front, d.back)
	}
	copied, err := copyFiles(*copyDir, files)
	if err != nil {
		return err
	}
	r := result{
		Investors: len(tokens), Bytes: total,
		IdleMB: float64(idle.rss) / mb, PeakMB: float64(peak) / mb, AboveIdleMB: float64(peak-idle.rss) / mb,
		PeakFrom: from, Samples: samples,
		UploadSec: elapsed.Seconds(), UploadMBps: float64(total) / mb / elapsed.Seconds(),
		CopySec: copied.Seconds(), CopyMBps: float64(total) / mb / copied.Seconds(),
		IdempotencyK: *idemKey,
	}
	return json.NewEncoder(out).Encode(r)
}

func readTokens(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var tokens []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		tok, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if tok != "" {
			tokens = append(tokens, tok)
		}
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("%s holds no tokens", path)
	}
	return tokens, nil
}

// warmUp makes one signed-in request, so the idle measurement is of a server that has served
// this investor (connections, caches) but no upload.
func warmUp(base, token string) error {
	req, _ := http.NewRequest(http.MethodGet, base+"/api/users/getUser", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("warm-up: GET /api/users/getUser: status %d", res.StatusCode)
	}
	return nil
}

func send(base, token string, body []byte, ctype string, idemKey bool) error {
	req, _ := http.NewRequest(http.MethodPost, base+"/api/users/uploadKycDocuments", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", ctype)
	if idemKey {
		req.Header.Set("Idempotency-Key", rand.Text())
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("upload: status %d: %s", res.StatusCode, b)
	}
	return nil
}

// copyFiles is the baseline: the same bytes written as files in dir, all at once, each synced,
// as the server's disk store does. The sources are written first and are in the page cache, as
// the upload bodies are in the client's memory.
func copyFiles(dir string, files [][]byte) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	for i, f := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("src-%d", i)), f, 0o600); err != nil {
			return 0, err
		}
	}
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range files {
		wg.Go(func() {
			<-start
			errs[i] = copyFile(filepath.Join(dir, fmt.Sprintf("src-%d", i)), filepath.Join(dir, fmt.Sprintf("dst-%d", i)))
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	return time.Since(began), errors.Join(errs...)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// report prints the rounds of a results file and their medians.
func report(args []string, out io.Writer) error {
	if len(args) != 1 {
		return errors.New("report: one results file")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var rounds []result
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var r result
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		rounds = append(rounds, r)
	}
	if len(rounds) == 0 {
		return errors.New("report: no rounds")
	}
	writeTable(out, rounds)
	return nil
}

func median(rounds []result, f func(result) float64) float64 {
	v := make([]float64, len(rounds))
	for i, r := range rounds {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func writeTable(out io.Writer, rounds []result) {
	fmt.Fprintln(out, "| round | idle MB | peak MB | above idle MB | peak from | uploaded MB | upload s | upload MB/s | copy s | copy MB/s |")
	fmt.Fprintln(out, "|---|--:|--:|--:|---|--:|--:|--:|--:|--:|")
	row := func(name string, r result) {
		fmt.Fprintf(out, "| %s | %.0f | %.0f | %.0f | %s | %.0f | %.2f | %.0f | %.2f | %.0f |\n", name,
			r.IdleMB, r.PeakMB, r.AboveIdleMB, r.PeakFrom, float64(r.Bytes)/mb, r.UploadSec, r.UploadMBps, r.CopySec, r.CopyMBps)
	}
	for i, r := range rounds {
		row(strconv.Itoa(i+1), r)
	}
	med := func(f func(result) float64) float64 { return median(rounds, f) }
	row("median", result{
		Bytes:       rounds[0].Bytes,
		IdleMB:      med(func(r result) float64 { return r.IdleMB }),
		PeakMB:      med(func(r result) float64 { return r.PeakMB }),
		AboveIdleMB: med(func(r result) float64 { return r.AboveIdleMB }),
		UploadSec:   med(func(r result) float64 { return r.UploadSec }),
		UploadMBps:  med(func(r result) float64 { return r.UploadMBps }),
		CopySec:     med(func(r result) float64 { return r.CopySec }),
		CopyMBps:    med(func(r result) float64 { return r.CopyMBps }),
	})
}

package api_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"
	"testing"

	"clearvest/api"
	"clearvest/app/kyc/kyctest"
)

// kycApp is the API with the KYC service, and the directory its documents are stored in.
type kycApp struct {
	*app
	kyc *kyctest.Env
}

func newKYCApp(t *testing.T) *kycApp {
	t.Helper()
	env := kyctest.New(t)
	a := serve(t, env.Env, func(d *api.Deps) { d.KYC = env.KYC })
	return &kycApp{app: a, kyc: env}
}

// part is one multipart part as a client may send it: the name, file name and declared type
// are whatever the client likes.
type part struct {
	field, filename, contentType string
	data                         []byte
}

func multipartBody(t *testing.T, parts ...part) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+p.field+`"; filename="`+p.filename+`"`)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pw.Write(p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

// uploadKYC posts the parts as the client c, with extra headers.
func uploadKYC(t *testing.T, c *client, header http.Header, parts ...part) response {
	t.Helper()
	body, ct := multipartBody(t, parts...)
	return uploadRaw(t, c, header, body, ct)
}

// uploadRaw posts a prepared multipart body, as a client retrying the same request does.
func uploadRaw(t *testing.T, c *client, header http.Header, body []byte, ct string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.app.srv.URL+"/api/users/uploadKycDocuments", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", ct)
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func jpegFile(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 40))
	img.Set(3, 3, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pdfFile() []byte {
	return []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
}

func front(data []byte) part {
	return part{field: "front", filename: "front.jpg", contentType: "image/jpeg", data: data}
}

func back(data []byte) part {
	return part{field: "back", filename: "back.pdf", contentType: "application/pdf", data: data}
}

// kycDocJSON, myKycJSON and kycCaseJSON are the API's shapes, decoded by field name as the UI
// reads them.
type kycDocJSON struct {
	Side        string `json:"side"`
	Submission  int    `json:"submission"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	URL         string `json:"url"`
}

type kycDecisionJSON struct {
	Status   string `json:"status"`
	Reviewer struct {
		ID   string `json:"_id"`
		Name string `json:"name"`
	} `json:"reviewer"`
	Documents []struct {
		Side   string `json:"side"`
		Reason string `json:"reason"`
	} `json:"documents"`
	Comment string `json:"comment"`
}

type myKycJSON struct {
	KycStatus    string           `json:"kycStatus"`
	Submission   int              `json:"submission"`
	Documents    []kycDocJSON     `json:"documents"`
	Resubmit     []string         `json:"resubmit"`
	LastDecision *kycDecisionJSON `json:"lastDecision"`
}

type kycCaseJSON struct {
	User struct {
		ID    string `json:"_id"`
		Email string `json:"email"`
	} `json:"user"`
	KycStatus   string       `json:"kycStatus"`
	Documents   []kycDocJSON `json:"documents"`
	Submissions []struct {
		Submission int              `json:"submission"`
		Documents  []kycDocJSON     `json:"documents"`
		Decision   *kycDecisionJSON `json:"decision"`
	} `json:"submissions"`
}

type kycQueueJSON struct {
	PendingUsers []struct {
		ID         string   `json:"_id"`
		Submission int      `json:"submission"`
		Documents  []string `json:"documents"`
	} `json:"pendingUsers"`
}

func decodeJSON[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("status %d: body %q: %v", r.status, r.body, err)
	}
	return v
}

// storedFiles lists the files under the documents' directory, relative to it.
func (k *kycApp) storedFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(k.kyc.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			rel, _ := filepath.Rel(k.kyc.Dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func expectMessage(t *testing.T, r response, status int, message string) {
	t.Helper()
	expect(t, r, status)
	if got := decodeError(t, r).Message; got != message {
		t.Fatalf("message %q, want %q", got, message)
	}
}

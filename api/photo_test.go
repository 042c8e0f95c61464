package api_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"clearvest/api"
)

func multipartPhoto(t *testing.T, field, filename string, data []byte) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile(field, filename)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

func upload(t *testing.T, c *client, body []byte, contentType string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.app.srv.URL+"/api/users/photo", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", contentType)
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b.Bytes()}
}

func TestProfilePhotoUpload(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	b, _ := a.member(t, "photo@example.com", "subscriber")

	img := image.NewRGBA(image.Rect(0, 0, 1024, 768))
	img.Set(10, 10, color.RGBA{B: 255, A: 255})
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		t.Fatal(err)
	}

	// The file name and declared type are ignored: the content decides.
	body, ct := multipartPhoto(t, "photo", "holiday.exe", pngData.Bytes())
	res := upload(t, b, body, ct)
	expect(t, res, http.StatusOK)
	u := decodeUser(t, res)
	if !strings.HasPrefix(u.Photo, "/api/users/photo/") || !strings.HasSuffix(u.Photo, ".png") {
		t.Fatalf("photo URL %q", u.Photo)
	}
	got := b.do(http.MethodGet, u.Photo, nil)
	expect(t, got, http.StatusOK)
	if got.header.Get("Content-Type") != "image/png" {
		t.Errorf("Content-Type %q", got.header.Get("Content-Type"))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(got.body))
	if err != nil || cfg.Width != 512 || cfg.Height != 384 {
		t.Errorf("served photo %dx%d (%v), want 512x384", cfg.Width, cfg.Height, err)
	}
	expect(t, a.browser(t).do(http.MethodGet, u.Photo, nil), http.StatusUnauthorized)

	for _, tc := range []struct {
		name   string
		field  string
		data   []byte
		status int
		msg    string
	}{
		{"an HTML file", "photo", []byte("<!doctype html><script>alert(1)</script>"), http.StatusUnsupportedMediaType, "Profile photo must be a JPEG or PNG image."},
		{"a GIF", "photo", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), http.StatusUnsupportedMediaType, "Profile photo must be a JPEG or PNG image."},
		{"no photo field", "avatar", pngData.Bytes(), http.StatusBadRequest, "Please select a file."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := multipartPhoto(t, tc.field, "x.png", tc.data)
			res := upload(t, b, body, ct)
			expect(t, res, tc.status)
			if e := decodeError(t, res); e.Message != tc.msg {
				t.Errorf("message %q, want %q", e.Message, tc.msg)
			}
		})
	}
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestProfileShowsOnlyAPhotoItsUserUploaded: a profile update cannot borrow another user's
// photo or point at an address elsewhere; the owner can keep or remove their own.
func TestProfileShowsOnlyAPhotoItsUserUploaded(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	alice, _ := a.member(t, "alice@example.com", "subscriber")
	bob, _ := a.member(t, "bob@example.com", "subscriber")
	body, ct := multipartPhoto(t, "photo", "me.png", pngBytes(t, 64, 64))
	res := upload(t, alice, body, ct)
	expect(t, res, http.StatusOK)
	alicePhoto := decodeUser(t, res).Photo

	for _, photo := range []string{
		alicePhoto,                                    // another user's upload
		"https://tracker.example/pixel.png",           // elsewhere
		"/api/users/photo/AAAAAAAAAAAAAAAAAAAAAA.png", // ours in shape, but nobody's upload
		"/api/users/photo/" + alicePhoto[len("/api/users/photo/"):] + "?v=2", // a variation of hers
	} {
		res := bob.do(http.MethodPatch, "/api/users/updateUser", map[string]string{"photo": photo, "bio": "borrowed"})
		expect(t, res, http.StatusBadRequest)
		if e := decodeError(t, res); e.Field != "photo" || !strings.Contains(e.Message, "a photo you uploaded") {
			t.Errorf("photo %q: %+v", photo, e)
		}
	}
	me := bob.do(http.MethodGet, "/api/users/getUser", nil)
	expect(t, me, http.StatusOK)
	if u := decodeUser(t, me); u.Photo != "" {
		t.Fatalf("bob's profile shows %q after refused updates", u.Photo)
	}

	// The owner's own photo may stay as it is (a form sending it back) or go.
	expect(t, alice.do(http.MethodPatch, "/api/users/updateUser", map[string]string{"photo": alicePhoto, "bio": "hello"}), http.StatusOK)
	res = alice.do(http.MethodPatch, "/api/users/updateUser", map[string]string{"photo": ""})
	expect(t, res, http.StatusOK)
	if u := decodeUser(t, res); u.Photo != "" {
		t.Fatalf("photo after removal: %q", u.Photo)
	}
	expect(t, alice.do(http.MethodGet, alicePhoto, nil), http.StatusNotFound)
}

func TestDevelopmentMailboxAndCountries(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.member(t, "mailbox@example.com", "subscriber")
	a.Mails(t) // deliver the outbox

	res := a.browser(t).do(http.MethodGet, "/api/dev/mail", nil)
	expect(t, res, http.StatusOK)
	var list []struct {
		ID, To, Subject string
	}
	if err := json.Unmarshal(res.body, &list); err != nil || len(list) == 0 {
		t.Fatalf("mailbox %s", res.body)
	}
	one := a.browser(t).do(http.MethodGet, "/api/dev/mail/"+list[0].ID, nil)
	expect(t, one, http.StatusOK)
	if !strings.Contains(string(one.body), `"text"`) {
		t.Errorf("message %s", one.body)
	}
	expect(t, a.browser(t).do(http.MethodGet, "/api/dev/mail/..%2F..%2Fetc%2Fpasswd", nil), http.StatusNotFound)

	// Production never serves it, whatever is configured.
	prod := newAppWith(t, a, api.EnvProduction)
	expect(t, prod.browser(t).do(http.MethodGet, "/api/dev/mail", nil), http.StatusNotFound)

	res = a.browser(t).do(http.MethodGet, "/api/countries", nil)
	expect(t, res, http.StatusOK)
	var countries []struct{ Name, Code string }
	if err := json.Unmarshal(res.body, &countries); err != nil || len(countries) < 200 {
		t.Fatalf("countries: %d, %v", len(countries), err)
	}
}

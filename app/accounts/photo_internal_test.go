package accounts

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

func encoded(t *testing.T, format string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(w/2, h/2, color.RGBA{G: 255, A: 255})
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withExif puts an APP1 Exif segment (where cameras write GPS positions) after the JPEG's SOI.
func withExif(jpg []byte) []byte {
	payload := append([]byte("Exif\x00\x00"), []byte("GPS 51.5007N 0.1246W secret-location")...)
	seg := []byte{0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	out = append(out, payload...)
	return append(out, jpg[2:]...)
}

func TestProcessPhoto(t *testing.T) {
	t.Parallel()
	t.Run("a large PNG is scaled to 512 px, keeping its shape", func(t *testing.T) {
		p, err := processPhoto(bytes.NewReader(encoded(t, "png", 2000, 1000)))
		if err != nil {
			t.Fatal(err)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(p.data))
		if err != nil || format != "png" || p.ext != "png" || cfg.Width != 512 || cfg.Height != 256 {
			t.Fatalf("got %s %dx%d (%v), want png 512x256", format, cfg.Width, cfg.Height, err)
		}
	})
	t.Run("a JPEG loses its metadata", func(t *testing.T) {
		in := withExif(encoded(t, "jpeg", 300, 400))
		if _, _, err := image.Decode(bytes.NewReader(in)); err != nil {
			t.Fatalf("test input is not a valid JPEG: %v", err)
		}
		p, err := processPhoto(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if p.contentType != "image/jpeg" || bytes.Contains(p.data, []byte("Exif")) || bytes.Contains(p.data, []byte("secret-location")) {
			t.Fatalf("output %s still carries the Exif segment", p.contentType)
		}
		cfg, _ := jpeg.DecodeConfig(bytes.NewReader(p.data))
		if cfg.Width != 300 || cfg.Height != 400 {
			t.Errorf("a small photo was resized to %dx%d", cfg.Width, cfg.Height)
		}
	})
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"a GIF", encoded(t, "gif", 10, 10), ErrPhotoType},
		{"an HTML page named .png", []byte("<html><script>alert(1)</script></html>"), ErrPhotoType},
		{"nothing", nil, ErrPhotoMissing},
		{"a truncated PNG", encoded(t, "png", 50, 50)[:40], ErrPhotoBroken},
		{"more than 5 MB", append(encoded(t, "png", 2, 2), bytes.Repeat([]byte{0}, MaxPhotoBytes)...), ErrPhotoTooLarge},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			_, err := processPhoto(bytes.NewReader(tc.data))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if !strings.Contains(ErrPhotoType.Error(), "JPEG or PNG") {
		t.Error("the 415 message must name the accepted types")
	}
}

package accounts

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"

	"golang.org/x/image/draw"

	"clearvest/domain/domainerr"
)

// Photo limits. The upload limit is generous for a phone camera. The pixel and memory limits are
// checked from the header before decoding, so a small file claiming a huge canvas (a
// decompression bomb: a 316 KiB PNG of 40 megapixels at 16 bits a channel decodes into 305 MiB)
// never allocates it. 16 megapixels takes any phone's default photo (12 MP); the memory budget
// halves that for 16-bit images, which need 8 bytes a pixel.
const (
	MaxPhotoBytes       = 5 << 20
	maxPhotoPixels      = 16_000_000
	maxPhotoDecodeBytes = 64 << 20
	photoMaxSide        = 512
	jpegQuality         = 85
	// photoDecodes is how many photos are decoded at once in this process; more wait their turn,
	// so concurrent uploads cost at most this many decode budgets of memory.
	photoDecodes = 2
)

// decodeSlots bounds the concurrent decodes (photoDecodes).
var decodeSlots = make(chan struct{}, photoDecodes)

var (
	ErrPhotoType     = domainerr.New(domainerr.UnsupportedMedia, "Profile photo must be a JPEG or PNG image.")
	ErrPhotoTooLarge = domainerr.New(domainerr.TooLarge, "Profile photo must be smaller than 5 MB.")
	ErrPhotoMissing  = domainerr.New(domainerr.Invalid, "Please select a file.")
	ErrPhotoBroken   = domainerr.New(domainerr.Invalid, "This image could not be read. Please choose another.")
)

// processedPhoto is an uploaded photo made safe to serve: decoded, scaled down and encoded again
// by us, so nothing of the original file (EXIF location, comments, polyglot payloads) survives.
type processedPhoto struct {
	data        []byte
	ext         string // "jpg" or "png"
	contentType string
}

// processPhoto reads at most MaxPhotoBytes from r. The type is decided by the content, never by
// the name or the declared type the client sent.
func processPhoto(r io.Reader) (processedPhoto, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxPhotoBytes+1))
	if err != nil {
		return processedPhoto{}, err
	}
	if len(raw) == 0 {
		return processedPhoto{}, ErrPhotoMissing
	}
	if len(raw) > MaxPhotoBytes {
		return processedPhoto{}, ErrPhotoTooLarge
	}
	var out processedPhoto
	switch http.DetectContentType(raw) {
	case "image/jpeg":
		out.ext, out.contentType = "jpg", "image/jpeg"
	case "image/png":
		out.ext, out.contentType = "png", "image/png"
	default:
		return processedPhoto{}, ErrPhotoType
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return processedPhoto{}, ErrPhotoBroken.Wrap(err)
	}
	if pixels := int64(cfg.Width) * int64(cfg.Height); pixels > maxPhotoPixels || pixels*bytesPerPixel(cfg.ColorModel) > maxPhotoDecodeBytes {
		return processedPhoto{}, ErrPhotoTooLarge.WithMessage("Profile photo is too large; please use one under 16 megapixels (8 for 16-bit images).")
	}
	decodeSlots <- struct{}{}
	defer func() { <-decodeSlots }()
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return processedPhoto{}, ErrPhotoBroken.Wrap(err)
	}
	dst := scaleDown(src, photoMaxSide)
	var buf bytes.Buffer
	switch out.ext {
	case "jpg":
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality})
	default:
		err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, dst)
	}
	if err != nil {
		return processedPhoto{}, fmt.Errorf("accounts: encode photo: %w", err)
	}
	out.data = buf.Bytes()
	return out, nil
}

// bytesPerPixel is what the decoder allocates a pixel for an image of the colour model; an
// unknown model counts as the widest.
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.YCbCrModel, color.NYCbCrAModel:
		return 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8
}

// scaleDown fits img into a maxSide square keeping its aspect ratio. Smaller images are still
// copied: re-encoding is what strips the original's metadata.
func scaleDown(img image.Image, maxSide int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > maxSide || h > maxSide {
		if w >= h {
			w, h = maxSide, max(1, h*maxSide/w)
		} else {
			w, h = max(1, w*maxSide/h), maxSide
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

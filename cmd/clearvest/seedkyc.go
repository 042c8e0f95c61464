package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	appkyc "clearvest/app/kyc"
	"clearvest/domain/identity"
)

// The sample applicant gives a new development installation an identity check waiting in the
// staff queue, so reviewing can be tried at once. Its documents are drawn here and say on their
// face that they are samples: nothing in the demo may pass for a real person's papers.

// submitSampleKYC uploads the sample front and back for userID through the same service call the
// upload endpoint makes.
func submitSampleKYC(ctx context.Context, svc *appkyc.Service, userID, name string) error {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, side := range []string{"front", "back"} {
		img, err := sampleDocument(side, name)
		if err != nil {
			return err
		}
		part, err := w.CreateFormFile(side, "sample-"+side+".png")
		if err != nil {
			return err
		}
		if _, err := part.Write(img); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	_, err := svc.Upload(ctx, appkyc.Actor{UserID: userID, Role: identity.RoleSubscriber},
		multipart.NewReader(&body, w.Boundary()), "")
	if err != nil {
		return fmt.Errorf("submitting the sample identity check: %w", err)
	}
	return nil
}

// sampleDocument draws a card-shaped PNG marked SAMPLE for one side of an identity document.
func sampleDocument(side, name string) ([]byte, error) {
	// Drawn small in the 7x13 bitmap font, then scaled up 3x, so no font file is needed.
	const w, h, scale = 214, 135, 3
	small := image.NewRGBA(image.Rect(0, 0, w, h))
	paper := color.RGBA{0xee, 0xf3, 0xf8, 0xff}
	ink := color.RGBA{0x1f, 0x2a, 0x44, 0xff}
	warn := color.RGBA{0xb4, 0x23, 0x18, 0xff}
	draw.Draw(small, small.Bounds(), image.NewUniform(paper), image.Point{}, draw.Src)
	for x := range w {
		small.Set(x, 0, ink)
		small.Set(x, h-1, ink)
	}
	for y := range h {
		small.Set(0, y, ink)
		small.Set(w-1, y, ink)
	}
	lines := []struct {
		text string
		c    color.Color
	}{
		{"SAMPLE - NOT A REAL DOCUMENT", warn},
		{"Clearvest demo data", ink},
		{"", ink},
		{"Identity card, " + side, ink},
		{"Name: " + name, ink},
		{"No: SAMPLE-0000", ink},
		{"", ink},
		{"SAMPLE SAMPLE SAMPLE SAMPLE", warn},
	}
	for i, l := range lines {
		d := font.Drawer{Dst: small, Src: image.NewUniform(l.c), Face: basicfont.Face7x13,
			Dot: fixed.P(8, 18+i*14)}
		d.DrawString(l.text)
	}
	big := image.NewRGBA(image.Rect(0, 0, w*scale, h*scale))
	draw.NearestNeighbor.Scale(big, big.Bounds(), small, small.Bounds(), draw.Src, nil)
	var out bytes.Buffer
	if err := png.Encode(&out, big); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

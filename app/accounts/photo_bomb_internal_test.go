package accounts

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"clearvest/platform/imagetest"
)

// TestPhotoBombIsRefusedBeforeDecoding: a tiny PNG declaring 36 megapixels of 16-bit RGBA (under
// the old 40-megapixel limit, 275 MiB once decoded) is refused from its header, and refusing it
// allocates next to nothing. The memory is measured, not assumed.
func TestPhotoBombIsRefusedBeforeDecoding(t *testing.T) {
	bomb := imagetest.PNGDeclaring(6000, 6000, 16)
	if len(bomb) > 1024 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := processPhoto(bytes.NewReader(bomb))
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte PNG declaring 6000×6000 16-bit pixels: %v, %d KiB allocated", len(bomb), err, allocated>>10)
	if !errors.Is(err, ErrPhotoTooLarge) {
		t.Fatalf("got %v, want ErrPhotoTooLarge", err)
	}
	if allocated > 16<<20 {
		t.Fatalf("refusing the bomb allocated %d MiB", allocated>>20)
	}
	// Within the pixel limit but over the memory budget at 8 bytes a pixel: refused as well.
	if _, err := processPhoto(bytes.NewReader(imagetest.PNGDeclaring(3000, 3000, 16))); !errors.Is(err, ErrPhotoTooLarge) {
		t.Fatalf("9 MP at 16 bits: got %v", err)
	}
	// Within both limits: decoded, and the missing rows make it a broken image, not a 413.
	if _, err := processPhoto(bytes.NewReader(imagetest.PNGDeclaring(1000, 1000, 16))); !errors.Is(err, ErrPhotoBroken) {
		t.Fatalf("1 MP at 16 bits: got %v", err)
	}
}

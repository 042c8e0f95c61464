package accounts

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"testing"
)

// bombPNG is a PNG of a few hundred bytes whose header declares width × height pixels of 16-bit
// RGBA (8 bytes a pixel), followed by one short row of data: decoding it allocates the whole
// canvas before finding the data missing.
func bombPNG(t *testing.T, width, height uint32) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		out.Write(n[:])
		crc := crc32.NewIEEE()
		crc.Write([]byte(kind))
		crc.Write(data)
		out.WriteString(kind)
		out.Write(data)
		binary.BigEndian.PutUint32(n[:], crc.Sum32())
		out.Write(n[:])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], width)
	binary.BigEndian.PutUint32(ihdr[4:], height)
	ihdr[8], ihdr[9] = 16, 6 // 16 bits a channel, RGBA
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	if _, err := zw.Write(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// TestPhotoBombIsRefusedBeforeDecoding: a tiny PNG declaring 36 megapixels of 16-bit RGBA (under
// the old 40-megapixel limit, 275 MiB once decoded) is refused from its header, and refusing it
// allocates next to nothing. The memory is measured, not assumed.
func TestPhotoBombIsRefusedBeforeDecoding(t *testing.T) {
	bomb := bombPNG(t, 6000, 6000)
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
	if _, err := processPhoto(bytes.NewReader(bombPNG(t, 3000, 3000))); !errors.Is(err, ErrPhotoTooLarge) {
		t.Fatalf("9 MP at 16 bits: got %v", err)
	}
	// Within both limits: decoded, and the missing rows make it a broken image, not a 413.
	if _, err := processPhoto(bytes.NewReader(bombPNG(t, 1000, 1000))); !errors.Is(err, ErrPhotoBroken) {
		t.Fatalf("1 MP at 16 bits: got %v", err)
	}
}

// Package imagetest makes images for tests of the upload limits: a PNG of a few hundred bytes
// whose header declares any size, the shape of a decompression bomb.
package imagetest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
)

// PNGDeclaring is a PNG whose header declares width × height RGBA pixels of bitDepth (8 or 16)
// bits a channel, followed by one short row of data: decoding it allocates the whole canvas
// before finding the data missing, while image.DecodeConfig reads only the header.
func PNGDeclaring(width, height uint32, bitDepth byte) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		out.Write(n[:])
		out.WriteString(kind)
		out.Write(data)
		binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(append([]byte(kind), data...)))
		out.Write(n[:])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], width)
	binary.BigEndian.PutUint32(ihdr[4:], height)
	ihdr[8], ihdr[9] = bitDepth, 6 // colour type 6: RGBA
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	_, _ = zw.Write(make([]byte, 64)) // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

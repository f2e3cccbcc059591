package fake

import (
	"bytes"
	"encoding/binary"
)

// fatbinPTX returns the PTX text of the first uncompressed PTX entry of a
// fatbin that libcuda.CheckFatbin accepted, or nil. The layout (two
// reverse-engineered descriptions agree: cuda-fatbin-decompress's
// fat_text_header and nvopen-tools' FORMAT_SPECIFICATION.md): a 16-byte
// container header (magic, version, header size u16 at 6, body size u64 at
// 8), then entries of a header (kind u16 at 0: 1 PTX, 2 ELF; header size
// u32 at 4; payload size u64 at 8) and a payload. A compressed payload is
// binary, not text, and is skipped.
func fatbinPTX(image []byte) []byte {
	hdr := uint64(binary.LittleEndian.Uint16(image[6:]))
	body := binary.LittleEndian.Uint64(image[8:])
	for off, end := hdr, hdr+body; off+fatbinEntryMin <= end; {
		kind := binary.LittleEndian.Uint16(image[off:])
		eh := uint64(binary.LittleEndian.Uint32(image[off+4:]))
		size := binary.LittleEndian.Uint64(image[off+8:])
		payload := image[off+eh : off+eh+size]
		if kind == 1 {
			text := bytes.TrimRight(payload, "\x00")
			if isText(text) && bytes.Contains(text, []byte(".version")) {
				return text
			}
		}
		off += eh + size
	}
	return nil
}

// fatbinEntryMin is the smallest fatbin entry header.
const fatbinEntryMin = 64

// isText reports printable ASCII with tabs and line breaks.
func isText(b []byte) bool {
	for _, c := range b {
		if (c < ' ' || c > '~') && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

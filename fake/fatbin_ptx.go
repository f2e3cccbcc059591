package fake

import (
	"bytes"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/internal/abi"
)

// checkFatbin refuses a fatbin whose container header, entry headers or
// payloads do not lie inside image with ErrInvalidImage, as the real
// backend does before calling the driver: the check is the same one
// (package abi's), and allocates nothing.
func checkFatbin(image []byte) error {
	if abi.CheckFatbin(image) != nil {
		return driver.ErrInvalidImage
	}
	return nil
}

// fatbinPTX returns the PTX text of the first uncompressed PTX entry of a
// fatbin that checkFatbin accepted, or nil: a subslice of image, never a
// copy. The layout is package abi's. A compressed payload is binary, not
// text, and is skipped.
func fatbinPTX(image []byte) []byte {
	for e := range abi.FatbinEntries(image) {
		if e.Kind != abi.FatbinPTX {
			continue
		}
		text := bytes.TrimRight(e.Payload, "\x00")
		if isText(text) && bytes.Contains(text, []byte(".version")) {
			return text
		}
	}
	return nil
}

// isText reports printable ASCII with tabs and line breaks.
func isText(b []byte) bool {
	for _, c := range b {
		if (c < ' ' || c > '~') && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

package abi

import "strings"

// The magic numbers that open the binary images cuModuleLoadData takes
// besides PTX text.
const (
	// ELFMagic opens a CUBIN (an ELF file). The fake's CUBIN is this
	// magic followed by PTX text.
	ELFMagic = "\x7fELF"
	// FatbinMagic opens a fatbin: 0xBA55ED50, little-endian.
	FatbinMagic = "\x50\xed\x55\xba"
)

// ImageKind is what a module image is, by its first bytes.
type ImageKind uint8

// The kinds of module images.
const (
	ImagePTX    ImageKind = iota // neither magic: PTX text
	ImageELF                     // starts with ELFMagic
	ImageFatbin                  // starts with FatbinMagic
)

// KindOf returns the kind of image by its magic number. It reads only the
// first four bytes.
func KindOf(image []byte) ImageKind {
	switch {
	case hasPrefix(image, ELFMagic):
		return ImageELF
	case hasPrefix(image, FatbinMagic):
		return ImageFatbin
	}
	return ImagePTX
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.HasPrefix(string(b[:len(prefix)]), prefix)
}

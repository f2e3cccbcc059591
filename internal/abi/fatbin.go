package abi

import (
	"encoding/binary"
	"fmt"
	"iter"
)

// The fatbin layout. Two reverse-engineered descriptions agree
// (cuda-fatbin-decompress's fat_text_header and nvopen-tools'
// FORMAT_SPECIFICATION.md): a container header (magic u32 at 0, version
// u16 at 4, header size u16 at 6, body size u64 at 8: 16 bytes or more),
// then the body: entries one after the other, each an entry header (kind
// u16 at 0, version u16 at 2, entry header size u32 at 4, payload size u64
// at 8, then architecture, flags, ...: 64 bytes or more) followed by its
// payload. A payload may be compressed.
const (
	// FatbinHeaderMin is the size of the smallest container header.
	FatbinHeaderMin = 16
	// FatbinEntryMin is the size of the smallest entry header.
	FatbinEntryMin = 64
)

// FatbinKind is the kind of a fatbin entry's payload.
type FatbinKind uint16

// The payload kinds.
const (
	FatbinPTX FatbinKind = 1 // PTX text (NUL-padded), or compressed PTX
	FatbinELF FatbinKind = 2 // a CUBIN
)

// FatbinEntry is one entry of a fatbin.
type FatbinEntry struct {
	// Offset is where the entry header starts in the image.
	Offset uint64
	// Kind is the payload's kind.
	Kind FatbinKind
	// Payload is the entry's payload: a subslice of the image, not a copy.
	Payload []byte
}

// ImageError says why an image was refused: what is wrong and where.
type ImageError struct {
	Format string // "fatbin" or "ELF"
	Offset uint64 // where in the image the fault is
	Reason string
}

// Error says what is wrong with the image and at which byte.
func (e *ImageError) Error() string {
	return fmt.Sprintf("abi: %s image: %s (at byte %d)", e.Format, e.Reason, e.Offset)
}

func fatbinErr(off uint64, format string, args ...any) error {
	return &ImageError{Format: "fatbin", Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// CheckFatbin checks that a fatbin's container header, and every entry
// header and payload its body claims, lie inside image: the driver takes
// no length and would read past a truncated or lying image. It does not
// allocate unless it refuses the image, and its time is linear in the
// image's size (each entry takes at least FatbinEntryMin bytes of it). The
// error is an *ImageError.
func CheckFatbin(image []byte) error {
	n := uint64(len(image))
	if n < FatbinHeaderMin {
		return fatbinErr(0, "%d bytes, shorter than the %d-byte header", n, FatbinHeaderMin)
	}
	if KindOf(image) != ImageFatbin {
		return fatbinErr(0, "no fatbin magic")
	}
	hdr := uint64(binary.LittleEndian.Uint16(image[6:]))
	body := binary.LittleEndian.Uint64(image[8:])
	if hdr < FatbinHeaderMin || hdr > n {
		return fatbinErr(6, "header size %d outside %d..%d", hdr, FatbinHeaderMin, n)
	}
	if body > n-hdr {
		return fatbinErr(8, "body of %d bytes runs past the image's end (%d bytes after the header)", body, n-hdr)
	}
	for off, end := hdr, hdr+body; off < end; {
		left := end - off
		if left < FatbinEntryMin {
			return fatbinErr(off, "%d bytes left in the body, fewer than an entry header", left)
		}
		eh := uint64(binary.LittleEndian.Uint32(image[off+4:]))
		size := binary.LittleEndian.Uint64(image[off+8:])
		if eh < FatbinEntryMin || eh > left {
			return fatbinErr(off+4, "entry header size %d outside %d..%d", eh, FatbinEntryMin, left)
		}
		if size > left-eh {
			return fatbinErr(off+8, "payload of %d bytes runs past the body's end (%d bytes left)", size, left-eh)
		}
		off += eh + size
	}
	return nil
}

// FatbinEntries returns the entries of a fatbin, in order. On an image
// CheckFatbin refuses it yields the entries that lie inside the image and
// stops at the first that does not. It does not allocate.
func FatbinEntries(image []byte) iter.Seq[FatbinEntry] {
	return func(yield func(FatbinEntry) bool) {
		n := uint64(len(image))
		if n < FatbinHeaderMin || KindOf(image) != ImageFatbin {
			return
		}
		hdr := uint64(binary.LittleEndian.Uint16(image[6:]))
		body := binary.LittleEndian.Uint64(image[8:])
		if hdr < FatbinHeaderMin || hdr > n || body > n-hdr {
			return
		}
		for off, end := hdr, hdr+body; end-off >= FatbinEntryMin; {
			left := end - off
			eh := uint64(binary.LittleEndian.Uint32(image[off+4:]))
			size := binary.LittleEndian.Uint64(image[off+8:])
			if eh < FatbinEntryMin || eh > left || size > left-eh {
				return
			}
			e := FatbinEntry{
				Offset:  off,
				Kind:    FatbinKind(binary.LittleEndian.Uint16(image[off:])),
				Payload: image[off+eh : off+eh+size : off+eh+size],
			}
			if !yield(e) {
				return
			}
			off += eh + size
		}
	}
}

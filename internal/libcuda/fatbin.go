// fatbin.go has no build constraint: the fake uses the check on every
// platform.

package libcuda

import (
	"encoding/binary"

	"github.com/nocgo/cuda/driver/backend"
)

const (
	fatbinHeaderMin = 16
	fatbinEntryMin  = 64
)

// CheckFatbin checks that a fatbin's container header, and every entry
// header and payload its body claims, lie inside image: the driver takes
// no length and would read past a truncated or lying image. The fake
// refuses the same images with it.
func CheckFatbin(image []byte) error {
	n := uint64(len(image))
	if n < fatbinHeaderMin {
		return backend.ErrInvalidImage
	}
	hdr := uint64(binary.LittleEndian.Uint16(image[6:]))
	body := binary.LittleEndian.Uint64(image[8:])
	if hdr < fatbinHeaderMin || hdr > n || body > n-hdr {
		return backend.ErrInvalidImage
	}
	for off, end := hdr, hdr+body; off < end; {
		left := end - off
		if left < fatbinEntryMin {
			return backend.ErrInvalidImage
		}
		eh := uint64(binary.LittleEndian.Uint32(image[off+4:]))
		size := binary.LittleEndian.Uint64(image[off+8:])
		if eh < fatbinEntryMin || eh > left || size > left-eh {
			return backend.ErrInvalidImage
		}
		off += eh + size
	}
	return nil
}

//go:build linux && (amd64 || arm64)

package libcuda

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// fatbinEntry is one entry of a crafted fatbin: a 64-byte entry header
// (kind, version, header size, payload size, ...) and its payload.
type fatbinEntry struct {
	kind    uint16
	hdr     uint32 // entry header size; 0: 64
	claim   uint64 // payload size the header claims; 0: len(payload)
	payload []byte
}

// craftFatbin lays out a fatbin: the 16-byte container header, whose body
// size is body (0: the entries' real size), then the entries.
func craftFatbin(body uint64, entries ...fatbinEntry) []byte {
	var b []byte
	for _, e := range entries {
		hdr := e.hdr
		if hdr == 0 {
			hdr = 64
		}
		claim := e.claim
		if claim == 0 {
			claim = uint64(len(e.payload))
		}
		h := make([]byte, max(16, min(hdr, 4096))) // a huge size is a lie: the test cuts the image
		binary.LittleEndian.PutUint16(h[0:], e.kind)
		binary.LittleEndian.PutUint16(h[2:], 0x0101)
		binary.LittleEndian.PutUint32(h[4:], hdr)
		binary.LittleEndian.PutUint64(h[8:], claim)
		b = append(append(b, h...), e.payload...)
	}
	if body == 0 {
		body = uint64(len(b))
	}
	head := []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint64(head[8:], body)
	return append(head, b...)
}

// moduleImage passes well-formed fatbins as they are and refuses the
// others with the driver's ErrInvalidImage (package abi's tests cover the
// check itself).
func TestModuleImageFatbin(t *testing.T) {
	ptx := []byte(".version 8.0\n.target sm_90\n\x00\x00\x00")
	elf := minimalELF(0)
	for name, image := range map[string][]byte{
		"one entry":     craftFatbin(0, fatbinEntry{kind: 1, payload: ptx}),
		"two entries":   craftFatbin(0, fatbinEntry{kind: 2, payload: elf}, fatbinEntry{kind: 1, payload: ptx}),
		"112-byte head": craftFatbin(0, fatbinEntry{kind: 2, hdr: 112, payload: elf}),
		"empty payload": craftFatbin(0, fatbinEntry{kind: 1}),
		"no entries":    craftFatbin(0),
		// The image may go on past the container (more containers, padding).
		"trailing bytes": append(craftFatbin(0, fatbinEntry{kind: 1, payload: ptx}), make([]byte, 40)...),
	} {
		img, err := moduleImage(image)
		if assert.NoError(t, err, name) {
			assert.Same(t, &image[0], &img[0], "%s: a fatbin is passed as is", name)
		}
	}

	good := craftFatbin(0, fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, payload: elf})
	for name, image := range map[string][]byte{
		"first entry claims more than the image": craftFatbin(0, fatbinEntry{kind: 1, claim: 1 << 20, payload: ptx}),
		"first entry claims past the body":       craftFatbin(64+uint64(len(ptx)), fatbinEntry{kind: 1, claim: uint64(len(ptx)) + 8, payload: append(ptx, make([]byte, 8)...)}),
		"entry claims near 1<<64":                craftFatbin(0, fatbinEntry{kind: 1, claim: ^uint64(0) - 10, payload: ptx}),
		"entry header size huge":                 craftFatbin(0, fatbinEntry{kind: 1, hdr: 1 << 31, payload: ptx})[:16+64],
		"entry header below 64 bytes":            craftFatbin(0, fatbinEntry{kind: 1, hdr: 16, payload: ptx}),
		"second entry claims too much":           craftFatbin(0, fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, claim: 1 << 40, payload: elf}),
		"truncated entry header":                 good[:16+40],
		"body cut inside an entry header":        craftFatbin(16+64+uint64(len(ptx))+10, fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, payload: elf}),
		"body past the end":                      craftFatbin(uint64(len(good)), fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, payload: elf}),
		"body size near 1<<64":                   craftFatbin(^uint64(0)-8, fatbinEntry{kind: 1, payload: ptx}),
		"header size past the end":               append([]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 0xff, 0xff}, make([]byte, 8)...),
		"header size below 16":                   append([]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 8, 0}, make([]byte, 8)...),
		"truncated container header":             good[:12],
	} {
		_, err := moduleImage(image)
		assert.ErrorIs(t, err, backend.ErrInvalidImage, name)
	}

	// A load refuses it before calling the driver: here cuModuleLoadData is
	// libc's getpid, whose result (the pid) would be the error if called.
	l := testLibcuda(t, 13000, map[sym]string{symModuleLoadData: "getpid"})
	_, err := l.ModuleLoadData(craftFatbin(0, fatbinEntry{kind: 1, claim: 1 << 20, payload: ptx}))
	require.ErrorIs(t, err, backend.ErrInvalidImage)
	_, err = l.ModuleLoadData(good)
	require.Error(t, err)
	assert.NotErrorIs(t, err, backend.ErrInvalidImage, "a good fatbin reaches the driver")
}

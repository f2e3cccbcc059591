package abi

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

var (
	testPTX = []byte(".version 8.0\n.target sm_90\n\x00\x00\x00")
	testELF = minimalELF()
)

// goodFatbins are well-formed fatbins, by name.
func goodFatbins() map[string][]byte {
	return map[string][]byte{
		"one entry":     craftFatbin(0, fatbinEntry{kind: 1, payload: testPTX}),
		"two entries":   craftFatbin(0, fatbinEntry{kind: 2, payload: testELF}, fatbinEntry{kind: 1, payload: testPTX}),
		"112-byte head": craftFatbin(0, fatbinEntry{kind: 2, hdr: 112, payload: testELF}),
		"empty payload": craftFatbin(0, fatbinEntry{kind: 1}),
		"no entries":    craftFatbin(0),
		// The image may go on past the container (more containers, padding).
		"trailing bytes": append(craftFatbin(0, fatbinEntry{kind: 1, payload: testPTX}), make([]byte, 40)...),
	}
}

// badFatbins are fatbins whose headers claim bytes outside the image, by
// name.
func badFatbins() map[string][]byte {
	ptx := testPTX
	good := craftFatbin(0, fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, payload: testELF})
	return map[string][]byte{
		"first entry claims more than the image": craftFatbin(0, fatbinEntry{kind: 1, claim: 1 << 20, payload: ptx}),
		"first entry claims past the body":       craftFatbin(64+uint64(len(ptx)), fatbinEntry{kind: 1, claim: uint64(len(ptx)) + 8, payload: append(ptx, make([]byte, 8)...)}),
		"entry claims near 1<<64":                craftFatbin(0, fatbinEntry{kind: 1, claim: ^uint64(0) - 10, payload: ptx}),
		"entry header size huge":                 craftFatbin(0, fatbinEntry{kind: 1, hdr: 1 << 31, payload: ptx})[:16+64],
		"entry header below 64 bytes":            craftFatbin(0, fatbinEntry{kind: 1, hdr: 16, payload: ptx}),
		"second entry claims too much":           craftFatbin(0, fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, claim: 1 << 40, payload: testELF}),
		"truncated entry header":                 good[:16+40],
		"body cut inside an entry header":        craftFatbin(16+64+uint64(len(ptx))+10, fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, payload: testELF}),
		"body past the end":                      craftFatbin(uint64(len(good)), fatbinEntry{kind: 1, payload: ptx}, fatbinEntry{kind: 2, payload: testELF}),
		"body size near 1<<64":                   craftFatbin(^uint64(0)-8, fatbinEntry{kind: 1, payload: ptx}),
		"header size past the end":               append([]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 0xff, 0xff}, make([]byte, 8)...),
		"header size below 16":                   append([]byte{0x50, 0xed, 0x55, 0xba, 1, 0, 8, 0}, make([]byte, 8)...),
		"truncated container header":             good[:12],
		"no magic":                               append([]byte{1, 2, 3, 4}, good[4:]...),
	}
}

func TestCheckFatbin(t *testing.T) {
	for name, image := range goodFatbins() {
		assert.NoError(t, CheckFatbin(image), name)
		assert.Equal(t, ImageFatbin, KindOf(image), name)
	}
	for name, image := range badFatbins() {
		err := CheckFatbin(image)
		var ie *ImageError
		if assert.True(t, errors.As(err, &ie), "%s: %v", name, err) {
			assert.Equal(t, "fatbin", ie.Format)
			assert.LessOrEqual(t, ie.Offset, uint64(len(image)), name)
			assert.Contains(t, err.Error(), "abi: fatbin image: ", name)
		}
	}
	err := CheckFatbin(craftFatbin(0, fatbinEntry{kind: 1, claim: 1 << 20, payload: testPTX}))
	assert.EqualError(t, err, "abi: fatbin image: payload of 1048576 bytes runs past the body's end (30 bytes left) (at byte 24)")
}

func TestFatbinEntries(t *testing.T) {
	image := craftFatbin(0, fatbinEntry{kind: 2, payload: testELF}, fatbinEntry{kind: 1, hdr: 80, payload: testPTX})
	var got []FatbinEntry
	for e := range FatbinEntries(image) {
		got = append(got, e)
	}
	require.Len(t, got, 2)
	assert.Equal(t, FatbinEntry{Offset: 16, Kind: FatbinELF, Payload: testELF}, got[0])
	assert.Equal(t, FatbinEntry{Offset: 16 + 64 + uint64(len(testELF)), Kind: FatbinPTX, Payload: testPTX}, got[1])
	assert.Same(t, &image[16+64], &got[0].Payload[0], "payloads are the image's bytes, not copies")
	assert.Equal(t, len(got[0].Payload), cap(got[0].Payload), "a payload cannot be appended into the next entry")

	// Stops early when asked, and at the first entry outside the image.
	n := 0
	for range FatbinEntries(image) {
		n++
		break
	}
	assert.Equal(t, 1, n)
	bad := craftFatbin(0, fatbinEntry{kind: 1, payload: testPTX}, fatbinEntry{kind: 2, claim: 1 << 40, payload: testELF})
	n = 0
	for e := range FatbinEntries(bad) {
		n++
		assert.Equal(t, FatbinPTX, e.Kind)
	}
	assert.Equal(t, 1, n, "the entries before the bad one")
	for name, image := range badFatbins() {
		for e := range FatbinEntries(image) {
			assert.LessOrEqual(t, e.Offset+64+uint64(len(e.Payload)), uint64(len(image)), name)
		}
	}
}

// The check and the walk allocate nothing for any image they accept, and
// only the error for one they refuse, however large the sizes claimed.
func TestFatbinMemory(t *testing.T) {
	for name, image := range goodFatbins() {
		assert.Zero(t, testing.AllocsPerRun(20, func() { _ = CheckFatbin(image) }), name)
		assert.Zero(t, testing.AllocsPerRun(20, func() {
			for range FatbinEntries(image) {
			}
		}), name)
	}
	for name, image := range badFatbins() {
		checkMemory(t, name, image, func() { _ = CheckFatbin(image) })
	}
	// Many entries: linear time, no memory.
	entries := make([]fatbinEntry, 1<<14)
	for i := range entries {
		entries[i] = fatbinEntry{kind: 1}
	}
	many := craftFatbin(0, entries...)
	require.NoError(t, CheckFatbin(many))
	assert.Zero(t, testing.AllocsPerRun(5, func() { _ = CheckFatbin(many) }))
}

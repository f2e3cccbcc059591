package abi

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var le = binary.LittleEndian

// minimalELF is an ELF64 header with no sections and no segments.
func minimalELF() []byte {
	h := make([]byte, 64)
	copy(h, []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33})
	le.PutUint16(h[16:], 2)   // ET_EXEC
	le.PutUint16(h[18:], 190) // EM_CUDA
	le.PutUint32(h[20:], 1)
	le.PutUint16(h[52:], 64) // e_ehsize
	le.PutUint16(h[54:], 56) // e_phentsize
	le.PutUint16(h[58:], 64) // e_shentsize
	return h
}

// Offsets in craftedELF's image.
const (
	ceProgs    = 64           // one program header
	ceSections = ceProgs + 56 // four section headers: null, .shstrtab, .text, .bss
	ceData     = ceSections + 4*64
	ceNames    = "\x00.shstrtab\x00.text\x00.bss\x00"
	ceText     = ceData + len(ceNames) // 32 bytes of .text
	ceSize     = ceText + 32
)

// craftedELF is a small well-formed CUBIN-like ELF64: a null section, the
// section name table, 32 bytes of .text in one PT_LOAD segment, and a
// 1 GiB .bss, which takes no room in the file.
func craftedELF() []byte {
	img := make([]byte, ceSize)
	copy(img, minimalELF())
	le.PutUint64(img[32:], ceProgs)    // e_phoff
	le.PutUint16(img[56:], 1)          // e_phnum
	le.PutUint64(img[40:], ceSections) // e_shoff
	le.PutUint16(img[60:], 4)          // e_shnum
	le.PutUint16(img[62:], 1)          // e_shstrndx
	p := img[ceProgs:]
	le.PutUint32(p[0:], 1) // PT_LOAD
	le.PutUint64(p[8:], uint64(ceText))
	le.PutUint64(p[32:], 32) // p_filesz
	le.PutUint64(p[40:], 32) // p_memsz
	section := func(i int, name, typ uint32, off, size uint64) {
		h := img[ceSections+64*i:]
		le.PutUint32(h[0:], name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
	}
	section(1, 1, 3, ceData, uint64(len(ceNames)))
	section(2, 11, 1, uint64(ceText), 32)
	section(3, 17, 8, 0x1000, 1<<30) // SHT_NOBITS
	copy(img[ceData:], ceNames)
	return img
}

// patch returns a copy of image with v written as a little-endian value of
// size bytes at off.
func patch(image []byte, off int, size int, v uint64) []byte {
	img := append([]byte(nil), image...)
	switch size {
	case 2:
		le.PutUint16(img[off:], uint16(v))
	case 4:
		le.PutUint32(img[off:], uint32(v))
	default:
		le.PutUint64(img[off:], v)
	}
	return img
}

// badELFs are ELF images whose tables or contents lie outside the image,
// by name.
func badELFs() map[string][]byte {
	good := craftedELF()
	sh := func(i, field int) int { return ceSections + 64*i + field }
	return map[string][]byte{
		"truncated header":                good[:20],
		"truncated ELF64 header":          good[:60],
		"identification only":             []byte("\x7fELF\x02\x01\x01rest"),
		"unknown class":                   patch(good, 4, 2, 0x0103),
		"unknown byte order":              patch(good, 4, 2, 0x0302),
		"unknown ident version":           patch(good, 6, 2, 0x0002),
		"unknown object version":          patch(good, 20, 4, 2),
		"section table past the end":      patch(good, 40, 8, 1<<20),
		"section table offset near 1<<64": patch(good, 40, 8, ^uint64(0)-8),
		"sections but no section table":   patch(good, 40, 8, 0),
		"section count past the end":      patch(good, 60, 2, 0xfff0),
		"section entry size too small":    patch(good, 58, 2, 16),
		"program table past the end":      patch(good, 32, 8, uint64(ceSize)),
		"program entry size too small":    patch(good, 54, 2, 8),
		"program count past the end":      patch(good, 56, 2, 1000),
		"segment past the end":            patch(good, ceProgs+32, 8, 1<<40),
		"segment offset near 1<<64":       patch(good, ceProgs+8, 8, ^uint64(0)),
		"section past the end":            patch(good, sh(2, 32), 8, uint64(33+ceSize)),
		"section size near 1<<64":         patch(good, sh(2, 32), 8, ^uint64(0)-100),
		"section offset past the end":     patch(good, sh(2, 24), 8, 1<<33),
		"name table index too large":      patch(good, 62, 2, 4),
		"name table not a string table":   patch(good, sh(1, 4), 4, 1),
		"name outside the name table":     patch(good, sh(2, 0), 4, 1<<20),
		"nobits name outside the table":   patch(good, sh(3, 0), 4, uint64(len(ceNames))),
		"extended count past the end": func() []byte {
			img := patch(good, 60, 2, 0) // e_shnum 0: the count is section 0's sh_size
			return patch(img, sh(0, 32), 8, 1<<40)
		}(),
		"extended segment count past the end": func() []byte {
			img := patch(good, 56, 2, 0xffff) // PN_XNUM: the count is section 0's sh_info
			return patch(img, sh(0, 44), 4, 1<<30)
		}(),
	}
}

func TestCheckELF(t *testing.T) {
	good := craftedELF()
	require.NoError(t, CheckELF(good))
	require.NoError(t, CheckELF(minimalELF()))
	f, err := elf.NewFile(bytes.NewReader(good))
	require.NoError(t, err, "the crafted image is an ELF file debug/elf reads")
	require.Len(t, f.Sections, 4)

	// Extended numbering, kept in section 0, is followed.
	ext := patch(good, 60, 2, 0)
	ext = patch(ext, ceSections+32, 8, 4) // sh_size: the section count
	ext = patch(ext, 62, 2, 0xffff)
	ext = patch(ext, ceSections+40, 4, 1) // sh_link: the name table's index
	ext = patch(ext, 56, 2, 0xffff)
	ext = patch(ext, ceSections+44, 4, 1) // sh_info: the segment count
	assert.NoError(t, CheckELF(ext), "extended numbering")

	for name, image := range badELFs() {
		err := CheckELF(image)
		var ie *ImageError
		if assert.True(t, errors.As(err, &ie), "%s: %v", name, err) {
			assert.Equal(t, "ELF", ie.Format)
			assert.Contains(t, err.Error(), "abi: ELF image: ", name)
		}
	}
	assert.EqualError(t, CheckELF(patch(good, 40, 8, 1<<20)),
		"abi: ELF image: section header table (4 entries of 64 bytes at 1048576) runs past the image's end (430 bytes) (at byte 40)")
}

// Every ELF file debug/elf reads without error that lies inside its
// bytes is accepted: real executables and libraries, ELF32 and big-endian
// forms of the crafted file.
func TestCheckELFAcceptsRealFiles(t *testing.T) {
	paths := []string{"/proc/self/exe"}
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/bin/sh"} {
		if _, err := os.Stat(p); err == nil {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		image, err := os.ReadFile(p)
		if err != nil {
			t.Skipf("%s: %v", p, err)
		}
		_, err = elf.NewFile(bytes.NewReader(image))
		require.NoError(t, err, p)
		assert.NoError(t, CheckELF(image), p)
		assert.Zero(t, testing.AllocsPerRun(3, func() { _ = CheckELF(image) }), p)
	}

	// The crafted file in ELF32, big-endian.
	img := make([]byte, 52+32+3*40+len(ceNames)+8)
	be := binary.BigEndian
	copy(img, []byte{0x7f, 'E', 'L', 'F', 1, 2, 1})
	be.PutUint16(img[16:], 2)
	be.PutUint32(img[20:], 1)
	be.PutUint32(img[28:], 52)    // e_phoff
	be.PutUint32(img[32:], 52+32) // e_shoff
	be.PutUint16(img[40:], 52)
	be.PutUint16(img[42:], 32) // e_phentsize
	be.PutUint16(img[44:], 1)  // e_phnum
	be.PutUint16(img[46:], 40) // e_shentsize
	be.PutUint16(img[48:], 3)  // e_shnum
	be.PutUint16(img[50:], 1)  // e_shstrndx
	data := uint32(52 + 32 + 3*40)
	be.PutUint32(img[52+4:], data) // p_offset
	be.PutUint32(img[52+16:], 8)   // p_filesz
	s1 := img[52+32+40:]
	be.PutUint32(s1[0:], 1)
	be.PutUint32(s1[4:], 3)
	be.PutUint32(s1[16:], data)
	be.PutUint32(s1[20:], uint32(len(ceNames)))
	s2 := img[52+32+80:]
	be.PutUint32(s2[0:], 11)
	be.PutUint32(s2[4:], 1)
	be.PutUint32(s2[16:], data+uint32(len(ceNames)))
	be.PutUint32(s2[20:], 8)
	copy(img[data:], ceNames)
	_, err := elf.NewFile(bytes.NewReader(img))
	require.NoError(t, err, "debug/elf reads the ELF32 big-endian file")
	assert.NoError(t, CheckELF(img))
	assert.Error(t, CheckELF(img[:len(img)-1]), "its .text cut short")
}

// hostileNames is an ELF file of n sections whose names all point at one
// string of strlen bytes: debug/elf copies the string once per section
// (a 1 MB image of 8000 sections made it allocate 3.9 GB, 4000 times the
// input, in 10 s), which the driver-side check must not.
func hostileNames(n, strlen int) []byte {
	strOff := 64 + n*64
	img := make([]byte, strOff+strlen+1)
	copy(img, minimalELF())
	le.PutUint64(img[40:], 64)
	le.PutUint16(img[60:], uint16(n))
	le.PutUint16(img[62:], 1)
	for i := range strlen {
		img[strOff+i] = 'a'
	}
	for i := 1; i < n; i++ {
		h := img[64+i*64:]
		le.PutUint32(h[4:], 3) // SHT_STRTAB
		le.PutUint64(h[24:], uint64(strOff))
		le.PutUint64(h[32:], uint64(strlen+1))
	}
	return img
}

// The check allocates nothing for any image it accepts, and only its error
// for one it refuses, whatever the counts and sizes claimed.
func TestELFMemory(t *testing.T) {
	bomb := hostileNames(8000, 500_000)
	require.NoError(t, CheckELF(bomb), "well formed, only hostile to a parser that copies names")
	assert.Zero(t, testing.AllocsPerRun(3, func() { _ = CheckELF(bomb) }))
	checkMemory(t, "CheckELF", bomb, func() { _ = CheckELF(bomb) })
	for name, image := range badELFs() {
		checkMemory(t, name, image, func() { _ = CheckELF(image) })
	}
}

func TestKindOf(t *testing.T) {
	assert.Equal(t, ImageELF, KindOf(craftedELF()))
	assert.Equal(t, ImageFatbin, KindOf(craftFatbin(0)))
	assert.Equal(t, ImagePTX, KindOf([]byte(".version 8.0")))
	assert.Equal(t, ImagePTX, KindOf([]byte("\x7fEL")), "a magic cut short")
	assert.Equal(t, ImagePTX, KindOf(nil))
}

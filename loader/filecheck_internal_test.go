package loader

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/dl"
)

// header64 returns an ELF64 header for this machine's byte order, with
// phnum program headers of phentsize bytes at phoff.
func header64(typ elf.Type, machine elf.Machine, phoff uint64, phentsize, phnum uint16) []byte {
	h := elf.Header64{
		Type: uint16(typ), Machine: uint16(machine), Version: uint32(elf.EV_CURRENT),
		Phoff: phoff, Ehsize: 64, Phentsize: phentsize, Phnum: phnum,
		// Section headers are irrelevant to the system loader, and to the
		// check: these point nowhere.
		Shoff: 1 << 40, Shentsize: 64, Shnum: 99, Shstrndx: 98,
	}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	h.Ident[elf.EI_DATA] = byte(host.data)
	h.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	var b bytes.Buffer
	binary.Write(&b, host.order, &h)
	return b.Bytes()
}

func prog64(typ elf.ProgType, off, filesz uint64) []byte {
	var b bytes.Buffer
	binary.Write(&b, host.order, &elf.Prog64{Type: uint32(typ), Off: off, Filesz: filesz, Memsz: filesz, Align: 0x1000})
	return b.Bytes()
}

// craft returns an ELF shared library for this machine with the given
// program headers right after the header, padded to size bytes.
func craft(size int, progs ...[]byte) []byte {
	b := header64(elf.ET_DYN, host.machine, 64, 56, uint16(len(progs)))
	for _, p := range progs {
		b = append(b, p...)
	}
	for len(b) < size {
		b = append(b, 0)
	}
	return b
}

func TestCheckELF(t *testing.T) {
	if host.class != elf.ELFCLASS64 || host.machine == elf.EM_NONE {
		t.Skip("the crafted files are ELF64")
	}
	check := func(b []byte) error { return checkELF(bytes.NewReader(b), int64(len(b))) }

	good := craft(0x2000, prog64(elf.PT_PHDR, 64, 56*3), prog64(elf.PT_LOAD, 0, 0x1000), prog64(elf.PT_LOAD, 0x1000, 0x1000))
	assert.NoError(t, check(good), "section headers are not looked at")

	for _, tc := range []struct {
		name string
		file []byte
		why  string
	}{
		{"last segment one byte short", good[:0x1fff], "truncated: PT_LOAD segment 2 at file offset [0x1000, 0x2000) extends past the end of the file (8191 bytes)"},
		{"segment offset past the end", craft(0x1000, prog64(elf.PT_LOAD, 0x5000, 0)), "PT_LOAD segment 0 at file offset [0x5000, 0x5000) extends past"},
		{"segment end overflows", craft(0x1000, prog64(elf.PT_LOAD, 0x10, ^uint64(0))), "PT_LOAD segment 0: file offset 0x10 plus size 0xffffffffffffffff overflows"},
		{"huge segment", craft(0x1000, prog64(elf.PT_LOAD, 0, ^uint64(0))), "[0x0, 0xffffffffffffffff) extends past"},
		{"no PT_LOAD", craft(0x1000, prog64(elf.PT_DYNAMIC, 0, 0x100)), "no PT_LOAD segment"},
		{"no program headers", craft(0x1000), "no program headers"},
		{"program headers past the end", append(header64(elf.ET_DYN, host.machine, 0x1000, 56, 2), make([]byte, 100)...),
			"truncated: the program headers (112 bytes at file offset 0x1000) extend past the end of the file (164 bytes)"},
		{"program headers offset overflows", header64(elf.ET_DYN, host.machine, ^uint64(0), 56, 0xffff),
			"the program headers (3669960 bytes at file offset 0xffffffffffffffff) extend past"},
		{"program header size", header64(elf.ET_DYN, host.machine, 64, 32, 1), "program header size 32; ELFCLASS64 files have 56"},
		{"relocatable", header64(elf.ET_REL, host.machine, 64, 56, 1), "ELF type ET_REL, not a shared library (ET_DYN)"},
		{"header cut", good[:63], "too short for an ELF header (63 bytes)"},
		{"ident cut", good[:6], "too short for an ELF header (6 bytes)"},
		{"magic cut", good[:3], "too short for an ELF header (3 bytes)"},
		{"one byte", []byte{'#'}, "not an ELF file"},
		{"empty", nil, "empty file"},
		{"version", func() []byte { b := bytes.Clone(good); b[elf.EI_VERSION] = 2; return b }(), "ELF version 2; this program loads 1"},
	} {
		err := check(tc.file)
		if assert.Error(t, err, tc.name) {
			assert.ErrorIs(t, err, ErrBadFile, tc.name)
			assert.Contains(t, err.Error(), tc.why, tc.name)
		}
	}

	// Files of another class, byte order or machine are foreign: skipped,
	// not refused, when searching LD_LIBRARY_PATH.
	other := elf.EM_X86_64
	if host.machine == other {
		other = elf.EM_AARCH64
	}
	otherData := bytes.Clone(good)
	otherData[elf.EI_DATA] = byte(elf.ELFDATA2MSB + elf.ELFDATA2LSB - host.data)
	for name, b := range map[string][]byte{
		"class":   func() []byte { b := bytes.Clone(good); b[elf.EI_CLASS] = byte(elf.ELFCLASS32); return b }(),
		"data":    otherData,
		"machine": header64(elf.ET_DYN, other, 64, 56, 1),
	} {
		var bad *badFileError
		require.ErrorAs(t, check(b), &bad, name)
		assert.True(t, bad.foreign, name)
	}
}

// systemLibc returns the C library this process runs with.
func systemLibc(t testing.TB) string {
	if !dl.Supported {
		t.Skip("run-time loading is not built for this platform")
	}
	h, err := dl.Open("libc.so.6")
	require.NoError(t, err)
	p, ok := dl.Path(h)
	if !ok || !filepath.IsAbs(p) {
		t.Skip("the system loader does not tell libc's path")
	}
	return p
}

// TestCheckRealLibraryCut: the C library passes; cut anywhere before the
// end of its last loadable segment, it is refused.
func TestCheckRealLibraryCut(t *testing.T) {
	data, err := os.ReadFile(systemLibc(t))
	require.NoError(t, err)
	require.NoError(t, checkELF(bytes.NewReader(data), int64(len(data))))

	f, err := elf.NewFile(bytes.NewReader(data))
	require.NoError(t, err)
	var end uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			end = max(end, p.Off+p.Filesz)
		}
	}
	require.NotZero(t, end)
	for _, n := range []uint64{0, 1, 16, 63, 64, 100, 1000, 4096, 4097, end / 2, end - 4096, end - 1} {
		assert.ErrorIs(t, checkELF(bytes.NewReader(data[:n]), int64(n)), ErrBadFile, "cut at %d", n)
	}
	if end < uint64(len(data)) {
		assert.NoError(t, checkELF(bytes.NewReader(data[:end]), int64(end)), "what follows the segments (section headers) is not needed")
	}
}

// checkWithin runs checkFile on path and fails the test if it has not
// returned within a few seconds.
func checkWithin(t testing.TB, path string) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- checkFile(path) }()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("checkFile(%q) did not return within 5s", path)
		return nil
	}
}

// FuzzELFCheck: the check of a library file, on any contents, returns
// promptly without panicking; what it accepts is an ELF shared library of
// this machine whose loadable segments lie inside the file.
func FuzzELFCheck(f *testing.F) {
	if host.class == elf.ELFCLASS64 && host.machine != elf.EM_NONE {
		good := craft(0x2000, prog64(elf.PT_PHDR, 64, 56*3), prog64(elf.PT_LOAD, 0, 0x1000), prog64(elf.PT_LOAD, 0x1000, 0x1000))
		f.Add(good[:0x200]) // segments past the end
		f.Add(craft(0x200, prog64(elf.PT_LOAD, 0, 0x200)))
		f.Add(header64(elf.ET_DYN, host.machine, 0xffffffff, 56, 0xffff))
	}
	f.Add([]byte{})
	f.Add([]byte("\x7fELF"))
	f.Add([]byte("#!/bin/sh\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "libfuzz.so")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		err := checkWithin(t, path)
		assert.Equal(t, err, checkELF(bytes.NewReader(data), int64(len(data))), "the file and its bytes agree")
		if err != nil {
			assert.True(t, errors.Is(err, ErrBadFile) || strings.HasPrefix(err.Error(), "reading"), "%v", err)
			return
		}
		if host.class != elf.ELFCLASS64 {
			return
		}
		// Accepted: an independent reading agrees.
		require.GreaterOrEqual(t, len(data), 64)
		assert.Equal(t, elf.ELFMAG, string(data[:4]))
		assert.Equal(t, host.class, elf.Class(data[elf.EI_CLASS]))
		var h elf.Header64
		require.NoError(t, binary.Read(bytes.NewReader(data), host.order, &h))
		assert.Equal(t, elf.ET_DYN, elf.Type(h.Type))
		assert.Equal(t, host.machine, elf.Machine(h.Machine))
		loads := 0
		for i := range int(h.Phnum) {
			var p elf.Prog64
			off := h.Phoff + uint64(i)*56
			require.LessOrEqual(t, off+56, uint64(len(data)))
			require.NoError(t, binary.Read(bytes.NewReader(data[off:]), host.order, &p))
			if elf.ProgType(p.Type) == elf.PT_LOAD {
				loads++
				assert.LessOrEqual(t, p.Off, uint64(len(data)))
				assert.LessOrEqual(t, p.Filesz, uint64(len(data))-p.Off)
			}
		}
		assert.Positive(t, loads)
	})
}

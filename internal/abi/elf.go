package abi

import (
	"encoding/binary"
	"fmt"
)

// The ELF layout CheckELF reads (the System V gABI, "ELF header", "Section
// header" and "Program header"): both classes (ELFCLASS32, ELFCLASS64)
// and both byte orders, though every CUBIN is ELF64 little-endian.
const (
	elfHeader32, elfHeader64   = 52, 64 // sizeof(ElfN_Ehdr)
	elfSection32, elfSection64 = 40, 64 // sizeof(ElfN_Shdr)
	elfProg32, elfProg64       = 32, 56 // sizeof(ElfN_Phdr)

	elfClass32, elfClass64 = 1, 2 // e_ident[EI_CLASS]
	elfDataLSB, elfDataMSB = 1, 2 // e_ident[EI_DATA]
	elfVersionCurrent      = 1    // e_ident[EI_VERSION], e_version

	shtNull, shtStrtab, shtNobits = 0, 3, 8 // sh_type values
	shnXindex                     = 0xffff  // e_shstrndx: the index is in section 0's sh_link
	pnXnum                        = 0xffff  // e_phnum: the count is in section 0's sh_info
)

func elfErr(off uint64, format string, args ...any) error {
	return &ImageError{Format: "ELF", Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// elfFile reads the fields of an ELF file of either class and byte order.
type elfFile struct {
	b     []byte
	order binary.ByteOrder
	is64  bool
}

func (f elfFile) u16(off uint64) uint64 { return uint64(f.order.Uint16(f.b[off:])) }
func (f elfFile) u32(off uint64) uint64 { return uint64(f.order.Uint32(f.b[off:])) }

// word reads an ElfN_Addr/ElfN_Off/ElfN_Xword: 8 bytes in ELF64, 4 in ELF32.
func (f elfFile) word(off uint64) uint64 {
	if f.is64 {
		return f.order.Uint64(f.b[off:])
	}
	return f.u32(off)
}

// table checks that a header table of count entries of entsize bytes (at
// least min) at off lies inside the file.
func (f elfFile) table(what string, off, count, entsize, min, at uint64) error {
	if count == 0 {
		return nil
	}
	n := uint64(len(f.b))
	if entsize < min {
		return elfErr(at, "%s entry size %d, smaller than %d", what, entsize, min)
	}
	if off > n || count > (n-off)/entsize {
		return elfErr(at, "%s table (%d entries of %d bytes at %d) runs past the image's end (%d bytes)", what, count, entsize, off, n)
	}
	return nil
}

// inside checks that the range [off, off+size) lies inside the file.
func (f elfFile) inside(what string, i, off, size, at uint64) error {
	n := uint64(len(f.b))
	if off > n || size > n-off {
		return elfErr(at, "%s %d: %d bytes at %d run past the image's end (%d bytes)", what, i, size, off, n)
	}
	return nil
}

// CheckELF checks that a CUBIN's header, its section and program header
// tables, every section's contents (but SHT_NOBITS sections', which take
// no room in the file), every segment's file contents and every section
// name lie inside image: the driver takes no length and would read past a
// truncated or lying image. Extended numbering (a section count, section
// name table index or segment count too large for the header, kept in
// section 0) is followed. It does not allocate unless it refuses the
// image, and its time is linear in the image's size (each header it reads
// lies inside the image). The error is an *ImageError.
func CheckELF(image []byte) error {
	n := uint64(len(image))
	if n < 16 || KindOf(image) != ImageELF {
		return elfErr(0, "no ELF identification")
	}
	f := elfFile{b: image}
	switch image[4] {
	case elfClass32:
	case elfClass64:
		f.is64 = true
	default:
		return elfErr(4, "unknown class %d", image[4])
	}
	switch image[5] {
	case elfDataLSB:
		f.order = binary.LittleEndian
	case elfDataMSB:
		f.order = binary.BigEndian
	default:
		return elfErr(5, "unknown byte order %d", image[5])
	}
	if image[6] != elfVersionCurrent {
		return elfErr(6, "unknown ELF version %d", image[6])
	}
	// Offsets of the header fields, and sizes of the table entries.
	var phoffAt, shoffAt, phentAt uint64 = 28, 32, 42
	hsize, ssize, psize := uint64(elfHeader32), uint64(elfSection32), uint64(elfProg32)
	// In a section header: sh_type, sh_offset, sh_size, sh_link, sh_info.
	var shType, shOffset, shSize, shLink, shInfo uint64 = 4, 16, 20, 24, 28
	// In a program header: p_offset, p_filesz.
	var phOffset, phFilesz uint64 = 4, 16
	if f.is64 {
		phoffAt, shoffAt, phentAt = 32, 40, 54
		hsize, ssize, psize = elfHeader64, elfSection64, elfProg64
		shOffset, shSize, shLink, shInfo = 24, 32, 40, 44
		phOffset, phFilesz = 8, 32
	}
	if n < hsize {
		return elfErr(0, "%d bytes, shorter than the %d-byte ELF header", n, hsize)
	}
	if v := f.u32(20); v != elfVersionCurrent {
		return elfErr(20, "unknown object file version %d", v)
	}
	phoff, shoff := f.word(phoffAt), f.word(shoffAt)
	phent, phnum := f.u16(phentAt), f.u16(phentAt+2)
	shent, shnum, shstrndx := f.u16(phentAt+4), f.u16(phentAt+6), f.u16(phentAt+8)

	// Section 0 holds what does not fit in the header.
	if shoff != 0 && (shnum == 0 || shstrndx == shnXindex || phnum == pnXnum) {
		if err := f.table("section header", shoff, 1, shent, ssize, shoffAt); err != nil {
			return err
		}
		if shnum == 0 {
			shnum = f.word(shoff + shSize)
		}
		if shstrndx == shnXindex {
			shstrndx = f.u32(shoff + shLink)
		}
		if phnum == pnXnum {
			phnum = f.u32(shoff + shInfo)
		}
	}
	if shoff == 0 && shnum != 0 {
		return elfErr(shoffAt, "%d sections but no section header table", shnum)
	}
	if err := f.table("section header", shoff, shnum, shent, ssize, shoffAt); err != nil {
		return err
	}
	if err := f.table("program header", phoff, phnum, phent, psize, phoffAt); err != nil {
		return err
	}
	for i := range phnum {
		h := phoff + i*phent
		if err := f.inside("segment", i, f.word(h+phOffset), f.word(h+phFilesz), h); err != nil {
			return err
		}
	}
	var strsize uint64 // the section name table's size
	if shstrndx != 0 {
		if shstrndx >= shnum {
			return elfErr(phentAt+8, "section name table index %d, but %d sections", shstrndx, shnum)
		}
		h := shoff + shstrndx*shent
		if t := f.u32(h + shType); t != shtStrtab {
			return elfErr(h, "section name table (section %d) of type %d, not SHT_STRTAB", shstrndx, t)
		}
		strsize = f.word(h + shSize)
	}
	for i := range shnum {
		h := shoff + i*shent
		t := f.u32(h + shType)
		if i == 0 && t == shtNull {
			continue // the null section: its fields may be the counts above
		}
		if name := f.u32(h); shstrndx != 0 && name != 0 && name >= strsize {
			return elfErr(h, "section %d: name at %d outside the %d-byte name table", i, name, strsize)
		}
		if t == shtNobits {
			continue // no contents in the file
		}
		if err := f.inside("section", i, f.word(h+shOffset), f.word(h+shSize), h); err != nil {
			return err
		}
	}
	return nil
}

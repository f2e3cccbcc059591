package loader

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// ErrBadFile is the reason, among a *LibraryError's attempts, for a
// candidate file that Open refused without handing it to the system loader:
// not a regular file, not an ELF shared library for this machine, or cut
// short. Loading such a file fails at best; at worst it blocks forever (a
// named pipe) or kills the process with SIGBUS (a truncated library, whose
// segments the system loader maps past the end of the file). The attempt's
// message says which.
var ErrBadFile = errors.New("loader: not a loadable shared library")

// badFileError is an ErrBadFile with its reason.
type badFileError struct {
	reason string
	// foreign: the file is an ELF file of another class, byte order or
	// machine, which the system loader skips when it searches a directory.
	foreign bool
}

func (e *badFileError) Error() string        { return ErrBadFile.Error() + ": " + e.reason }
func (e *badFileError) Is(target error) bool { return target == ErrBadFile }

func badFile(format string, args ...any) error {
	return &badFileError{reason: fmt.Sprintf(format, args...)}
}

func foreignFile(format string, args ...any) error {
	return &badFileError{reason: fmt.Sprintf(format, args...), foreign: true}
}

// checkFile reports whether the file at path is one the system loader can
// map safely: a regular file (symbolic links followed, as dlopen follows
// them) holding an ELF shared library of this program's class, byte order
// and machine, whose loadable segments all lie inside the file. It returns
// nil for such a file, the file system's error (such as ENOENT) when the
// file cannot be examined, and an ErrBadFile otherwise. It never blocks on
// a named pipe or a device, and it reads only the ELF header and the
// program headers. The file can still change between the check and dlopen:
// the check is against accidents (a half-copied library, a wrong path), not
// against someone racing the loader.
func checkFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fsErr(err)
	}
	if err := checkMode(fi.Mode()); err != nil {
		return err
	}
	f, err := openNoBlock(path)
	if err != nil {
		return fsErr(err)
	}
	defer f.Close()
	// The file may have been replaced since the Stat: look again at what
	// was opened.
	if fi, err = f.Stat(); err != nil {
		return fsErr(err)
	}
	if err := checkMode(fi.Mode()); err != nil {
		return err
	}
	return checkELF(f, fi.Size())
}

// fsErr is the reason of a file system error, without the path the
// attempt already names.
func fsErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func checkMode(m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	var what string
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "named pipe"
	case m.IsDir():
		what = "directory"
	case m&fs.ModeCharDevice != 0:
		what = "character device"
	case m&fs.ModeDevice != 0:
		what = "block device"
	case m&fs.ModeSocket != 0:
		what = "socket"
	default:
		what = "file of mode " + m.Type().String()
	}
	return badFile("%s, not a regular file", what)
}

// host describes the ELF files this program can load.
var host = struct {
	class   elf.Class
	data    elf.Data
	order   binary.ByteOrder
	machine elf.Machine // EM_NONE when not known: not checked
	name    string      // GOOS/GOARCH
}{
	class:   map[int]elf.Class{32: elf.ELFCLASS32, 64: elf.ELFCLASS64}[strconv.IntSize],
	data:    map[bool]elf.Data{true: elf.ELFDATA2LSB, false: elf.ELFDATA2MSB}[binary.NativeEndian.Uint16([]byte{1, 0}) == 1],
	order:   binary.NativeEndian,
	machine: hostMachines[runtime.GOARCH],
	name:    runtime.GOOS + "/" + runtime.GOARCH,
}

var hostMachines = map[string]elf.Machine{
	"386":      elf.EM_386,
	"amd64":    elf.EM_X86_64,
	"arm":      elf.EM_ARM,
	"arm64":    elf.EM_AARCH64,
	"loong64":  elf.EM_LOONGARCH,
	"mips":     elf.EM_MIPS,
	"mipsle":   elf.EM_MIPS,
	"mips64":   elf.EM_MIPS,
	"mips64le": elf.EM_MIPS,
	"ppc64":    elf.EM_PPC64,
	"ppc64le":  elf.EM_PPC64,
	"riscv64":  elf.EM_RISCV,
	"s390x":    elf.EM_S390,
}

// elfHeader is what checkELF needs of the ELF header, for either class.
type elfHeader struct {
	typ       elf.Type
	machine   elf.Machine
	phoff     uint64
	phentsize uint16
	phnum     uint16
}

// checkELF checks the ELF header and the program headers of a file of size
// bytes read through r (see checkFile). It reads no more than the headers,
// and never past size.
func checkELF(r io.ReaderAt, size int64) error {
	if size <= 0 {
		return badFile("empty file")
	}
	hdrSize, progSize := 64, 56 // sizes of elf.Header64, elf.Prog64
	if host.class == elf.ELFCLASS32 {
		hdrSize, progSize = 52, 32 // elf.Header32, elf.Prog32
	}
	buf := make([]byte, min(size, int64(hdrSize)))
	if _, err := r.ReadAt(buf, 0); err != nil {
		return fmt.Errorf("reading the ELF header: %w", err)
	}
	if !bytes.HasPrefix(buf, []byte(elf.ELFMAG)[:min(len(buf), len(elf.ELFMAG))]) {
		return badFile("not an ELF file")
	}
	if len(buf) <= elf.EI_VERSION {
		return badFile("too short for an ELF header (%d bytes)", size)
	}
	if c := elf.Class(buf[elf.EI_CLASS]); c != host.class {
		return foreignFile("%v file; this program (%s) loads %v", c, host.name, host.class)
	}
	if d := elf.Data(buf[elf.EI_DATA]); d != host.data {
		return foreignFile("%v file; this program (%s) loads %v", d, host.name, host.data)
	}
	if v := elf.Version(buf[elf.EI_VERSION]); v != elf.EV_CURRENT {
		return badFile("ELF version %d; this program loads %d", v, elf.EV_CURRENT)
	}
	if len(buf) < hdrSize {
		return badFile("too short for an ELF header (%d bytes)", size)
	}
	h, err := decodeHeader(buf)
	if err != nil {
		return err
	}
	if h.typ != elf.ET_DYN {
		return badFile("ELF type %v, not a shared library (%v)", h.typ, elf.ET_DYN)
	}
	if host.machine != elf.EM_NONE && h.machine != host.machine {
		return foreignFile("machine %v; this program (%s) loads %v", h.machine, host.name, host.machine)
	}
	if int(h.phentsize) != progSize {
		return badFile("program header size %d; %v files have %d", h.phentsize, host.class, progSize)
	}
	if h.phnum == 0 {
		return badFile("no program headers")
	}
	tableLen := uint64(h.phnum) * uint64(progSize) // at most 65535*56: no overflow
	if h.phoff > uint64(size) || uint64(size)-h.phoff < tableLen {
		return badFile("truncated: the program headers (%d bytes at file offset %#x) extend past the end of the file (%d bytes)",
			tableLen, h.phoff, size)
	}
	table := make([]byte, tableLen)
	if _, err := r.ReadAt(table, int64(h.phoff)); err != nil {
		return fmt.Errorf("reading the program headers: %w", err)
	}
	loads := 0
	for i := range int(h.phnum) {
		typ, off, filesz := decodeProg(table[i*progSize : (i+1)*progSize])
		if typ != elf.PT_LOAD {
			continue
		}
		loads++
		if off > uint64(size) || uint64(size)-off < filesz {
			if off+filesz < off { // overflows
				return badFile("PT_LOAD segment %d: file offset %#x plus size %#x overflows", i, off, filesz)
			}
			return badFile("truncated: PT_LOAD segment %d at file offset [%#x, %#x) extends past the end of the file (%d bytes)",
				i, off, off+filesz, size)
		}
	}
	if loads == 0 {
		return badFile("no PT_LOAD segment")
	}
	return nil
}

func decodeHeader(buf []byte) (elfHeader, error) {
	r := bytes.NewReader(buf)
	if host.class == elf.ELFCLASS32 {
		var h elf.Header32
		if err := binary.Read(r, host.order, &h); err != nil {
			return elfHeader{}, err
		}
		return elfHeader{elf.Type(h.Type), elf.Machine(h.Machine), uint64(h.Phoff), h.Phentsize, h.Phnum}, nil
	}
	var h elf.Header64
	if err := binary.Read(r, host.order, &h); err != nil {
		return elfHeader{}, err
	}
	return elfHeader{elf.Type(h.Type), elf.Machine(h.Machine), h.Phoff, h.Phentsize, h.Phnum}, nil
}

// decodeProg returns the type, file offset and file size of the program
// header in b, of the host's class and byte order.
func decodeProg(b []byte) (typ elf.ProgType, off, filesz uint64) {
	o := host.order
	if host.class == elf.ELFCLASS32 {
		// elf.Prog32: Type, Off, Vaddr, Paddr, Filesz, ...
		return elf.ProgType(o.Uint32(b)), uint64(o.Uint32(b[4:])), uint64(o.Uint32(b[16:]))
	}
	// elf.Prog64: Type, Flags, Off, Vaddr, Paddr, Filesz, ...
	return elf.ProgType(o.Uint32(b)), o.Uint64(b[8:]), o.Uint64(b[32:])
}

// libraryPathEnv is the system loader's search path, searched before its
// cache and the system directories.
const libraryPathEnv = "LD_LIBRARY_PATH"

// checkSoname checks the file the system loader would open for a bare name
// (one without a slash), where that is cheap to know: the first file of that
// name in a directory of LD_LIBRARY_PATH, skipping those of another class
// or machine as the loader does. Files it would find in its cache or the
// system directories are not checked. The loader reads LD_LIBRARY_PATH
// when the program starts; this reads it now.
func checkSoname(name string) error {
	search := os.Getenv(libraryPathEnv)
	if search == "" {
		return nil
	}
	for _, dir := range strings.Split(strings.ReplaceAll(search, ";", ":"), ":") {
		if strings.Contains(dir, "$") {
			continue // $ORIGIN, $LIB, $PLATFORM: expanded by the loader, not here
		}
		if dir == "" {
			dir = "." // an empty element is the working directory
		}
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		err := checkFile(p)
		var bad *badFileError
		switch {
		case err == nil:
			return nil
		case !errors.As(err, &bad):
			continue // it cannot be opened: the loader goes on too
		case bad.foreign:
			continue
		}
		return &badFileError{reason: p + " (from " + libraryPathEnv + "): " + bad.reason}
	}
	return nil
}

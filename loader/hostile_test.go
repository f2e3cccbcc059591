//go:build linux

package loader_test

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/internal/dl"
	"github.com/nocgo/cuda/loader"
)

// openWithin calls loader.Open(k) and fails the test when it has not
// returned within a few seconds, instead of hanging. unblock, when not
// nil, runs on a timeout to let the stuck call go.
func openWithin(t *testing.T, k loader.Kind, unblock func()) (*loader.Library, error) {
	t.Helper()
	type result struct {
		lib *loader.Library
		err error
	}
	ch := make(chan result, 1)
	go func() {
		lib, err := loader.Open(k)
		ch <- result{lib, err}
	}()
	select {
	case r := <-ch:
		return r.lib, r.err
	case <-time.After(10 * time.Second):
		if unblock != nil {
			unblock()
		}
		t.Fatalf("loader.Open(%s) did not return within 10s", k)
		return nil, nil
	}
}

// systemLibc returns the path of the C library this process runs with.
func systemLibc(t *testing.T) string {
	t.Helper()
	requireDL(t)
	h, err := dl.Open("libc.so.6")
	require.NoError(t, err)
	p, ok := dl.Path(h)
	if !ok || !filepath.IsAbs(p) {
		t.Skip("the system loader does not tell libc's path")
	}
	return p
}

// hostMachine is the ELF machine of this program, and otherMachine one it
// cannot load.
func hostMachine() (host, other elf.Machine) {
	if runtime.GOARCH == "arm64" {
		return elf.EM_AARCH64, elf.EM_X86_64
	}
	return elf.EM_X86_64, elf.EM_AARCH64
}

// craftELF64 returns a little-endian ELF64 file of the given type and
// machine with one PT_LOAD segment covering [0, filesz) of the file, padded
// to size bytes.
func craftELF64(typ elf.Type, machine elf.Machine, filesz uint64, size int) []byte {
	var b []byte
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	b = append(b, ident[:]...)
	le := binary.LittleEndian
	b = le.AppendUint16(b, uint16(typ))
	b = le.AppendUint16(b, uint16(machine))
	b = le.AppendUint32(b, uint32(elf.EV_CURRENT))
	b = le.AppendUint64(b, 0)  // entry
	b = le.AppendUint64(b, 64) // phoff
	b = le.AppendUint64(b, 0)  // shoff
	b = le.AppendUint32(b, 0)  // flags
	b = le.AppendUint16(b, 64) // ehsize
	b = le.AppendUint16(b, 56) // phentsize
	b = le.AppendUint16(b, 1)  // phnum
	b = le.AppendUint16(b, 64) // shentsize
	b = le.AppendUint16(b, 0)  // shnum
	b = le.AppendUint16(b, 0)  // shstrndx
	b = le.AppendUint32(b, uint32(elf.PT_LOAD))
	b = le.AppendUint32(b, uint32(elf.PF_R))
	b = le.AppendUint64(b, 0)      // offset
	b = le.AppendUint64(b, 0)      // vaddr
	b = le.AppendUint64(b, 0)      // paddr
	b = le.AppendUint64(b, filesz) // filesz
	b = le.AppendUint64(b, filesz) // memsz
	b = le.AppendUint64(b, 0x1000) // align
	for len(b) < size {
		b = append(b, 0)
	}
	return b
}

// craftELF32 returns the header of a 32-bit ELF file for i386.
func craftELF32() []byte {
	b := []byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS32), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	for len(b) < elf.EI_NIDENT {
		b = append(b, 0)
	}
	le := binary.LittleEndian
	b = le.AppendUint16(b, uint16(elf.ET_DYN))
	b = le.AppendUint16(b, uint16(elf.EM_386))
	b = le.AppendUint32(b, uint32(elf.EV_CURRENT))
	for len(b) < 52+32 {
		b = append(b, 0)
	}
	return b
}

// TestRefusedLibraryFiles: a library path that is not a complete shared
// library for this machine is refused before dlopen, quickly, with the
// reason. A truncated library made dlopen die of SIGBUS (glibc maps
// segments past the end of the file), and a FIFO made it block forever.
func TestRefusedLibraryFiles(t *testing.T) {
	host, other := hostMachine()
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string) // creates the file at path
		why  string                          // in the error
		also string                          // in the error, when not empty
	}{
		{"truncated library", func(t *testing.T, path string) {
			data, err := os.ReadFile(systemLibc(t))
			require.NoError(t, err)
			require.Greater(t, len(data), 4096)
			require.NoError(t, os.WriteFile(path, data[:4096], 0o755))
		}, "truncated: PT_LOAD segment ", "extends past the end of the file (4096 bytes)"},
		{"truncated crafted", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, craftELF64(elf.ET_DYN, host, 0x10000, 0x1000), 0o755))
		}, "truncated: PT_LOAD segment 0 at file offset [0x0, 0x10000) extends past the end of the file (4096 bytes)", ""},
		{"fifo", func(t *testing.T, path string) {
			require.NoError(t, syscall.Mkfifo(path, 0o644))
		}, "named pipe, not a regular file", ""},
		{"directory", func(t *testing.T, path string) {
			require.NoError(t, os.Mkdir(path, 0o755))
		}, "directory, not a regular file", ""},
		{"device", func(t *testing.T, path string) {
			require.NoError(t, os.Symlink("/dev/zero", path))
		}, "character device, not a regular file", ""},
		{"empty", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, nil, 0o755))
		}, "empty file", ""},
		{"text", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho this is not a library\n"), 0o755))
		}, "not an ELF file", ""},
		{"short", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("\x7fELF\x02\x01"), 0o755))
		}, "too short for an ELF header", ""},
		{"32-bit", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, craftELF32(), 0o755))
		}, "ELFCLASS32 file; this program (linux/" + runtime.GOARCH + ") loads ELFCLASS64", ""},
		{"other machine", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, craftELF64(elf.ET_DYN, other, 0x1000, 0x1000), 0o755))
		}, "machine " + other.String() + "; this program (linux/" + runtime.GOARCH + ") loads " + host.String(), ""},
		{"executable", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, craftELF64(elf.ET_EXEC, host, 0x1000, 0x1000), 0o755))
		}, "ELF type ET_EXEC, not a shared library", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []loader.Kind{loader.CUDA, loader.NVRTC} {
				path := filepath.Join(t.TempDir(), "libhostile.so.1")
				tc.make(t, path)
				t.Setenv(k.EnvVar(), path)
				lib, err := openWithin(t, k, func() {
					// A reader stuck opening a FIFO goes on once a writer
					// opens it.
					if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						w.Close()
					}
				})
				require.Error(t, err, k)
				assert.Nil(t, lib)
				var lerr *loader.LibraryError
				require.ErrorAs(t, err, &lerr)
				require.Len(t, lerr.Tried, 1)
				assert.ErrorIs(t, err, loader.ErrBadFile)
				assert.Contains(t, err.Error(), path+": loader: not a loadable shared library: "+tc.why)
				assert.Contains(t, err.Error(), tc.also)
				assert.Contains(t, err.Error(), k.EnvVar())
			}
		})
	}
}

// TestDirectoryCandidateRefused: the files found in the search directories
// ($CUDA_HOME/lib64 here) get the same check as an explicit path, and the
// search goes on past a refused one.
func TestDirectoryCandidateRefused(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	lib64 := mkdir(t, home, "lib64")
	t.Setenv("CUDA_HOME", home)
	fifo := filepath.Join(lib64, "libnvrtc.so.13")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	host, _ := hostMachine()
	truncated := filepath.Join(lib64, "libnvrtc.so.12")
	require.NoError(t, os.WriteFile(truncated, craftELF64(elf.ET_DYN, host, 0x10000, 0x1000), 0o755))

	lib, err := openWithin(t, loader.NVRTC, func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	if err == nil {
		t.Skipf("this machine has libnvrtc (%s)", lib.Path())
	}
	var lerr *loader.LibraryError
	require.ErrorAs(t, err, &lerr)
	assert.Equal(t, loader.Candidates(loader.NVRTC), lerr.Paths(), "every candidate was tried")
	assert.Contains(t, err.Error(), fifo+": loader: not a loadable shared library: named pipe, not a regular file")
	assert.Contains(t, err.Error(), truncated+": loader: not a loadable shared library: truncated")
	assert.Contains(t, err.Error(), filepath.Join(lib64, "libnvrtc.so")+": no such file or directory")
}

// TestRelativePathChecked: a name with a slash is a path to dlopen, relative
// to the working directory, and is checked like an absolute one.
func TestRelativePathChecked(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("lib", 0o755))
	require.NoError(t, syscall.Mkfifo("lib/libcuda.so.1", 0o644))
	t.Setenv("NOCGO_CUDA_LIBCUDA", "lib/libcuda.so.1")
	_, err := openWithin(t, loader.CUDA, func() {
		if w, err := os.OpenFile(filepath.Join(dir, "lib/libcuda.so.1"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, loader.ErrBadFile)
	assert.Contains(t, err.Error(), "lib/libcuda.so.1: loader: not a loadable shared library: named pipe, not a regular file")
}

// TestSonameThroughLibraryPath: a bare name is searched by the system
// loader, LD_LIBRARY_PATH first; the file it would open there is checked
// too. One of another class is skipped, as the system loader skips it.
func TestSonameThroughLibraryPath(t *testing.T) {
	requireDL(t)
	host, _ := hostMachine()
	skipped, bad := t.TempDir(), t.TempDir()
	const name = "libnocgo-hostile.so.1"
	require.NoError(t, os.WriteFile(filepath.Join(skipped, name), craftELF32(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, name), craftELF64(elf.ET_DYN, host, 0x10000, 0x1000), 0o755))
	t.Setenv("LD_LIBRARY_PATH", "/nonexistent:"+skipped+":"+bad)
	t.Setenv("NOCGO_CUDA_LIBCUDA", name)

	_, err := openWithin(t, loader.CUDA, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, loader.ErrBadFile)
	assert.Contains(t, err.Error(), name+": loader: not a loadable shared library: "+filepath.Join(bad, name)+
		" (from LD_LIBRARY_PATH): truncated")

	// A FIFO there is refused; so is a directory.
	require.NoError(t, os.Remove(filepath.Join(bad, name)))
	require.NoError(t, syscall.Mkfifo(filepath.Join(bad, name), 0o644))
	_, err = openWithin(t, loader.CUDA, func() {
		if w, err := os.OpenFile(filepath.Join(bad, name), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	assert.ErrorIs(t, err, loader.ErrBadFile)
	assert.Contains(t, err.Error(), "named pipe, not a regular file")

	// With nothing there, dlopen searches and says so itself.
	t.Setenv("LD_LIBRARY_PATH", skipped)
	_, err = openWithin(t, loader.CUDA, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, loader.ErrBadFile)
}

// TestGoodLibraryPassesTheCheck: the real C library, given by its path,
// passes the check and loads.
func TestGoodLibraryPassesTheCheck(t *testing.T) {
	libc := systemLibc(t)
	t.Setenv("NOCGO_CUDA_LIBCUDA", libc)
	lib, err := openWithin(t, loader.CUDA, nil)
	require.NoError(t, err)
	assert.Equal(t, libc, lib.Name())
	_, err = lib.Symbol("getpid")
	assert.NoError(t, err)

	// A symbolic link to it is followed, as dlopen follows it.
	link := filepath.Join(t.TempDir(), "libcuda.so.1")
	require.NoError(t, os.Symlink(libc, link))
	t.Setenv("NOCGO_CUDA_LIBCUDA", link)
	_, err = openWithin(t, loader.CUDA, nil)
	assert.NoError(t, err)
}

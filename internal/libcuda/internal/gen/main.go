// Command gen writes, from one declaration table (entrypoints.txt, in
// package libcuda's directory), the code of the entry points that the real
// backend and the fake share:
//
//   - package abi (zz_generated.go there): a constant for every entry
//     point's name, with its library and the CUDA version that introduced
//     it (the facts the fake reads: its entry-point list, the versions
//     missing from an older driver);
//   - package libcuda: the sym enum and its resolution table
//     (zz_generated_syms.go), and one method per mechanical entry point
//     (zz_generated.go), of backend.API or of an optional interface of
//     package backend;
//   - package libnvrtc: the nvsym enum of the libnvrtc entry points and
//     their table (zz_generated_syms.go there).
//
// The Go signature of each method is read from the interfaces of package
// backend (driver/backend); the table gives the C signature and the
// resolution details (since, cap, dlsym, direct, lean, strict). Entry
// points marked hand in the table get only their sym entry; their methods
// are written by hand.
//
// Run it from internal/libcuda, through go generate:
//
//	go generate ./internal/libcuda
//
// The package's test (go test ./internal/libcuda/internal/gen) fails when
// the checked-in files differ from what the generator writes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	table := flag.String("table", "entrypoints.txt", "the declaration table")
	backendDir := flag.String("backend", "../../driver/backend", "the directory of package backend")
	dir := flag.String("dir", ".", "the directory of package libcuda, to write its generated files to")
	abiDir := flag.String("abi", "../abi", "the directory of package abi, to write its generated file to")
	nvrtcDir := flag.String("nvrtc", "../libnvrtc", "the directory of package libnvrtc, to write its generated file to")
	flag.Parse()
	if err := run(*table, *backendDir, *dir, *abiDir, *nvrtcDir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// Output file names: two in package libcuda, one in package abi, one
// (symsFile) in package libnvrtc.
const (
	symsFile  = "zz_generated_syms.go"
	callsFile = "zz_generated.go"
	abiFile   = "zz_generated.go"
)

// outputs are the generated files' contents.
type outputs struct {
	syms, calls []byte // package libcuda's
	abi         []byte // package abi's
	nvsyms      []byte // package libnvrtc's
}

func run(table, backendDir, dir, abiDir, nvrtcDir string) error {
	out, err := generateFiles(table, backendDir)
	if err != nil {
		return err
	}
	for path, src := range map[string][]byte{
		filepath.Join(dir, symsFile):      out.syms,
		filepath.Join(dir, callsFile):     out.calls,
		filepath.Join(abiDir, abiFile):    out.abi,
		filepath.Join(nvrtcDir, symsFile): out.nvsyms,
	} {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generateFiles reads the table and package backend and returns the
// generated files.
func generateFiles(table, backendDir string) (*outputs, error) {
	tsrc, err := os.ReadFile(table)
	if err != nil {
		return nil, err
	}
	entries, err := parseTable(filepath.Base(table), tsrc)
	if err != nil {
		return nil, err
	}
	files, err := readBackend(backendDir)
	if err != nil {
		return nil, err
	}
	methods, order, err := parseBackend(files)
	if err != nil {
		return nil, err
	}
	return generate(entries, methods, order)
}

// readBackend reads the Go files of package backend but its tests, in
// name order.
func readBackend(dir string) ([]backendFile, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var files []backendFile
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		files = append(files, backendFile{filepath.Base(n), src})
	}
	if files == nil {
		return nil, fmt.Errorf("%s: no Go files of package backend", dir)
	}
	return files, nil
}

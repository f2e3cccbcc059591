// Command gen writes the raw layer of package libcuda from one declaration
// table, entrypoints.txt: the sym enum, the syms table and Since
// (zz_generated_syms.go), and one backend.API method per mechanical entry
// point (zz_generated.go). The Go signature of each method is read from
// driver/backend/api.go; the table gives the C signature and the resolution
// details (since, cap, dlsym, direct, lean). Entry points marked hand in the
// table get only their sym entry; their methods are written by hand.
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
)

func main() {
	table := flag.String("table", "entrypoints.txt", "the declaration table")
	api := flag.String("api", "../../driver/backend/api.go", "the file declaring backend.API")
	dir := flag.String("dir", ".", "the directory to write the generated files to")
	flag.Parse()
	if err := run(*table, *api, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// Output file names, in the package directory.
const (
	symsFile  = "zz_generated_syms.go"
	callsFile = "zz_generated.go"
)

func run(table, api, dir string) error {
	files, err := generateFiles(table, api)
	if err != nil {
		return err
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generateFiles reads the table and the API and returns the generated
// files' contents by name.
func generateFiles(table, api string) (map[string][]byte, error) {
	tsrc, err := os.ReadFile(table)
	if err != nil {
		return nil, err
	}
	asrc, err := os.ReadFile(api)
	if err != nil {
		return nil, err
	}
	entries, err := parseTable(filepath.Base(table), tsrc)
	if err != nil {
		return nil, err
	}
	methods, order, err := parseAPI(api, asrc)
	if err != nil {
		return nil, err
	}
	syms, calls, err := generate(entries, methods, order)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{symsFile: syms, callsFile: calls}, nil
}

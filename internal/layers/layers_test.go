package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	root   = "../.."
	module = "github.com/nocgo/cuda"
)

// layer is one row of the architecture document's table.
type layer struct {
	n        int
	patterns []string // "driver" or "fake/..."
}

// readLayers parses the rows "| N | `pkg`, `pkg/...` | ... |".
func readLayers(t *testing.T) []layer {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	require.NoError(t, err)
	row := regexp.MustCompile(`(?m)^\| (\d+) \| ([^|]*) \|`)
	tick := regexp.MustCompile("`([^`]+)`")
	var out []layer
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		n, _ := strconv.Atoi(m[1])
		l := layer{n: n}
		for _, p := range tick.FindAllStringSubmatch(m[2], -1) {
			l.patterns = append(l.patterns, p[1])
		}
		out = append(out, l)
	}
	require.NotEmpty(t, out, "no layer table in docs/ARCHITECTURE.md")
	return out
}

// layerOf returns the layer of a package (its path inside the module), the
// most specific pattern winning; 0 when no pattern covers it.
func layerOf(layers []layer, pkg string) int {
	best, bestLen := 0, -1
	for _, l := range layers {
		for _, p := range l.patterns {
			if match(p, pkg) && len(p) > bestLen {
				best, bestLen = l.n, len(p)
			}
		}
	}
	return best
}

func match(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// imports returns each package of the module (path inside it) with the
// packages its non-test files import: the module's by their path inside it,
// others as "std:" and their import path.
func imports(t *testing.T) map[string]map[string]bool {
	pkgs := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if pkgs[rel] == nil {
			pkgs[rel] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if q, ok := strings.CutPrefix(p, module+"/"); ok {
				pkgs[rel][q] = true
			} else {
				pkgs[rel]["std:"+p] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return pkgs
}

func TestFoldersFollowImports(t *testing.T) {
	layers := readLayers(t)
	pkgs := imports(t)
	require.Greater(t, len(pkgs), 10, "the walk found the module's packages")
	for pkg, deps := range pkgs {
		from := layerOf(layers, pkg)
		if !assert.NotZero(t, from, "%s is on no layer of docs/ARCHITECTURE.md", pkg) {
			continue
		}
		for dep := range deps {
			if strings.HasPrefix(dep, "std:") {
				continue
			}
			to := layerOf(layers, dep)
			assert.LessOrEqual(t, to, from, "%s (layer %d) imports %s (layer %d), a higher layer", pkg, from, dep, to)
			assert.False(t, strings.HasPrefix(pkg, dep+"/"), "%s imports %s, a folder above its own", pkg, dep)
		}
	}
}

// The conformance suite knows no implementation, and the fake neither the
// real backend nor package testing: checked over every dependency, not only
// direct imports.
func TestWhatPartsKnow(t *testing.T) {
	pkgs := imports(t)
	deps := func(pkg string) map[string]bool {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			for d := range pkgs[p] {
				if !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
		walk(pkg)
		return seen
	}
	suite := 0
	for pkg := range pkgs {
		if !match("conformance/...", pkg) {
			continue
		}
		suite++
		for d := range deps(pkg) {
			assert.False(t, d == "fake" || strings.HasPrefix(d, "fake/") || d == "internal/libcuda" || d == "internal/libnccl",
				"%s, of the conformance suite, depends on %s, an implementation", pkg, d)
		}
	}
	assert.Greater(t, suite, 1, "the walk found the conformance suite's packages")
	for d := range deps("fake") {
		assert.NotEqual(t, "internal/libcuda", d, "the fake depends on the real backend")
		assert.NotEqual(t, "std:testing", d, "the fake depends on package testing")
	}
}

// TestLayerTable catches a layer table that lost a row: the ones this
// repository has always had must be there.
func TestLayerTable(t *testing.T) {
	layers := readLayers(t)
	for _, pkg := range []string{"driver/backend", "driver", "stream", "memory", "module", "graph", "nccl", "fake", "cudatest", "cmd/cudainfo"} {
		assert.NotZero(t, layerOf(layers, pkg), pkg)
	}
	assert.Less(t, layerOf(layers, "driver/backend"), layerOf(layers, "driver"))
	assert.Less(t, layerOf(layers, "fake/internal/ptxexec"), layerOf(layers, "conformance")+1)
}

// The real backend (internal/libcuda, internal/libnccl) is opened by gpu
// alone: every other package reaches it through gpu (cudatest.RealBackend,
// cmd/cudainfo). NVIDIA's compiler (internal/libnvrtc) is opened by gpu and
// by the fake, which compiles real CUDA C with it.
func TestOnlyGPUOpensTheRealBackend(t *testing.T) {
	for pkg, deps := range imports(t) {
		if pkg == "gpu" || match("internal/...", pkg) {
			continue
		}
		for d := range deps {
			assert.False(t, d == "internal/libcuda" || d == "internal/libnccl",
				"%s imports %s: only gpu opens the real backend", pkg, d)
			if d == "internal/libnvrtc" {
				assert.True(t, match("fake/...", pkg), "%s imports %s: only gpu and the fake open NVIDIA's compiler", pkg, d)
			}
		}
	}
}

// part is one row of the architecture document's table of the fake's
// inside: the core, a room (a subsystem owning its state and its lock), or
// a shared package (the rooms' common vocabulary: arithmetic, a view).
type part struct {
	kind    string // "core", "room" or "shared"
	pattern string
}

// readParts parses the rows "| room | `fake/internal/x` | ... |".
func readParts(t *testing.T) []part {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| (core|room|shared) \\| `([^`]+)` \\|")
	var out []part
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		out = append(out, part{kind: m[1], pattern: m[2]})
	}
	require.NotEmpty(t, out, "no table of the fake's parts in docs/ARCHITECTURE.md")
	return out
}

// partOf returns the row covering pkg, the most specific pattern winning.
func partOf(parts []part, pkg string) (part, bool) {
	var best part
	found := false
	for _, p := range parts {
		if match(p.pattern, pkg) && (!found || len(p.pattern) > len(best.pattern)) {
			best, found = p, true
		}
	}
	return best, found
}

// Inside the fake, each room reaches the core only through the narrow
// interface it is given: a room imports neither package fake nor another
// room (its own subpackages are its own), only shared packages; a shared
// package imports no room. Every package under fake/internal is on the
// table.
func TestRoomsOfTheFake(t *testing.T) {
	parts := readParts(t)
	core, ok := partOf(parts, "fake")
	require.True(t, ok && core.kind == "core", "the table names fake as the core")
	rooms := 0
	for pkg, deps := range imports(t) {
		if !match("fake/internal/...", pkg) {
			continue
		}
		from, ok := partOf(parts, pkg)
		if !assert.True(t, ok && from.kind != "core", "%s is on no row of the fake's parts in docs/ARCHITECTURE.md", pkg) {
			continue
		}
		if from.kind == "room" {
			rooms++
		}
		for dep := range deps {
			if !match("fake/...", dep) {
				continue
			}
			assert.NotEqual(t, "fake", dep, "%s imports the fake's core: a part reaches it only through its interface", pkg)
			to, ok := partOf(parts, dep)
			if !ok || to.pattern == from.pattern {
				continue
			}
			assert.Equal(t, "shared", to.kind, "%s (a %s) imports %s, a room of its own", pkg, from.kind, dep)
		}
	}
	assert.GreaterOrEqual(t, rooms, 5, "the walk found the fake's rooms")
}

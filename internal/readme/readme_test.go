package readme

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository root, from this package's directory.
const root = "../.."

// goBlocks returns the ```go blocks of a Markdown text.
func goBlocks(md string) []string {
	re := regexp.MustCompile("(?ms)^```go\n(.*?)^```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// normalize returns the lines of src with their indentation and trailing
// spaces removed, leaving out blank lines and whole-line comments (so that
// the README may show code without the doc comments around it).
func normalize(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "//") {
			out = append(out, l)
		}
	}
	return out
}

// contains reports whether want is a contiguous run of have.
func contains(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		match := true
		for j := range want {
			if have[i+j] != want[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// programs are the folders of the module whose non-test files the README
// may show: programs, which go build and go vet compile.
var programs = []string{"cmd/quickstart"}

// testFiles returns the normalized lines of every _test.go file of the
// module, and of every file of the programs, by path.
func testFiles(t *testing.T) map[string][]string {
	t.Helper()
	files := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, "_test.go") || isProgram(path)) {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[path] = normalize(string(src))
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

// isProgram reports whether path is a Go file of one of the programs.
func isProgram(path string) bool {
	for _, p := range programs {
		if filepath.Dir(path) == filepath.Join(root, p) && strings.HasSuffix(path, ".go") {
			return true
		}
	}
	return false
}

// Every Go block of the README is code that compiles: it is found, line for
// line, in a test file (an Example function, mostly, which also runs and
// checks its output) or in the quick-start program (whose test runs it).
func TestREADMEGoBlocksAreTested(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	blocks := goBlocks(string(md))
	require.NotEmpty(t, blocks, "the README has Go blocks")
	files := testFiles(t)
	for i, b := range blocks {
		want := normalize(b)
		found := ""
		for path, have := range files {
			if contains(have, want) {
				found = path
				break
			}
		}
		assert.NotEmpty(t, found, "README Go block %d is in no _test.go file; copy it from an Example:\n%s", i+1, b)
	}
}

func TestHelpers(t *testing.T) {
	assert.Equal(t, []string{"a := 1\n", "b\n"}, goBlocks("x\n```go\na := 1\n```\n```sh\nz\n```\n```go\nb\n```\n"))
	assert.Equal(t, []string{"a", "b c // d"}, normalize("\t a \n\n  // c\n  b c // d  \n"))
	assert.True(t, contains([]string{"x", "a", "b"}, []string{"a", "b"}))
	assert.False(t, contains([]string{"a", "x", "b"}, []string{"a", "b"}))
	assert.False(t, contains([]string{"a"}, []string{"a", "b"}))
}

// The quick start builds a program with no fake driver in it: the fake is
// imported by its test only.
func TestQuickStartLinksNoFake(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the program's dependencies")
	}
	for _, p := range programs {
		cmd := exec.Command(gobin, "list", "-deps", "./"+p)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.Output()
		require.NoError(t, err, "go list -deps ./%s", p)
		deps := strings.Fields(string(out))
		assert.Contains(t, deps, "github.com/nocgo/cuda/gpu", "%s runs on the GPU", p)
		for _, d := range deps {
			assert.False(t, d == "github.com/nocgo/cuda/fake" || strings.HasPrefix(d, "github.com/nocgo/cuda/fake/"),
				"%s links %s: the fake belongs in its tests", p, d)
		}
	}
}

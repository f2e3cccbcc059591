package readme

import (
	"io/fs"
	"os"
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

// testFiles returns the normalized lines of every _test.go file of the
// module, by path.
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
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") {
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

// Every Go block of the README is code that compiles: it is found, line for
// line, in a test file (an Example function, mostly, which also runs and
// checks its output).
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

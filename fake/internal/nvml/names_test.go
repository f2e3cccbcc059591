package nvml

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpsAreTheBindingsNames: every entry point name the fake NVML answers
// under (what fake.FailNVML names) is one of the real binding's, without its
// version suffix, and every one of the binding's is answered by the fake.
func TestOpsAreTheBindingsNames(t *testing.T) {
	table, err := os.ReadFile("../../../internal/libnvml/entrypoints.txt")
	require.NoError(t, err)
	real := map[string]bool{}
	for _, line := range strings.Split(string(table), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		name, _, _ := strings.Cut(f[1], "(")
		name = strings.TrimSuffix(strings.TrimSuffix(name, "_v2"), "_v3")
		real[name] = true
	}
	require.NotEmpty(t, real)

	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	quoted := regexp.MustCompile(`"(nvml[A-Za-z0-9_]+)"`)
	fake := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "ops.go" {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range quoted.FindAllStringSubmatch(string(src), -1) {
			fake[m[1]] = true
		}
	}
	for op := range fake {
		assert.True(t, real[op], "the fake answers as %s, which the binding does not call (or a versioned name)", op)
	}
	for op := range real {
		assert.True(t, fake[op], "the fake does not answer %s", op)
	}
	assert.Equal(t, slices.Sorted(maps.Keys(fake)), Ops(), "Ops lists what the sources answer")
}

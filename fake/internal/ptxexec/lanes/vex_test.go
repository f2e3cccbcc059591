package lanes

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnlyVEX fails if lanes_amd64.s uses a legacy SSE instruction on an
// X or Y register (see the file's comment: mixed with AVX2 code it costs
// Intel cores a state transition at every call).
func TestOnlyVEX(t *testing.T) {
	src, err := os.ReadFile("lanes_amd64.s")
	require.NoError(t, err)
	insn := regexp.MustCompile(`^\s*([A-Z][A-Z0-9]*)\s+(.*)$`)
	vreg := regexp.MustCompile(`\b[XY]\d+\b`)
	n := 0
	for i, line := range strings.Split(string(src), "\n") {
		line, _, _ = strings.Cut(line, "//")
		line = strings.TrimSuffix(strings.TrimSpace(line), `\`)
		m := insn.FindStringSubmatch(line)
		if m == nil || !vreg.MatchString(m[2]) {
			continue
		}
		n++
		assert.True(t, strings.HasPrefix(m[1], "V"), "line %d: %s is not a VEX instruction", i+1, m[1])
	}
	assert.Greater(t, n, 100, "the instructions on X and Y registers were read")
}

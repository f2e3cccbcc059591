package module

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileEntry is an entry file whose header (magic, checksum, length) is
// right for payload, as a writer of the user's own cache could make it.
func hostileEntry(payload string) []byte {
	sum := sha256.Sum256([]byte(payload))
	buf := append([]byte(nil), cacheMagic...)
	buf = append(buf, sum[:]...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(payload)))
	return append(buf, payload...)
}

// Reading an entry allocates at most 20 times the entry file's size in
// all, whatever its payload: the memory is bounded by the input, as for
// every parser of this module.
func TestCacheEntryMemoryBoundedByInput(t *testing.T) {
	var lowered strings.Builder
	lowered.WriteString(`{"key":"` + fuzzKey + `","arch":"sm_90","kind":1,"image":"AA==","lowered":{`)
	for i := range 100000 {
		if i > 0 {
			lowered.WriteByte(',')
		}
		fmt.Fprintf(&lowered, `"%x":""`, i)
	}
	lowered.WriteString("}}")
	payloads := map[string]string{
		"many lowered names":   lowered.String(),
		"deep nesting":         `{"key":"` + fuzzKey + `","x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}",
		"nesting at the limit": `{"key":"` + fuzzKey + `","x":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "}",
		"many small arrays":    `{"key":"` + fuzzKey + `","x":[` + strings.Repeat("[],", 100000) + "[]]}",
		"many small objects":   `{"key":"` + fuzzKey + `","x":[` + strings.Repeat("{},", 100000) + "{}]}",
		"escapes in the log":   `{"key":"` + fuzzKey + `","image":"AA==","log":"` + strings.Repeat(`\u0041`, 100000) + `"}`,
		"a large image":        `{"key":"` + fuzzKey + `","image":"` + strings.Repeat("AAAA", 250000) + `"}`,
		"many numbers":         `{"key":"` + fuzzKey + `","x":[` + strings.Repeat("1,", 200000) + "1]}",
	}
	c := cache{dir: t.TempDir(), max: -1}
	require.NoError(t, os.Chmod(c.dir, 0o700))
	for name, payload := range payloads {
		t.Run(name, func(t *testing.T) {
			data := hostileEntry(payload)
			require.NoError(t, os.WriteFile(c.path(fuzzKey), data, 0o600))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			c.get(fuzzKey)
			runtime.ReadMemStats(&after)
			n := after.TotalAlloc - before.TotalAlloc
			assert.LessOrEqual(t, n, 20*uint64(len(data)), "%d bytes allocated for an entry of %d bytes (%.1f×)", n, len(data), float64(n)/float64(len(data)))
			t.Logf("%.1f×", float64(n)/float64(len(data)))
		})
	}
}

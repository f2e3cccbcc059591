package module

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fuzzKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fuzzEntry is a good entry for fuzzKey.
func fuzzEntry(t testing.TB) []byte {
	b, err := encodeEntry(fuzzKey, &compiled{Arch: "sm_90", Kind: CUBIN, Image: []byte("\x7fELF"), PTX: []byte(".version 8.0"),
		Log: "ok", Lowered: map[string]string{"f<int>": "_Z1fIiEvv"}})
	require.NoError(t, err)
	return b
}

// FuzzCacheEntry: decoding an entry, from any bytes, never panics; what it
// accepts is well formed (the checksum, the length and the key agree); and
// a good entry changed anywhere (one byte, or cut short) is a miss, whether
// decoded from memory or read from the file.
func FuzzCacheEntry(f *testing.F) {
	good := fuzzEntry(f)
	f.Add(good, uint(0), byte(0))
	f.Add(good, uint(20), byte(1))
	f.Add(good[:cacheHeader], uint(len(good)-1), byte(0x80))
	f.Add([]byte{}, uint(0), byte(0))
	f.Add(append(append([]byte(nil), cacheMagic...), make([]byte, 40)...), uint(0), byte(0))
	c := cache{dir: f.TempDir(), max: -1}
	f.Fuzz(func(t *testing.T, data []byte, pos uint, x byte) {
		got, ok := decodeEntry(data, fuzzKey)
		if ok {
			require.GreaterOrEqual(t, len(data), cacheHeader)
			payload := data[cacheHeader:]
			sum := sha256.Sum256(payload)
			assert.Equal(t, cacheMagic, data[:16])
			assert.Equal(t, sum[:], data[16:16+sha256.Size])
			assert.Equal(t, uint64(len(payload)), binary.LittleEndian.Uint64(data[16+sha256.Size:]))
			var e cacheEntry
			require.NoError(t, json.Unmarshal(payload, &e))
			assert.Equal(t, fuzzKey, e.Key)
			assert.NotEmpty(t, got.Image)
		}
		require.NoError(t, os.WriteFile(c.path(fuzzKey), data, 0o644))
		fromFile, okFile := c.get(fuzzKey)
		assert.Equal(t, ok, okFile, "the file and its bytes agree")
		assert.Equal(t, got, fromFile)

		// A good entry with one byte changed, or cut short, is a miss.
		bad := bytes.Clone(good)
		if x != 0 {
			bad[pos%uint(len(bad))] ^= x
		} else {
			bad = bad[:pos%uint(len(bad))]
		}
		_, ok = decodeEntry(bad, fuzzKey)
		assert.False(t, ok, "corrupt entry decoded")
		require.NoError(t, os.WriteFile(c.path(fuzzKey), bad, 0o644))
		_, ok = c.get(fuzzKey)
		assert.False(t, ok, "corrupt entry read")
	})
}

// TestDecodeGoodEntry: the fuzz test's good entry is a hit, so that its
// corruptions are misses for their corruption alone.
func TestDecodeGoodEntry(t *testing.T) {
	good := fuzzEntry(t)
	got, ok := decodeEntry(good, fuzzKey)
	require.True(t, ok)
	assert.Equal(t, "sm_90", got.Arch)
	_, ok = decodeEntry(good, "another key")
	assert.False(t, ok)
	c := cache{dir: t.TempDir(), max: -1}
	require.NoError(t, os.WriteFile(c.path(fuzzKey), good, 0o644))
	_, ok = c.get(fuzzKey)
	assert.True(t, ok)
}

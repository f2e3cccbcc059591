package loader_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/loader"
)

func TestMathLibraryCandidates(t *testing.T) {
	venv := t.TempDir()
	sp := filepath.Join(venv, "lib/python3.12/site-packages")
	for _, d := range []string{"nvidia/cu13/lib", "nvidia/curand/lib", "nvidia/cufft/lib"} {
		require.NoError(t, os.MkdirAll(filepath.Join(sp, d), 0o755))
	}
	t.Setenv("VIRTUAL_ENV", venv)
	for _, tc := range []struct {
		k     loader.Kind
		name  string
		env   string
		first []string
		wheel string
	}{
		{loader.CURAND, "libcurand", "NOCGO_CUDA_LIBCURAND", []string{"libcurand.so.10", "libcurand.so"}, "nvidia/curand/lib/libcurand.so.10"},
		{loader.CUFFT, "libcufft", "NOCGO_CUDA_LIBCUFFT", []string{"libcufft.so.12", "libcufft.so.11", "libcufft.so"}, "nvidia/cufft/lib/libcufft.so.11"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.env, "")
			assert.Equal(t, tc.name, tc.k.String())
			assert.Equal(t, tc.env, tc.k.EnvVar())
			c := loader.Candidates(tc.k)
			assert.Equal(t, tc.first, c[:len(tc.first)], "the system loader first")
			assert.Contains(t, c, "/usr/local/cuda/lib64/"+tc.first[0])
			assert.Contains(t, c, filepath.Join(sp, "nvidia/cu13/lib", tc.first[0]), "the CUDA 13 wheel")
			assert.Contains(t, c, filepath.Join(sp, tc.wheel), "the CUDA 12 wheel")
			t.Setenv(tc.env, "/opt/x/"+tc.first[0])
			assert.Equal(t, []string{"/opt/x/" + tc.first[0]}, loader.Candidates(tc.k), "the variable is the only candidate")
			t.Setenv(tc.env, "")
			t.Setenv("LD_LIBRARY_PATH", "")
			if _, err := loader.Open(tc.k); err != nil {
				var le *loader.LibraryError
				require.ErrorAs(t, err, &le)
				assert.Len(t, le.Tried, len(c), "every candidate is reported")
			}
		})
	}
}

package ptxexec

import (
	"encoding/binary"
	"math"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// testMem is device memory for the tests: allocations at 0x7000_0000_0000
// upwards, 256-byte aligned, with gaps between them.
type testMem struct {
	allocs []testAlloc
	next   uint64
}

type testAlloc struct {
	base uint64
	data []byte
}

func newMem() *testMem { return &testMem{next: 0x7000_0000_0000} }

func (m *testMem) Lookup(addr uint64) (uint64, []byte, bool) {
	i := sort.Search(len(m.allocs), func(i int) bool { return m.allocs[i].base+uint64(len(m.allocs[i].data)) > addr })
	if i < len(m.allocs) && m.allocs[i].base <= addr {
		return m.allocs[i].base, m.allocs[i].data, true
	}
	return 0, nil, false
}

func (m *testMem) alloc(n int) uint64 {
	base := m.next
	m.allocs = append(m.allocs, testAlloc{base, make([]byte, n)})
	m.next += uint64(n+255)&^255 + 4096
	return base
}

func (m *testMem) bytes(p uint64) []byte {
	_, b, _ := m.Lookup(p)
	return b
}

func (m *testMem) f32s(vals []float32) uint64 {
	p := m.alloc(4 * len(vals))
	b := m.bytes(p)
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return p
}

func (m *testMem) readF32(p uint64, n int) []float32 {
	b := m.bytes(p)
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func (m *testMem) i32s(vals []int32) uint64 {
	p := m.alloc(4 * len(vals))
	b := m.bytes(p)
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return p
}

func (m *testMem) readI32(p uint64, n int) []int32 {
	b := m.bytes(p)
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// bind places a program's globals in m.
func (m *testMem) bind(p *Program) {
	for _, g := range p.Globals {
		g.Addr = m.alloc(max(g.Size, 1))
		copy(m.bytes(g.Addr), g.Init)
	}
	p.Bind()
}

// params packs kernel arguments by the kernel's layout.
func params(t testing.TB, k *Kernel, args ...any) []byte {
	t.Helper()
	require.Len(t, args, len(k.Params), "arguments of %s", k.Name)
	buf := make([]byte, k.ParamSize)
	for i, a := range args {
		off := k.Params[i].Offset
		switch v := a.(type) {
		case uint64:
			binary.LittleEndian.PutUint64(buf[off:], v)
		case int64:
			binary.LittleEndian.PutUint64(buf[off:], uint64(v))
		case int32:
			binary.LittleEndian.PutUint32(buf[off:], uint32(v))
		case uint32:
			binary.LittleEndian.PutUint32(buf[off:], v)
		case float32:
			binary.LittleEndian.PutUint32(buf[off:], math.Float32bits(v))
		case float64:
			binary.LittleEndian.PutUint64(buf[off:], math.Float64bits(v))
		default:
			t.Fatalf("argument %d: unsupported %T", i, a)
		}
		require.Equal(t, k.Params[i].Size, sizeOf(a), "argument %d of %s", i, k.Name)
	}
	return buf
}

func sizeOf(a any) int {
	switch a.(type) {
	case uint64, int64, float64:
		return 8
	}
	return 4
}

var (
	goldenOnce sync.Once
	golden     map[string]string
)

// kernels returns the golden PTX for arch "80" or "90".
func kernels(t testing.TB, arch string) string {
	goldenOnce.Do(func() {
		golden = map[string]string{}
		for _, a := range []string{"80", "90"} {
			b, err := os.ReadFile("testdata/kernels_" + a + ".ptx")
			if err == nil {
				golden[a] = string(b)
			}
		}
	})
	src, ok := golden[arch]
	if !ok {
		t.Fatalf("no testdata/kernels_%s.ptx", arch)
	}
	return src
}

// load compiles the golden PTX and binds its globals in a fresh memory.
func load(t testing.TB, arch string) (*Program, *testMem) {
	p, err := Compile(kernels(t, arch))
	require.NoError(t, err)
	mem := newMem()
	mem.bind(p)
	return p, mem
}

func run(t *testing.T, p *Program, mem *testMem, name string, grid, block [3]uint32, dyn uint32, args ...any) error {
	t.Helper()
	k := p.Kernels[name]
	require.NotNil(t, k, "kernel %s", name)
	return k.Run(&Launch{Grid: grid, Block: block, DynShared: dyn, Params: params(t, k, args...), Mem: mem, SMs: 132})
}

func dim(x uint32) [3]uint32 { return [3]uint32{x, 1, 1} }

package conformance

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/module"
	"github.com/nocgo/cuda/stream"
)

// indigoGraph is the corpus's input: an undirected graph in CSR form,
// eight components of twelve vertices, each a path with a chord from
// every third vertex to the one two further (a triangle each).
type indigoGraph struct {
	n      int
	nindex []int32
	nlist  []int32
}

const (
	indigoN   = 96
	indigoInf = 1000000
)

func newIndigoGraph() indigoGraph {
	adj := make([][]int32, indigoN)
	link := func(a, b int) {
		adj[a] = append(adj[a], int32(b))
		adj[b] = append(adj[b], int32(a))
	}
	for v := range indigoN {
		if v%12 != 11 {
			link(v, v+1)
		}
		if v%3 == 0 && v%12 < 10 {
			link(v, v+2)
		}
	}
	g := indigoGraph{n: indigoN, nindex: []int32{0}}
	for _, a := range adj {
		slices.Sort(a)
		g.nlist = append(g.nlist, a...)
		g.nindex = append(g.nindex, int32(len(g.nlist)))
	}
	return g
}

func (g indigoGraph) nei(v int) []int32 { return g.nlist[g.nindex[v]:g.nindex[v+1]] }
func (g indigoGraph) deg(v int) int32   { return g.nindex[v+1] - g.nindex[v] }
func (g indigoGraph) edges() int        { return len(g.nlist) }
func (g indigoGraph) neighbourSum(d []int32) []int32 {
	out := make([]int32, g.n)
	for v := range g.n {
		for _, u := range g.nei(v) {
			out[v] += d[u]
		}
	}
	return out
}

// indigoData is what a kernel of the corpus gets besides the graph.
type indigoData struct{ data1, data2, aux []int32 }

func (d indigoData) clone() indigoData {
	return indigoData{slices.Clone(d.data1), slices.Clone(d.data2), slices.Clone(d.aux)}
}

// indigoRacy is a racy kernel of the corpus and the marked lines ("@name"
// in indigoSource) its reports must name.
type indigoRacy struct {
	kernel string
	lines  []string
}

// indigoCase is one bug pattern in one style: its racy kernels, their
// race-free twins, the launch, the inputs, and the check of a twin's
// result against the serial code's.
type indigoCase struct {
	name        string
	racy        []indigoRacy
	free        []string
	grid, block int
	extra       []any // arguments after numv
	freeExtra   []any // the twins', where they differ
	in          func(g indigoGraph) indigoData
	check       func(g indigoGraph, in, out indigoData) string
}

// indigoLine is the line of indigoSource marked "@name".
func indigoLine(t *testing.T, name string) int {
	t.Helper()
	for i, l := range strings.Split(indigoSource, "\n") {
		if strings.HasSuffix(l, "// @"+name) {
			return i + 1
		}
	}
	t.Fatalf("no line marked @%s in indigoSource", name)
	return 0
}

func zeros(n int) []int32 { return make([]int32, n) }

func ints(n int, f func(v int) int32) []int32 {
	out := make([]int32, n)
	for v := range out {
		out[v] = f(v)
	}
	return out
}

// sameData compares what a twin computed with the serial result, on the
// arrays the serial result names (nil: not checked).
func sameData(want, got indigoData) string {
	for k, p := range [][2][]int32{{want.data1, got.data1}, {want.data2, got.data2}, {want.aux, got.aux}} {
		for i := range p[0] {
			if p[0][i] != p[1][i] {
				return fmt.Sprintf("%s[%d] = %d, want %d", [...]string{"data1", "data2", "aux"}[k], i, p[1][i], p[0][i])
			}
		}
	}
	return ""
}

// indigoCases is the corpus: each racy kernel beside its race-free twins.
func indigoCases() []indigoCase {
	vals := func(indigoGraph) indigoData {
		return indigoData{zeros(512), ints(512, func(v int) int32 { return int32(v*29%101 + 1) }), zeros(8192)}
	}
	maxCheck := func(g indigoGraph, in, out indigoData) string {
		m := int32(0)
		for _, u := range g.nlist {
			m = max(m, in.data2[u])
		}
		return sameData(indigoData{data1: []int32{m}}, out)
	}
	count := func(g indigoGraph, _, out indigoData) string {
		c := int32(0)
		for v := range g.n {
			for _, u := range g.nei(v) {
				if int(u) > v {
					c++
					break
				}
			}
		}
		return sameData(indigoData{data1: []int32{c}}, out)
	}
	undirected := func(g indigoGraph, _, out indigoData) string {
		return sameData(indigoData{data1: []int32{int32(g.edges() / 2)}}, out)
	}
	neighbourSum := func(g indigoGraph, in, out indigoData) string {
		return sameData(indigoData{data1: g.neighbourSum(in.data2)}, out)
	}
	labels := func(g indigoGraph) indigoData {
		l := ints(g.n, func(v int) int32 { return int32(v * 5 % g.n) })
		return indigoData{l, slices.Clone(l), zeros(8)}
	}
	frontier := func(g indigoGraph) indigoData {
		l := ints(g.n, func(v int) int32 {
			if v%12 == 0 || v%12 == 2 {
				return 0 // vertex 1 of each component has two frontier neighbours
			}
			return indigoInf
		})
		return indigoData{l, slices.Clone(l), zeros(g.n + 1)}
	}
	forest := func(g indigoGraph) indigoData {
		return indigoData{ints(g.n, func(v int) int32 {
			if v%12 == 0 {
				return int32(v)
			}
			return int32(v - 1)
		}), zeros(g.n), zeros(8)}
	}
	degrees := func(g indigoGraph) indigoData { return indigoData{zeros(512), zeros(512), zeros(64)} }
	triangles := func(g indigoGraph) int32 {
		c := int32(0)
		for i := range g.n {
			for _, u := range g.nei(i) {
				if int(u) <= i {
					continue
				}
				for _, w := range g.nei(int(u)) {
					if w > u && slices.Contains(g.nei(i), w) {
						c++
					}
				}
			}
		}
		return c
	}
	edgeGrid := (newIndigoGraph().edges() + 63) / 64
	return []indigoCase{
		// A. the atomic bug of a reduction to one word, four styles
		{name: "max/vertex-thread", racy: []indigoRacy{{"max_vthread_plain", []string{"max_vthread"}}}, free: []string{"max_vthread_atomic"},
			grid: 2, block: 64, in: vals, check: maxCheck},
		{name: "max/vertex-warp", racy: []indigoRacy{{"max_vwarp_plain", []string{"max_vwarp"}}}, free: []string{"max_vwarp_atomic"},
			grid: 12, block: 256, in: vals, check: maxCheck},
		{name: "max/vertex-block", racy: []indigoRacy{{"max_vblock_plain", []string{"max_vblock"}}}, free: []string{"max_vblock_atomic"},
			grid: 24, block: 64, in: vals, check: maxCheck},
		{name: "max/edge", racy: []indigoRacy{{"max_edge_plain", []string{"max_edge"}}}, free: []string{"max_edge_atomic"},
			grid: edgeGrid, block: 64, in: vals, check: maxCheck},
		// B. a counter bumped with x++
		{name: "count/vertex", racy: []indigoRacy{{"count_vthread_plain", []string{"count_vthread"}}}, free: []string{"count_vthread_atomic"},
			grid: 2, block: 64, in: vals, check: count},
		{name: "count/edge", racy: []indigoRacy{{"count_edge_plain", []string{"count_edge"}}}, free: []string{"count_edge_atomic"},
			grid: edgeGrid, block: 64, in: vals, check: undirected},
		{name: "count/persistent-warp", racy: []indigoRacy{{"count_persist", []string{"count_persist"}}}, extra: []any{int32(0)},
			free: []string{"count_persist"}, freeExtra: []any{int32(1)}, grid: 1, block: 32, in: vals,
			check: func(g indigoGraph, _, out indigoData) string {
				c := int32(0)
				for v := range g.n {
					if g.deg(v) > 2 {
						c++
					}
				}
				return sameData(indigoData{data1: []int32{c}}, out)
			}},
		// C. push to the neighbours; the pull twin owns its word
		{name: "push/vertex-warp", racy: []indigoRacy{{"push_vwarp_plain", []string{"push_vwarp"}}}, free: []string{"push_vwarp_atomic"},
			grid: 12, block: 256, in: vals, check: neighbourSum},
		{name: "push/edge", racy: []indigoRacy{{"push_edge_plain", []string{"push_edge"}}}, free: []string{"pull_edge_atomic"},
			grid: edgeGrid, block: 64, in: vals, check: neighbourSum},
		// D. min-label propagation: data[nei] = min(data[nei], v), and a
		// plain read of a label others update atomically
		{name: "cc/push", racy: []indigoRacy{{"cc_push_plain", []string{"cc_push"}}, {"cc_push_plain_read", []string{"cc_read", "cc_atomic"}},
			{"cc_pull_inplace", []string{"cc_pull_read", "cc_pull_write"}}},
			free: []string{"cc_push_atomic", "cc_pull"}, grid: 2, block: 64, in: labels,
			check: func(g indigoGraph, in, out indigoData) string {
				want := slices.Clone(in.data2)
				for v := range g.n {
					for _, u := range g.nei(v) {
						want[v] = min(want[v], in.data2[u])
					}
				}
				return sameData(indigoData{data1: want}, out)
			}},
		{name: "cc/push-strong", free: []string{"cc_push_strong"}, grid: 2, block: 64, in: labels,
			check: func(g indigoGraph, in, out indigoData) string {
				// Labels only fall, and each stays a label of its component.
				for v := range g.n {
					if out.data1[v] > in.data1[v] || out.data1[v] < 0 {
						return fmt.Sprintf("label[%d] = %d (was %d)", v, out.data1[v], in.data1[v])
					}
				}
				return ""
			}},
		// E. BFS, data driven: a worklist counter bumped with x++, a plain
		// test-and-set of the level
		{name: "bfs/worklist", racy: []indigoRacy{{"bfs_wl_plain", []string{"bfs_wl_read", "bfs_wl_write"}}, {"bfs_level_plain", []string{"bfs_level_read", "bfs_level_write"}}},
			free: []string{"bfs_wl_atomic"}, grid: 2, block: 64, in: frontier,
			check: func(g indigoGraph, in, out indigoData) string {
				want := slices.Clone(in.data1)
				var items []int32
				for v := range g.n {
					if in.data2[v] != 0 {
						continue
					}
					for _, u := range g.nei(v) {
						if want[u] == indigoInf {
							want[u] = 1
							items = append(items, u)
						}
					}
				}
				slices.Sort(items)
				got := slices.Clone(out.aux[1 : 1+min(int(out.aux[0]), g.n)])
				slices.Sort(got)
				if !slices.Equal(got, items) {
					return fmt.Sprintf("worklist %v, want %v", got, items)
				}
				return sameData(indigoData{data1: want, aux: []int32{int32(len(items))}}, out)
			}},
		// F. path compression
		{name: "union-find/compress", racy: []indigoRacy{{"find_compress_plain", []string{"compress"}}}, free: []string{"find_plain", "find_compress_cas"},
			grid: 2, block: 64, in: forest,
			check: func(g indigoGraph, _, out indigoData) string {
				return sameData(indigoData{data2: ints(g.n, func(v int) int32 { return int32(v - v%12) })}, out)
			}},
		// G. maximal independent set: a status read while neighbours write it
		{name: "mis/round", racy: []indigoRacy{{"mis_plain", []string{"mis_read", "mis_write"}}}, free: []string{"mis_atomic"},
			grid: 2, block: 64,
			in: func(g indigoGraph) indigoData {
				return indigoData{zeros(g.n), ints(g.n, func(v int) int32 { return int32(v * 37 % 97) }), zeros(8)}
			},
			check: func(g indigoGraph, in, out indigoData) string {
				want := zeros(g.n)
				for v := range g.n {
					top := true
					for _, u := range g.nei(v) {
						top = top && in.data2[u] < in.data2[v]
					}
					if top {
						want[v] = 1
						for _, u := range g.nei(v) {
							want[u] = 2
						}
					}
				}
				return sameData(indigoData{data1: want}, out)
			}},
		// H. PageRank, push (plain and atomic) and pull
		{name: "pagerank/push", racy: []indigoRacy{{"pr_push_plain", []string{"pr_push"}}}, free: []string{"pr_push_atomic", "pr_pull"},
			grid: 2, block: 64,
			in: func(g indigoGraph) indigoData {
				return indigoData{zeros(g.n), ints(g.n, func(v int) int32 { return int32(1000 + 7*v) }), zeros(8)}
			},
			check: func(g indigoGraph, in, out indigoData) string {
				share := ints(g.n, func(v int) int32 { return in.data2[v] / g.deg(v) })
				return sameData(indigoData{data1: g.neighbourSum(share)}, out)
			}},
		// I. triangle counting: x += c, and a shared-memory tree without
		// its barriers
		{name: "tc/vertex-thread", racy: []indigoRacy{{"tc_vthread_plain", []string{"tc_vthread"}}}, free: []string{"tc_vthread_atomic"},
			grid: 2, block: 64, in: degrees,
			check: func(g indigoGraph, _, out indigoData) string {
				return sameData(indigoData{data1: []int32{triangles(g)}}, out)
			}},
		{name: "tc/vertex-block", racy: []indigoRacy{{"tc_vblock", nil}}, free: []string{"tc_vblock"}, extra: []any{int32(0)}, freeExtra: []any{int32(1)},
			grid: indigoN, block: 64, in: degrees,
			check: func(g indigoGraph, _, out indigoData) string {
				return sameData(indigoData{data1: []int32{triangles(g)}}, out)
			}},
		// J. a guard bug: blocks overlap
		{name: "guard/stride", racy: []indigoRacy{{"sum_stride_bug", []string{"stride"}}}, free: []string{"sum_stride"},
			grid: 2, block: 64, in: vals, check: neighbourSum},
		// K, M. partial sums through global memory, a barrier missing
		{name: "sync/block-global", racy: []indigoRacy{{"sum_vblock_global", []string{"gsync_write", "gsync_read"}}}, free: []string{"sum_vblock_global"},
			extra: []any{int32(0)}, freeExtra: []any{int32(1)}, grid: indigoN, block: 64, in: vals, check: neighbourSum},
		{name: "sync/warp-global", racy: []indigoRacy{{"sum_vwarp_global", []string{"wsync_write", "wsync_read"}}}, free: []string{"sum_vwarp_global"},
			extra: []any{int32(0)}, freeExtra: []any{int32(1)}, grid: 12, block: 256, in: vals, check: neighbourSum},
		// N. block-scope atomics between blocks
		{name: "scope/atomic-cta", racy: []indigoRacy{{"degree_sum_cta", []string{"cta_add"}}}, free: []string{"degree_sum_gpu"},
			grid: 2, block: 64, in: degrees,
			check: func(g indigoGraph, _, out indigoData) string {
				return sameData(indigoData{data1: []int32{int32(g.edges())}}, out)
			}},
		// O, P. a lock of block scope between blocks, a lock without fences
		{name: "scope/lock", racy: []indigoRacy{{"lock_sum", []string{"lock_cta_cas"}}}, extra: []any{int32(0)},
			free: []string{"lock_sum"}, freeExtra: []any{int32(2)}, grid: 4, block: 64, in: degrees, check: lockCheck},
		{name: "lock/nofence", racy: []indigoRacy{{"lock_sum", []string{"lock_nofence"}}}, extra: []any{int32(1)},
			free: []string{"lock_sum"}, freeExtra: []any{int32(2)}, grid: 4, block: 64, in: degrees, check: lockCheck},
		// Q. message passing between blocks with a block-scope fence
		{name: "scope/fence-cta", racy: []indigoRacy{{"message_scoped", []string{"msg_write", "msg_read"}}}, extra: []any{int32(0)},
			free: []string{"message_scoped"}, freeExtra: []any{int32(1)}, grid: 2, block: 64, in: degrees, check: messageCheck(64)},
		{name: "interblock/message-writer-nosync", racy: []indigoRacy{{"message_scoped", []string{"msg_write", "msg_read"}}}, extra: []any{int32(2)},
			free: []string{"message_scoped"}, freeExtra: []any{int32(1)}, grid: 2, block: 32, in: degrees, check: messageCheck(32)},
		{name: "interblock/message-reader-nosync", racy: []indigoRacy{{"message_scoped", []string{"msg_write", "msg_read"}}}, extra: []any{int32(3)},
			free: []string{"message_scoped"}, freeExtra: []any{int32(1)}, grid: 2, block: 64, in: degrees, check: messageCheck(64)},
		// R, S. a software grid barrier: without fences, with a block-scope
		// arrival
		{name: "interblock/barrier-nofence", racy: []indigoRacy{{"soft_barrier", []string{"bar_write", "bar_read"}}}, extra: []any{int32(1)},
			free: []string{"soft_barrier"}, freeExtra: []any{int32(0)}, grid: 4, block: 32, in: degrees, check: barrierCheck},
		{name: "interblock/barrier-cta", racy: []indigoRacy{{"soft_barrier", []string{"bar_arrive"}}}, extra: []any{int32(2)},
			free: []string{"soft_barrier"}, freeExtra: []any{int32(0)}, grid: 4, block: 32, in: degrees, check: barrierCheck},
		// T. a chained scan (decoupled look-back's chain) without its fence
		{name: "interblock/chained-scan", racy: []indigoRacy{{"chained_scan", []string{"scan_write", "scan_read"}}}, extra: []any{int32(0)},
			free: []string{"chained_scan"}, freeExtra: []any{int32(1)}, grid: 6, block: 32, in: degrees,
			check: func(g indigoGraph, _, out indigoData) string {
				want := zeros(6)
				for b := range want {
					want[b] = g.deg(b)
					if b > 0 {
						want[b] += want[b-1]
					}
				}
				return sameData(indigoData{data1: want}, out)
			}},
		// U. a work queue whose head is bumped with x++
		{name: "worklist/queue", racy: []indigoRacy{{"queue_sum", []string{"queue_head"}}}, extra: []any{int32(0)},
			free: []string{"queue_sum"}, freeExtra: []any{int32(1)}, grid: 2, block: 64, in: vals, check: neighbourSum},
	}
}

// lockCheck: lane 0 of each warp adds its vertex's degree under the lock.
func lockCheck(g indigoGraph, _, out indigoData) string {
	s := int32(0)
	for v := 0; v < g.n && v < 4*64; v += 32 {
		s += g.deg(v)
	}
	return sameData(indigoData{data1: []int32{s}}, out)
}

// barrierCheck: block b wrote its degree and read its successor's.
func barrierCheck(g indigoGraph, _, out indigoData) string {
	d := ints(4, func(b int) int32 { return g.deg(b) })
	return sameData(indigoData{data1: d, data2: ints(4, func(b int) int32 { return d[(b+1)%4] })}, out)
}

// testRacesIndigo runs the corpus: every race-free twin computes the
// serial result on every backend (and, the suite's race check being on,
// is not reported on the fake); where a race detector is on, every racy
// kernel is reported as a race inside the kernel naming its marked lines.
func testRacesIndigo(t *testing.T, drv *driver.Driver) {
	NVIDIACompiler(t, drv)
	ctx := streamContext(t, drv, 0)
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	must(t, err)
	t.Cleanup(func() { s.Close() })
	r := sampleRig{ctx: ctx, s: s}
	m := r.compile(t, "indigo.cu", indigoSource, module.Options{LineInfo: true})
	d, detector := raceDetector(t, drv)
	g := newIndigoGraph()
	nindex, nlist := deviceCopy(t, ctx, g.nindex), deviceCopy(t, ctx, g.nlist)
	launch := func(t *testing.T, c indigoCase, kernel string, in indigoData, extra []any) indigoData {
		t.Helper()
		b1, b2, b3 := deviceCopy(t, ctx, in.data1), deviceCopy(t, ctx, in.data2), deviceCopy(t, ctx, in.aux)
		args := append([]any{nindex, nlist, b1, b2, b3, int32(g.n)}, extra...)
		must(t, fn(t, m, kernel).Launch(s, module.Config{Grid: module.Dim(c.grid), Block: module.Dim(c.block)}, args...))
		return indigoData{hostCopy(t, s, b1), hostCopy(t, s, b2), hostCopy(t, s, b3)}
	}
	for _, c := range indigoCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range c.free {
				in := c.in(g)
				extra := c.freeExtra
				if extra == nil {
					extra = c.extra
				}
				out := launch(t, c, k, in.clone(), extra)
				if msg := c.check(g, in, out); msg != "" {
					t.Errorf("%s: %s", k, msg)
				}
				if detector {
					if reps := d.TakeRaceReports(); len(reps) != 0 {
						t.Errorf("%s is race-free, and %d reports:\n%s", k, len(reps), strings.Join(reps, "\n"))
					}
				}
			}
			if !detector {
				return
			}
			for _, k := range c.racy {
				launch(t, c, k.kernel, c.in(g), c.extra)
				reports := d.TakeRaceReports()
				var mine []string
				for _, rep := range reports {
					if strings.Contains(rep, "kernel "+k.kernel) {
						mine = append(mine, rep)
					}
				}
				if len(mine) == 0 {
					t.Errorf("%s: no race reported (%d reports)", k.kernel, len(reports))
					continue
				}
				for _, l := range k.lines {
					where := fmt.Sprintf("indigo.cu:%d", indigoLine(t, l))
					if !slices.ContainsFunc(mine, func(rep string) bool { return strings.Contains(rep, where) }) {
						t.Errorf("%s: no report names %s (@%s):\n%s", k.kernel, where, l, strings.Join(mine, "\n"))
					}
				}
			}
		})
	}
}

// messageCheck: block 0 wrote the first n degrees (n threads a block),
// block 1 copied them.
func messageCheck(n int) func(g indigoGraph, _, out indigoData) string {
	return func(g indigoGraph, _, out indigoData) string {
		d := ints(n, func(v int) int32 { return g.deg(v) })
		return sameData(indigoData{data1: d, data2: d}, out)
	}
}

package graph_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest/fakekernels"
	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/fake"
	"github.com/nocgo/cuda/graph"
	"github.com/nocgo/cuda/stream"
)

// slowGraphs is the fake with every graph call on an existing graph or exec
// slowed down after the library's checks, and a record of the handles
// destroyed: a call on one of those is a use after free, which on a GPU
// hands the driver freed memory.
type slowGraphs struct {
	fake.Backend
	mu        sync.Mutex
	destroyed map[uintptr]bool
	uses      []string // use-after-free calls seen
}

func (b *slowGraphs) enter(call string, h uintptr) {
	time.Sleep(200 * time.Microsecond) // a Close racing the call runs meanwhile
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.destroyed[h] {
		b.uses = append(b.uses, call)
	}
}

func (b *slowGraphs) gone(h uintptr) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.destroyed[h] = true
}

func (b *slowGraphs) GraphNodeCount(g uintptr) (int, error) {
	b.enter("cuGraphGetNodes", g)
	return b.Backend.GraphNodeCount(g)
}

func (b *slowGraphs) GraphEdgeCount(g uintptr) (int, error) {
	b.enter("cuGraphGetEdges", g)
	return b.Backend.GraphEdgeCount(g)
}

func (b *slowGraphs) GraphClone(g uintptr) (uintptr, error) {
	b.enter("cuGraphClone", g)
	return b.Backend.GraphClone(g)
}

func (b *slowGraphs) GraphInstantiate(g uintptr, flags uint64) (uintptr, error) {
	b.enter("cuGraphInstantiate", g)
	return b.Backend.GraphInstantiate(g, flags)
}

func (b *slowGraphs) GraphLaunch(x, s uintptr) error {
	b.enter("cuGraphLaunch", x)
	return b.Backend.GraphLaunch(x, s)
}

func (b *slowGraphs) GraphUpload(x, s uintptr) error {
	b.enter("cuGraphUpload", x)
	return b.Backend.GraphUpload(x, s)
}

func (b *slowGraphs) GraphDestroy(g uintptr) error {
	err := b.Backend.GraphDestroy(g)
	if err == nil {
		b.gone(g)
	}
	return err
}

func (b *slowGraphs) GraphExecDestroy(x uintptr) error {
	err := b.Backend.GraphExecDestroy(x)
	if err == nil {
		b.gone(x)
	}
	return err
}

// A Close racing calls on the same Graph or Exec waits for them: no call
// hands the driver a destroyed handle, and every call either works or
// fails with driver.ErrClosed.
func TestCloseRacingCalls(t *testing.T) {
	api := &slowGraphs{Backend: fake.NewBackend(append([]fake.Option{fake.Devices(1)}, fakekernels.Options()...)...), destroyed: map[uintptr]bool{}}
	drv, err := driver.New(api)
	require.NoError(t, err)
	t.Cleanup(func() { assert.Empty(t, api.Leaks(), "leaks") })
	ctx := primary(t, drv)
	s, err := stream.New(ctx, stream.Options{Flags: stream.NonBlocking})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })

	for range 10 {
		g, err := graph.New(ctx)
		require.NoError(t, err)
		_, err = g.AddEmpty()
		require.NoError(t, err)
		x, err := g.Instantiate()
		require.NoError(t, err)

		calls := map[string]func() error{
			"NodeCount": func() error { _, err := g.NodeCount(); return err },
			"EdgeCount": func() error { _, err := g.EdgeCount(); return err },
			"Clone": func() error {
				c, err := g.Clone()
				if err == nil {
					err = c.Close()
				}
				return err
			},
			"Instantiate": func() error {
				e, err := g.Instantiate()
				if err == nil {
					err = e.Close()
				}
				return err
			},
			"Launch": func() error { return x.Launch(s) },
			"Upload": func() error { return x.Upload(s) },
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for name, call := range calls {
			wg.Go(func() {
				<-start
				if err := call(); err != nil {
					assert.ErrorIs(t, err, driver.ErrClosed, "%s racing Close", name)
				}
			})
		}
		wg.Go(func() {
			<-start
			time.Sleep(50 * time.Microsecond)
			assert.NoError(t, g.Close())
			assert.NoError(t, x.Close())
		})
		close(start)
		wg.Wait()
		require.NoError(t, s.Synchronize())
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	assert.Empty(t, api.uses, "calls on destroyed handles")
}

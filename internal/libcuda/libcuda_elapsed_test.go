package libcuda_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/driver/backend"
)

// TestRealElapsedAroundHostFunc times two events around host functions and
// plain work, with and without a context current on the calling thread, and
// reports what the driver answers in each case.
func TestRealElapsedAroundHostFunc(t *testing.T) {
	_, ctx, api, s := realSetup(t)
	b, err := bindCtx(api, ctx)
	require.NoError(t, err)
	start, err1 := api.EventCreate(backend.EventDefault)
	end, err2 := api.EventCreate(backend.EventDefault)
	b.Unbind()
	require.NoError(t, err1)
	require.NoError(t, err2)
	defer api.EventDestroy(start)
	defer api.EventDestroy(end)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	counts := map[string]map[string]int{}
	for i := 0; i < 40; i++ {
		hostFunc := i%2 == 0
		bound := i%4 < 2
		require.NoError(t, api.EventRecord(start, s))
		if hostFunc {
			require.NoError(t, api.LaunchHostFunc(s, func() { time.Sleep(time.Millisecond) }))
		}
		require.NoError(t, api.EventRecord(end, s))
		require.NoError(t, api.EventSynchronize(end))
		var bb binding
		if bound {
			bb, err = bindCtx(api, ctx)
			require.NoError(t, err)
		}
		cur, _ := api.CtxGetCurrent()
		_, err := api.EventElapsedTime(start, end)
		bb.Unbind()
		key := map[bool]string{true: "hostfunc", false: "plain"}[hostFunc] + "/" + map[bool]string{true: "bound", false: "unbound"}[bound]
		if counts[key] == nil {
			counts[key] = map[string]int{}
		}
		res := "ok"
		if err != nil {
			res = err.Error()
		}
		if cur != 0 && cur != ctx.Handle() {
			res += " (another context was current)"
		}
		counts[key][res]++
	}
	t.Logf("cuEventElapsedTime results: %v", counts)
	for _, k := range []string{"plain/bound", "hostfunc/bound"} {
		assert.Equal(t, map[string]int{"ok": 10}, counts[k], k)
	}
}

package core

import (
	"context"
	"runtime"
	"time"
)

// The polling schedule of Await: spinQueries queries back to back (with a
// yield between them), so that work about to finish costs no sleep; then
// sleeps starting at firstSleep and doubling up to maxSleep. The cap bounds
// the latency a wait adds once the work is done (at most maxSleep plus one
// query); the doubling keeps a long wait from spending a core on queries
// (2000 queries a second at the cap).
const (
	spinQueries = 64
	firstSleep  = 2 * time.Microsecond
	maxSleep    = 500 * time.Microsecond
)

// Await polls done until it reports true or an error, or until ctx is done,
// and then returns ctx.Err() (the work being waited for is not touched: it
// continues; only the caller stops waiting). It starts no goroutine. When
// ctx is already done it returns ctx.Err() before calling done. block, when
// not nil, is called instead of polling when ctx can never be done
// (ctx.Done() == nil, as for context.Background): the plain blocking wait
// costs less than polling.
func Await(ctx context.Context, done func() (bool, error), block func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cancel := ctx.Done()
	if cancel == nil && block != nil {
		return block()
	}
	for i := 0; i < spinQueries; i++ {
		if ok, err := done(); ok || err != nil {
			return err
		}
		if i%8 == 7 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		runtime.Gosched()
	}
	sleep := firstSleep
	t := time.NewTimer(sleep)
	defer t.Stop()
	for {
		select {
		case <-cancel:
			return ctx.Err()
		case <-t.C:
		}
		if ok, err := done(); ok || err != nil {
			return err
		}
		sleep = min(2*sleep, maxSleep)
		t.Reset(sleep)
	}
}

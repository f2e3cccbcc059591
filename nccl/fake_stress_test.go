package nccl_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// TestFakeRanksInGoroutines drives three ranks of the fake from a goroutine
// each, through many collectives with synchronizations at different points
// on each rank: the rendezvous on the streams must neither deadlock nor mix
// up operations.
func TestFakeRanksInGoroutines(t *testing.T) {
	const ranks, rounds = 3, 150
	drv := fakeDriver(t, ranks)
	ctx0 := primary(t, drv, 0)
	id, err := nccl.NewUniqueID(ctx0)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, ranks)
	for rank := range ranks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[rank] = func() error {
				ctx := primary(t, drv, rank)
				c, err := nccl.NewComm(ctx, ranks, id, rank, nil)
				if err != nil {
					return err
				}
				defer c.Close()
				s, err := stream.New(ctx, stream.Options{})
				if err != nil {
					return err
				}
				defer s.Close()
				b, err := memory.Alloc[int64](ctx, 4)
				if err != nil {
					return err
				}
				defer b.Close()
				all, err := memory.Alloc[int64](ctx, 4*ranks)
				if err != nil {
					return err
				}
				defer all.Close()
				for round := range rounds {
					v := int64(round*10 + rank)
					if err := memory.CopyToDeviceAsync(s, b, []int64{v, v, v, v}); err != nil {
						return err
					}
					switch round % 3 {
					case 0:
						err = nccl.AllReduce(c, s, b, b, nccl.Sum)
					case 1:
						err = nccl.Broadcast(c, s, b, b, round%ranks)
					case 2:
						err = nccl.AllGather(c, s, b, all)
					}
					if err != nil {
						return err
					}
					if (round+rank)%4 != 0 { // ranks synchronize at different rounds
						continue
					}
					if err := s.Synchronize(); err != nil {
						return err
					}
					got := make([]int64, 4)
					if err := memory.CopyToHost(got, b); err != nil {
						return err
					}
					var want int64
					switch round % 3 {
					case 0:
						want = int64(ranks*round*10 + ranks*(ranks-1)/2)
					case 1:
						want = int64(round*10 + round%ranks)
					case 2:
						want = v
						gathered := make([]int64, 4*ranks)
						if err := memory.CopyToHost(gathered, all); err != nil {
							return err
						}
						for r := range ranks {
							if gathered[4*r] != int64(round*10+r) {
								return fmt.Errorf("round %d: gathered %v", round, gathered)
							}
						}
					}
					if got[0] != want || got[3] != want {
						return fmt.Errorf("rank %d round %d: got %v, want %d", rank, round, got, want)
					}
				}
				return s.Synchronize()
			}()
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
}

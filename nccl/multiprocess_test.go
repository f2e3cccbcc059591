package nccl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/cudatest"
	"github.com/nocgo/cuda/nccl"
	"github.com/nocgo/cuda/stream"
)

// The multi-process tests run this test binary twice more, as rank 0 and
// rank 1, each driving one GPU; rank 0 writes the UniqueID to a file that
// rank 1 reads: the multi-node path, on one host. They need the real NCCL:
// the fake's NCCL lives in one process (TestConformanceFake's
// NewCommGoroutines is its form of this, with goroutines for processes).

const (
	childRankEnv = "NOCGO_NCCL_TEST_RANK"
	childDirEnv  = "NOCGO_NCCL_TEST_DIR"
)

func TestMultiProcess(t *testing.T) {
	realDriver(t, 2)
	t.Run("default", func(t *testing.T) { runRanks(t, nil, "") })
	// No peer-to-peer, no shared memory, no InfiniBand: the ranks talk
	// through sockets, as across machines with no faster network.
	t.Run("socket", func(t *testing.T) {
		runRanks(t, []string{"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1", "NCCL_IB_DISABLE=1", "NCCL_DEBUG=INFO"}, "NET/Socket")
	})
}

// runRanks runs the two ranks with env added, and checks that both passed
// and that the output holds want.
func runRanks(t *testing.T, env []string, want string) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	outs := make([]strings.Builder, 2)
	cmds := make([]*exec.Cmd, 2)
	for rank := range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestMultiProcessRank$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childRankEnv+"="+strconv.Itoa(rank), childDirEnv+"="+dir)
		cmd.Env = append(cmd.Env, env...)
		// NCCL logs to stdout through C's stdio, which a pipe buffers and
		// a Go exit never flushes: a file (unbuffered by NCCL) keeps it.
		cmd.Env = append(cmd.Env, "NCCL_DEBUG_FILE="+filepath.Join(dir, "nccl.%p.log"))
		cmd.Stdout, cmd.Stderr = &outs[rank], &outs[rank]
		require.NoError(t, cmd.Start())
		cmds[rank] = cmd
	}
	var errs []error
	for rank, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			errs = append(errs, fmt.Errorf("rank %d: %w", rank, err))
		}
	}
	for rank := range outs {
		out := outs[rank].String()
		if len(out) > 8000 {
			out = "...\n" + out[len(out)-8000:]
		}
		t.Logf("rank %d:\n%s", rank, out)
		require.Contains(t, outs[rank].String(), fmt.Sprintf("rank %d of 2: collectives correct", rank))
	}
	require.NoError(t, errors.Join(errs...))
	if want != "" {
		logs := outs[0].String() + outs[1].String()
		files, err := filepath.Glob(filepath.Join(dir, "nccl.*.log"))
		require.NoError(t, err)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			logs += string(b)
		}
		require.Contains(t, logs, want, "NCCL's logs (%d files) name the transport", len(files))
	}
}

// TestMultiProcessRank is one rank of TestMultiProcess; it skips unless run
// by it.
func TestMultiProcessRank(t *testing.T) {
	rankText := os.Getenv(childRankEnv)
	if rankText == "" {
		t.Skip("run by TestMultiProcess")
	}
	rank, err := strconv.Atoi(rankText)
	require.NoError(t, err)
	dir := os.Getenv(childDirEnv)
	drv := cudatest.Real(t)
	ctx := primary(t, drv, rank)

	idFile := filepath.Join(dir, "id")
	var id nccl.UniqueID
	if rank == 0 {
		id, err = nccl.NewUniqueID(ctx)
		require.NoError(t, err)
		text, err := id.MarshalText()
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(idFile+".tmp", text, 0o600))
		require.NoError(t, os.Rename(idFile+".tmp", idFile)) // atomic: rank 1 never reads half an id
	} else {
		deadline := time.Now().Add(time.Minute)
		for {
			text, err := os.ReadFile(idFile)
			if err == nil {
				require.NoError(t, id.UnmarshalText(text))
				break
			}
			require.True(t, time.Now().Before(deadline), "no id from rank 0: %v", err)
			time.Sleep(10 * time.Millisecond)
		}
	}
	comm, err := nccl.NewComm(ctx, 2, id, rank, nil)
	require.NoError(t, err)
	defer func() { require.NoError(t, comm.Close()) }()
	require.Equal(t, rank, comm.Rank())
	require.Equal(t, 2, comm.Count())

	s, err := stream.New(ctx, stream.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()

	const n = 1 << 20
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i%977) * float32(rank+1)
	}
	buf := upload(t, ctx, host)
	require.NoError(t, nccl.AllReduce(comm, s, buf, buf, nccl.Sum))
	gathered := zeros[int64](t, ctx, 2*3)
	mine := upload(t, ctx, []int64{int64(rank), int64(10 * rank), int64(100 * rank)})
	require.NoError(t, nccl.AllGather(comm, s, mine, gathered))
	got := zeros[int32](t, ctx, 4)
	sent := upload(t, ctx, []int32{int32(rank), 1, 2, 3})
	require.NoError(t, nccl.Group(func() error {
		if err := nccl.Send(comm, s, sent, 1-rank); err != nil {
			return err
		}
		return nccl.Recv(comm, s, got, 1-rank)
	}))
	require.NoError(t, s.Synchronize())
	require.NoError(t, comm.AsyncError())

	sum := download(t, buf)
	for i, v := range sum {
		if v != float32(i%977)*3 {
			t.Fatalf("AllReduce element %d = %v, want %v", i, v, float32(i%977)*3)
		}
	}
	require.Equal(t, []int64{0, 0, 0, 1, 10, 100}, download(t, gathered))
	require.Equal(t, []int32{int32(1 - rank), 1, 2, 3}, download(t, got))
	t.Logf("rank %d of 2: collectives correct", rank)
}

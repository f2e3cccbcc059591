// Package nccl runs collectives across GPUs — all-reduce, broadcast,
// reduce, all-gather, reduce-scatter, send and receive — with NVIDIA's
// NCCL (libnccl.so.2), the transport under PyTorch distributed, JAX and
// Megatron, with no cgo. libnccl is opened when first needed, found as
// package loader finds libcuda: NOCGO_CUDA_LIBNCCL, libnccl.so.2 through
// the system loader, the CUDA directories, and the nvidia/nccl/lib
// directory of the NCCL pip wheel. On the fake driver (package fake) the
// same code runs on an in-process NCCL across the fake devices, so that
// multi-GPU Go code is tested with no GPU.
//
// # Communicators
//
// A Comm is one rank of a communicator, on one device. One process driving
// all its GPUs makes every rank at once:
//
//	comms, err := nccl.NewComms([]*driver.Context{ctx0, ctx1})
//
// One process per GPU (on one machine or many) makes its own rank: rank 0
// makes a UniqueID, sends it to the others by any channel (its text form is
// 256 hexadecimal characters: an environment variable, a file, an HTTP
// response), and every rank calls NewComm with it:
//
//	id, err := nccl.NewUniqueID(ctx)             // on rank 0
//	text, _ := id.MarshalText()                  // send text to the other ranks
//	comm, err := nccl.NewComm(ctx, nranks, id, rank, nil)
//
// Communicators work in a device's primary context (driver.Device.
// PrimaryContext, or a wrapped context of another runtime), since NCCL's
// own threads use it. Close destroys a communicator, Abort ends it at once
// (after a peer failed); AsyncError reports failures on the device or of a
// peer; Split divides one into smaller ones.
//
// # Collectives
//
// The collectives are generic functions (methods cannot be), over
// memory.Buffer[T] and stream.Stream:
//
//	err := nccl.AllReduce(comm, s, send, recv, nccl.Sum)
//
// T is one of NCCL's types (Elem: int8, uint8, int32, uint32, int64,
// uint64, float32, float64, and the raw 16-bit Float16 and BFloat16).
// Lengths, in-place forms, devices and open objects are checked before NCCL
// sees anything; a refused call queues nothing, so the ranks stay in step.
// Every rank calls the same collectives in the same order. One goroutine
// driving several communicators (NewComms), or a rank that sends to and
// receives from its peers, puts its calls in one Group:
//
//	err := nccl.Group(func() error {
//		for i, c := range comms {
//			if err := nccl.AllReduce(c, streams[i], bufs[i], bufs[i], nccl.Sum); err != nil {
//				return err
//			}
//		}
//		return nil
//	})
//
// The calls return once the work is queued on the streams; the streams run
// it when all ranks have queued theirs.
//
// # Peers that never come: non-blocking communicators, deadlines, Abort
//
// A collective waiting for a rank that never queues its part waits on its
// stream, as on the GPU: Stream.Query says not done, and the waits with a
// context.Context (stream.Stream.SynchronizeContext, stream.Event's,
// driver.Context's, memory.CopyToHostContext) return at their deadline.
// Comm.Abort then ends the rank's collective (NCCL's kernel returns with
// no result), so that the stream's later work runs; each rank aborts its
// own. A communicator whose peers may never join is made non-blocking
// (Config{NonBlocking: true}): NewComm returns at once, Comm.Wait waits
// for the other ranks with a deadline, and Abort ends it when they miss it:
//
//	c, err := nccl.NewComm(ctx, nranks, id, rank, &nccl.Config{NonBlocking: true})
//	...
//	if err := c.Wait(deadline); err != nil {
//		c.Abort() // the others did not come in time
//	}
//
// # Across machines
//
// The same program runs across nodes unchanged: start one process per GPU
// on each node (a job launcher, SSH, Kubernetes), give each its rank and
// the total, and pass rank 0's UniqueID to the others. The id holds the
// address rank 0 listens on for NCCL's bootstrap, so the ranks must reach
// it, and whoever reads the id can join: keep it within the job. NCCL's own
// environment variables choose the network:
//
//   - NCCL_SOCKET_IFNAME=eth0 (or =^docker,lo to exclude): the interface
//     for the bootstrap and the socket transport, when the default guess
//     picks a wrong one;
//   - NCCL_IB_HCA, NCCL_IB_DISABLE=1: which InfiniBand/RoCE adapters to use,
//     or none (sockets only); NCCL_NET_GDR_LEVEL for GPUDirect RDMA;
//   - NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET): what NCCL found and which
//     transport each channel uses ("via NET/IB", "via NET/Socket", "via
//     P2P"); NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 force the network path
//     on one machine, which is how this package's tests exercise it.
//
// # The fake
//
// On the fake, ranks are communicators on fake devices of one *driver.Driver
// (fake.New(fake.Devices(n))), in one process: NewComms, or NewComm from a
// goroutine per rank meeting by UniqueID. Collectives are stream work and
// respect stream order: a rank's stream waits at a collective until every
// rank has queued its part. Results are computed in the element type, with
// NCCL's Avg (see package fake); the fake cannot cross processes.
package nccl

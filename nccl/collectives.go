package nccl

import (
	"errors"
	"fmt"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
	"github.com/nocgo/cuda/memory"
	"github.com/nocgo/cuda/stream"
)

// The collectives queue their work on a stream of the communicator's device
// and return; the stream runs it once every rank has queued its part (a
// rank's stream waits for the others, as on the GPU). Every rank must call
// the same collectives in the same order, with the same counts, root and
// reduction. Arguments are checked before NCCL sees them, and a refused call
// changes nothing: the communicator, stream and buffers must be open and on
// one device, the buffers' lengths must agree as each collective says, and
// buffers that overlap must do so exactly as the in-place form says.
//
// Buffers of zero elements queue nothing (as NCCL does for a count of 0),
// once checked.

// AllReduce reduces send across all ranks with op and leaves the result in
// recv on every rank (ncclAllReduce). send and recv have the same length;
// they are the same buffer for the in-place form.
func AllReduce[T Elem](c *Comm, s *stream.Stream, send, recv *memory.Buffer[T], op Op) (err error) {
	const name = "nccl.AllReduce"
	if err := c.checkCall(name, s, op); err != nil {
		return err
	}
	if err := c.buffers(name, send, recv); err != nil {
		return err
	}
	if send.Len() != recv.Len() {
		return lenError(name, "recv", recv.Len(), "send's", send.Len())
	}
	if err := inPlace(name, send, recv, 0); err != nil {
		return err
	}
	if send.Len() == 0 {
		return nil
	}
	return c.do(name, s, held[T]{send}, held[T]{recv}, func() error {
		return c.n.AllReduce(send.Ptr(), recv.Ptr(), uintptr(send.Len()), dataType[T](), backend.NCCLRedOp(op), c.h, s.Handle())
	})
}

// Broadcast copies root's send into recv on every rank (ncclBroadcast).
// send is read on root only and may be nil elsewhere; on root it has recv's
// length, and is recv itself for the in-place form.
func Broadcast[T Elem](c *Comm, s *stream.Stream, send, recv *memory.Buffer[T], root int) (err error) {
	const name = "nccl.Broadcast"
	if err := c.checkCall(name, s, Sum); err != nil {
		return err
	}
	if err := c.root(name, root); err != nil {
		return err
	}
	offRoot := c.rank != root && send == nil // NCCL gets NULL, as it allows off root
	if offRoot {
		send = recv // for the checks
	}
	if err := c.buffers(name, send, recv); err != nil {
		return err
	}
	if c.rank == root && send.Len() != recv.Len() {
		return lenError(name, "recv", recv.Len(), "root's send's", send.Len())
	}
	if c.rank == root {
		if err := inPlace(name, send, recv, 0); err != nil {
			return err
		}
	}
	if recv.Len() == 0 {
		return nil
	}
	return c.do(name, s, held[T]{send}, held[T]{recv}, func() error {
		sendPtr := send.Ptr()
		if offRoot {
			sendPtr = 0
		}
		return c.n.Broadcast(sendPtr, recv.Ptr(), uintptr(recv.Len()), dataType[T](), root, c.h, s.Handle())
	})
}

// Reduce reduces send across all ranks with op into root's recv
// (ncclReduce). recv is written on root only and may be nil elsewhere; on
// root it has send's length, and is send itself for the in-place form.
func Reduce[T Elem](c *Comm, s *stream.Stream, send, recv *memory.Buffer[T], op Op, root int) (err error) {
	const name = "nccl.Reduce"
	if err := c.checkCall(name, s, op); err != nil {
		return err
	}
	if err := c.root(name, root); err != nil {
		return err
	}
	offRoot := c.rank != root && recv == nil // NCCL gets NULL, as it allows off root
	if offRoot {
		recv = send // for the checks
	}
	if err := c.buffers(name, send, recv); err != nil {
		return err
	}
	if c.rank == root && send.Len() != recv.Len() {
		return lenError(name, "root's recv", recv.Len(), "send's", send.Len())
	}
	if c.rank == root {
		if err := inPlace(name, send, recv, 0); err != nil {
			return err
		}
	}
	if send.Len() == 0 {
		return nil
	}
	return c.do(name, s, held[T]{send}, held[T]{recv}, func() error {
		recvPtr := recv.Ptr()
		if offRoot {
			recvPtr = 0
		}
		return c.n.Reduce(send.Ptr(), recvPtr, uintptr(send.Len()), dataType[T](), backend.NCCLRedOp(op), root, c.h, s.Handle())
	})
}

// AllGather gathers every rank's send into recv on every rank, rank i's at
// element i*send.Len() (ncclAllGather). recv holds Count()*send.Len()
// elements; the in-place form passes recv's own rank slice as send
// (recv.Slice(r*n, (r+1)*n) on rank r).
func AllGather[T Elem](c *Comm, s *stream.Stream, send, recv *memory.Buffer[T]) (err error) {
	const name = "nccl.AllGather"
	if err := c.checkCall(name, s, Sum); err != nil {
		return err
	}
	if err := c.buffers(name, send, recv); err != nil {
		return err
	}
	if want, ok := times(c.count, send.Len()); !ok || recv.Len() != want {
		return lenError(name, "recv", recv.Len(), fmt.Sprintf("%d ranks × send's", c.count), send.Len())
	}
	if err := inPlace(name, send, recv, uintptr(c.rank)*uintptr(send.Size())); err != nil {
		return err
	}
	if send.Len() == 0 {
		return nil
	}
	return c.do(name, s, held[T]{send}, held[T]{recv}, func() error {
		return c.n.AllGather(send.Ptr(), recv.Ptr(), uintptr(send.Len()), dataType[T](), c.h, s.Handle())
	})
}

// ReduceScatter reduces send across all ranks with op and leaves block i of
// the result (recv.Len() elements at i*recv.Len()) in rank i's recv
// (ncclReduceScatter). send holds Count()*recv.Len() elements; the in-place
// form passes send's own rank slice as recv.
func ReduceScatter[T Elem](c *Comm, s *stream.Stream, send, recv *memory.Buffer[T], op Op) (err error) {
	const name = "nccl.ReduceScatter"
	if err := c.checkCall(name, s, op); err != nil {
		return err
	}
	if err := c.buffers(name, send, recv); err != nil {
		return err
	}
	if want, ok := times(c.count, recv.Len()); !ok || send.Len() != want {
		return lenError(name, "send", send.Len(), fmt.Sprintf("%d ranks × recv's", c.count), recv.Len())
	}
	if err := inPlace(name, recv, send, uintptr(c.rank)*uintptr(recv.Size())); err != nil {
		return err
	}
	if recv.Len() == 0 {
		return nil
	}
	return c.do(name, s, held[T]{send}, held[T]{recv}, func() error {
		return c.n.ReduceScatter(send.Ptr(), recv.Ptr(), uintptr(recv.Len()), dataType[T](), backend.NCCLRedOp(op), c.h, s.Handle())
	})
}

// Send sends buf to rank peer, which receives it with a Recv of the same
// length and type (ncclSend). A rank that sends to and receives from its
// peers puts its Send and Recv calls in one Group, or it waits forever.
func Send[T Elem](c *Comm, s *stream.Stream, buf *memory.Buffer[T], peer int) error {
	const name = "nccl.Send"
	return p2p(c, s, buf, peer, name, c.sendFn)
}

// Recv receives into buf what rank peer sends with Send (ncclRecv).
func Recv[T Elem](c *Comm, s *stream.Stream, buf *memory.Buffer[T], peer int) error {
	const name = "nccl.Recv"
	return p2p(c, s, buf, peer, name, c.recvFn)
}

func (c *Comm) sendFn(p, n uintptr, dt backend.NCCLDataType, peer int, s uintptr) error {
	return c.n.Send(p, n, dt, peer, c.h, s)
}

func (c *Comm) recvFn(p, n uintptr, dt backend.NCCLDataType, peer int, s uintptr) error {
	return c.n.Recv(p, n, dt, peer, c.h, s)
}

func p2p[T Elem](c *Comm, s *stream.Stream, buf *memory.Buffer[T], peer int, name string,
	f func(p, n uintptr, dt backend.NCCLDataType, peer int, s uintptr) error) error {
	if err := c.checkCall(name, s, Sum); err != nil {
		return err
	}
	if peer < 0 || peer >= c.count {
		return fmt.Errorf("%s: %s: peer %d out of range [0, %d): %w", name, c, peer, c.count, driver.ErrInvalidInput)
	}
	if err := c.buffers(name, buf, buf); err != nil {
		return err
	}
	if buf.Len() == 0 {
		return nil
	}
	return c.do(name, s, held[T]{buf}, held[T]{buf}, func() error { return f(buf.Ptr(), uintptr(buf.Len()), dataType[T](), peer, s.Handle()) })
}

// checkCall checks the communicator, the reduction and the stream.
func (c *Comm) checkCall(name string, s *stream.Stream, op Op) error {
	if err := c.check(name); err != nil {
		return err
	}
	if !op.valid() {
		return fmt.Errorf("%s: %v: not a reduction: %w", name, op, driver.ErrInvalidInput)
	}
	q := core.QueueOf(s)
	if q == nil {
		return fmt.Errorf("%s: nil or zero stream: %w", name, driver.ErrInvalidInput)
	}
	if err := q.Hold.Check(q.What); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if s.Context().Device() != c.Device() {
		return fmt.Errorf("%s: stream %#x of %s is not on %s's device: %w", name, s.Handle(), s.Context(), c, driver.ErrWrongContext)
	}
	return nil
}

func (c *Comm) root(name string, root int) error {
	if root < 0 || root >= c.count {
		return fmt.Errorf("%s: %s: root %d out of range [0, %d): %w", name, c, root, c.count, driver.ErrInvalidInput)
	}
	return nil
}

// buffers checks that send and recv are open buffers on the communicator's
// device.
func (c *Comm) buffers(name string, bufs ...interface {
	Closed() bool
	Context() *driver.Context
	String() string
}) error {
	for i, b := range bufs {
		role := [2]string{"send", "recv"}[i]
		if b == nil || b.Context() == nil {
			return fmt.Errorf("%s: %s: nil buffer: %w", name, role, driver.ErrInvalidInput)
		}
		if b.Closed() {
			return fmt.Errorf("%s: %s: %s: %w", name, role, b, driver.ErrClosed)
		}
		if b.Context().Device() != c.Device() {
			return fmt.Errorf("%s: %s: %s is not on %s's device: %w", name, role, b, c, driver.ErrWrongContext)
		}
	}
	return nil
}

// do makes one NCCL call with the communicator's context bound, joining the
// calling thread's Group if there is one, and waits out ncclInProgress of a
// non-blocking communicator outside a group.
//
// For the whole call it holds s and the memory of send and recv (checked
// by checkCall and buffers) as well as the communicator: a Close of any of
// them waits for it, so NCCL never gets a destroyed stream or freed memory,
// and one in progress or done makes the call fail with driver.ErrClosed.
func (c *Comm) do(name string, s *stream.Stream, send, recv holder, call func() error) (err error) {
	g := currentGroup()
	if g != nil {
		defer func() { g.note(c, err) }() // after the unbind's error, if any
	}
	if err := c.ready(); err != nil {
		return fmt.Errorf("%s: %s: %w", name, c, err)
	}
	b, err := c.hold.Bind()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer b.Done(&err)
	q := core.QueueOf(s)
	if err := q.Hold.Use(q.What); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer q.Hold.Unuse()
	sh, rh := send.hold(), recv.hold()
	if err := sh.Use(send); err != nil {
		return fmt.Errorf("%s: send: %w", name, err)
	}
	defer sh.Unuse()
	if err := rh.Use(recv); err != nil {
		return fmt.Errorf("%s: recv: %w", name, err)
	}
	defer rh.Unuse()
	if g != nil {
		if err := g.join(c.n, c.hold.Context().API, c); err != nil {
			return fmt.Errorf("%s: %s: %w", name, c, err)
		}
	}
	err = call()
	if g != nil {
		g.tell(err)
	}
	if g == nil && errors.Is(err, InProgress) {
		err = c.await()
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", name, c, err)
	}
	return nil
}

// holder is a buffer of a collective: its String for errors, and the hold
// of its memory.
type holder interface {
	String() string
	hold() *core.Hold
}

// held is a *memory.Buffer[T] as a holder.
type held[T any] struct{ b *memory.Buffer[T] }

func (h held[T]) String() string   { return h.b.String() }
func (h held[T]) hold() *core.Hold { return core.HoldOf(h.b) }

// inPlace checks how part (send of AllGather, recv of ReduceScatter, or
// either buffer of the others) and whole overlap: not at all, or with part
// exactly at offset bytes into whole (the in-place form).
func inPlace[T any](name string, part, whole *memory.Buffer[T], offset uintptr) error {
	p, w := part.Ptr(), whole.Ptr()
	pn, wn := uintptr(part.Size()), uintptr(whole.Size())
	if pn == 0 || wn == 0 || p+pn <= w || w+wn <= p {
		return nil // disjoint
	}
	if p == w+offset {
		return nil // the in-place form
	}
	return fmt.Errorf("%s: %s and %s overlap, but not as the in-place form (at byte %d): %w",
		name, part, whole, offset, driver.ErrInvalidInput)
}

func lenError(name, what string, got int, of string, want int) error {
	return fmt.Errorf("%s: %s holds %d elements; it must match %s %d: %w", name, what, got, of, want, driver.ErrInvalidInput)
}

// times returns a*b and whether it fits an int.
func times(a, b int) (int, bool) {
	if b != 0 && a > (1<<62)/b {
		return 0, false
	}
	return a * b, true
}

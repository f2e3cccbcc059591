package nccl

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/core"
)

// Comm is one rank's communicator (ncclComm_t) on one device. It is owned:
// Close destroys it (ncclCommDestroy), Abort aborts it (ncclCommAbort);
// either twice is nil, and every other method after them returns an error
// wrapping driver.ErrClosed. It holds its context until then (see
// driver.Context), so it keeps working after the *driver.Context is
// released.
//
// A communicator's collectives must be issued in the same order on every
// rank. Methods are safe for concurrent use, but NCCL calls on one
// communicator must not run concurrently: serialise them (one goroutine per
// communicator, or Group from one goroutine for several).
type Comm struct {
	n           backend.NCCL
	hold        *core.Hold
	ctx         *driver.Context
	h           uintptr  // the ncclComm_t; 0 until a Split in a Group ends (see ident)
	slot        *uintptr // where NCCL stores h, possibly after the call returns
	noColor     *uintptr // the slot of the last Split with no color
	rank, count int
	nonBlocking bool
	pending     atomic.Bool // a non-blocking NewComm handed out before NCCL was done (see Wait)
	parent      *Comm       // the parent of a non-blocking communicator split in a Group, until polled done
	polled      uintptr     // the handle such a communicator's poll read; guarded by pollMu

	mu      sync.Mutex // serialises Close and Abort
	identMu sync.Mutex // guards rank and count while they are -1 (Split in a Group)
	pollMu  sync.Mutex // serialises polls (ncclCommGetAsyncError) with the destroying call
	ended   bool       // destroyed or aborted; guarded by pollMu
}

// Config is a communicator's configuration (ncclConfig_t). The zero Config
// is NCCL's defaults.
type Config struct {
	// NonBlocking makes NCCL calls return while the work is in progress
	// (ncclInProgress), as NCCL's config.blocking = 0 does: NewComm
	// returns the communicator at once, still being made (AsyncError
	// wraps InProgress; Comm.Wait waits for it, with a deadline), so that
	// Abort can end one whose peers never come. The package waits for the
	// work in progress before the next call that needs it (polling
	// ncclCommGetAsyncError, which Abort from another goroutine ends).
	NonBlocking bool
	// CGAClusterSize, MinCTAs and MaxCTAs bound NCCL's use of the GPU
	// (thread block clusters and CTAs, that is channels); 0 leaves each to
	// NCCL.
	CGAClusterSize, MinCTAs, MaxCTAs int
	// SplitShare makes communicators split from this one share its
	// resources.
	SplitShare bool
	// NetName picks the network module ("IB", "Socket", a plugin's name);
	// "" leaves it to NCCL.
	NetName string
}

// seam returns the configuration for the seam, or an error for values out
// of range.
func (c *Config) seam(op string) (*backend.NCCLConfig, error) {
	if c == nil {
		return nil, nil
	}
	undef := func(v int) (int32, error) {
		switch {
		case v == 0:
			return backend.NCCLConfigUndef, nil
		case v < 0 || v > 1<<20:
			return 0, fmt.Errorf("%s: config value %d out of range: %w", op, v, driver.ErrInvalidInput)
		}
		return int32(v), nil
	}
	cfg := &backend.NCCLConfig{Blocking: 1, SplitShare: backend.NCCLConfigUndef, NetName: c.NetName}
	if c.NonBlocking {
		cfg.Blocking = 0
	}
	if c.SplitShare {
		cfg.SplitShare = 1
	}
	var err error
	if cfg.CGAClusterSize, err = undef(c.CGAClusterSize); err != nil {
		return nil, err
	}
	if cfg.MinCTAs, err = undef(c.MinCTAs); err != nil {
		return nil, err
	}
	if cfg.MaxCTAs, err = undef(c.MaxCTAs); err != nil {
		return nil, err
	}
	if c.MinCTAs > 0 && c.MaxCTAs > 0 && c.MinCTAs > c.MaxCTAs {
		return nil, fmt.Errorf("%s: MinCTAs %d > MaxCTAs %d: %w", op, c.MinCTAs, c.MaxCTAs, driver.ErrInvalidInput)
	}
	return cfg, nil
}

// ncclOf returns the NCCL of ctx's backend.
func ncclOf(op string, ctx *driver.Context) (backend.NCCL, error) {
	c, err := core.Of(op, ctx)
	if err != nil {
		return nil, err
	}
	if ctx.Closed() {
		return nil, fmt.Errorf("%s: %s: %w", op, ctx, driver.ErrClosed)
	}
	p, ok := c.API.(backend.NCCLProvider)
	if !ok {
		return nil, fmt.Errorf("%s: this backend has no NCCL (backend.NCCLProvider): %w", op, errors.ErrUnsupported)
	}
	n, err := p.NCCL()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return n, nil
}

// checkContext refuses contexts NCCL cannot work in: NCCL's own threads use
// the device's primary context (through the CUDA runtime), so memory and
// streams of a context created with driver.Device.NewContext are not theirs.
func checkContext(op string, ctx *driver.Context) error {
	if ctx.Kind() == driver.Owned {
		return fmt.Errorf("%s: %s: NCCL works in a device's primary context; use driver.Device.PrimaryContext: %w",
			op, ctx, driver.ErrInvalidContext)
	}
	return nil
}

// Version returns the version of the NCCL of ctx's driver (ncclGetVersion),
// opening libnccl on first use for the real driver.
func Version(ctx *driver.Context) (major, minor, patch int, err error) {
	const op = "nccl.Version"
	n, err := ncclOf(op, ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	v, err := n.Version()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	if v < 10000 { // before 2.9: major*1000 + minor*100 + patch
		return v / 1000, v % 1000 / 100, v % 100, nil
	}
	return v / 10000, v % 10000 / 100, v % 100, nil
}

// NewComm makes rank's communicator of nranks, one rank per call, on ctx's
// device (ncclCommInitRankConfig): every rank calls it with the same id
// (made by NewUniqueID on one of them) and it returns once all nranks have
// joined. Ranks are usually separate processes, possibly on other machines
// (see the package documentation); several ranks in one process each need
// their own goroutine, or one Group around their NewComm calls. cfg nil is
// NCCL's defaults. ctx must be a primary (or wrapped) context.
//
// With cfg.NonBlocking, outside a Group, NewComm returns at once, as NCCL
// does (ncclInProgress): the communicator is made meanwhile, and the caller
// owns it from now on. [Comm.Wait] waits for it (with a deadline),
// [Comm.AsyncError] tells how it stands, [Comm.Abort] ends it when its
// peers never come, and the calls that need it made wait for it first. A
// rank's init that fails outright (bad arguments) still returns an error.
func NewComm(ctx *driver.Context, nranks int, id UniqueID, rank int, cfg *Config) (*Comm, error) {
	const op = "nccl.NewComm"
	n, err := ncclOf(op, ctx)
	if err != nil {
		return nil, err
	}
	if err := checkContext(op, ctx); err != nil {
		return nil, err
	}
	if nranks < 1 || nranks > 1<<30 || rank < 0 || rank >= nranks {
		return nil, fmt.Errorf("%s: rank %d of %d ranks: %w", op, rank, nranks, driver.ErrInvalidInput)
	}
	sc, err := cfg.seam(op)
	if err != nil {
		return nil, err
	}
	hold, err := core.ContextOf(ctx).Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	slot := new(uintptr) // NCCL may write it after the call returns: kept in the Comm
	g := currentGroup()
	err = hold.Do(func(api backend.API) error {
		if g != nil {
			if err := g.join(n, api, nil); err != nil {
				return err
			}
		}
		err := n.CommInitRank(nranks, backend.NCCLUniqueID(id), rank, sc, slot)
		if g != nil {
			g.tell(err)
		}
		return err
	})
	h := *slot
	c := &Comm{n: n, hold: hold, ctx: ctx, h: h, slot: slot, rank: rank, count: nranks, nonBlocking: cfg != nil && cfg.NonBlocking}
	switch {
	case c.nonBlocking && h != 0 && (err == nil || errors.Is(err, InProgress)):
		// In progress: handed out now, waited for by Wait, the group's
		// end, or the first call that needs it.
		err = nil
		c.pending.Store(g == nil)
	case errors.Is(err, InProgress):
		err = fmt.Errorf("ncclInProgress from a blocking init, or with no communicator: %w", err)
	}
	if err == nil && g != nil && c.nonBlocking {
		g.comms = append(g.comms, c)
	}
	if g != nil {
		g.note(nil, err) // a failed rank fails the group: the others would wait for it
	}
	if err != nil {
		if h != 0 {
			_ = n.CommAbort(h)
		}
		return nil, hold.Drop(fmt.Errorf("%s: rank %d of %d on %s: %w", op, rank, nranks, ctx, err))
	}
	if g != nil {
		g.add(c) // aborted if the group fails
	}
	return c, nil
}

// NewComms makes one communicator per context, all in this process
// (ncclCommInitAll): rank i on ctxs[i]'s device. The devices must differ;
// each context must be a primary (or wrapped) context. On failure nothing is
// left made.
func NewComms(ctxs []*driver.Context) (_ []*Comm, err error) {
	const op = "nccl.NewComms"
	if len(ctxs) == 0 {
		return nil, fmt.Errorf("%s: no contexts: %w", op, driver.ErrInvalidInput)
	}
	n, err := ncclOf(op, ctxs[0])
	if err != nil {
		return nil, err
	}
	devs := make([]int, len(ctxs))
	seen := map[*driver.Device]int{}
	for i, ctx := range ctxs {
		if _, err := core.Of(op, ctx); err != nil {
			return nil, fmt.Errorf("%s: contexts[%d]: %w", op, i, unwrapOp(err))
		}
		if err := checkContext(op, ctx); err != nil {
			return nil, err
		}
		if ctx.Driver() != ctxs[0].Driver() {
			return nil, fmt.Errorf("%s: contexts[%d] belongs to another driver: %w", op, i, driver.ErrInvalidInput)
		}
		if j, dup := seen[ctx.Device()]; dup {
			return nil, fmt.Errorf("%s: contexts[%d] and [%d] are on the same device: %w", op, j, i, driver.ErrInvalidInput)
		}
		seen[ctx.Device()] = i
		devs[i] = ctx.Device().Ordinal() // ncclCommInitAll takes CUDA runtime device numbers
	}
	holds := make([]*core.Hold, 0, len(ctxs))
	defer func() {
		if err != nil {
			for _, h := range holds {
				err = h.Drop(err)
			}
		}
	}()
	for _, ctx := range ctxs {
		h, err := core.ContextOf(ctx).Hold()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		holds = append(holds, h)
	}
	// ncclCommInitAll sets each device current in turn on this thread:
	// bind the first context, so that the thread gets its own back.
	var hs []uintptr
	err = holds[0].Do(func(api backend.API) error {
		var err error
		hs, err = n.CommInitAll(devs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %d devices: %w", op, len(devs), err)
	}
	comms := make([]*Comm, len(ctxs))
	for i, ctx := range ctxs {
		comms[i] = &Comm{n: n, hold: holds[i], ctx: ctx, h: hs[i], rank: i, count: len(ctxs)}
	}
	return comms, nil
}

// Rank returns the communicator's rank (-1 for a communicator Split inside
// a Group that has not ended yet).
func (c *Comm) Rank() int {
	if c == nil || c.ident() != nil {
		return -1
	}
	return c.rank
}

// Count returns the number of ranks (0 for a communicator Split inside a
// Group that has not ended yet).
func (c *Comm) Count() int {
	if c == nil || c.ident() != nil {
		return 0
	}
	return c.count
}

// ident learns the rank and count of a communicator made by Split, once:
// inside a Group they are known only at its end.
func (c *Comm) ident() error {
	c.identMu.Lock()
	defer c.identMu.Unlock()
	if c.rank >= 0 {
		return nil
	}
	if c.hold == nil || c.hold.Closed() {
		return driver.ErrClosed
	}
	return c.identify()
}

// identify reads the handle NCCL stored and asks NCCL for the rank and
// count. Called with identMu held, or before c is shared.
func (c *Comm) identify() error {
	if c.h == 0 {
		c.h = *c.slot
	}
	if c.h == 0 {
		return fmt.Errorf("NCCL made no communicator (did its group end?): %w", InvalidUsage)
	}
	rank, err := c.n.CommUserRank(c.h)
	if err != nil {
		return err
	}
	count, err := c.n.CommCount(c.h)
	if err != nil {
		return err
	}
	c.rank, c.count = rank, count
	return nil
}

// Context returns the context the communicator works in.
func (c *Comm) Context() *driver.Context {
	if c == nil {
		return nil
	}
	return c.ctx
}

// Device returns the communicator's device.
func (c *Comm) Device() *driver.Device {
	if c == nil || c.ctx == nil {
		return nil
	}
	return c.ctx.Device()
}

// Handle returns the ncclComm_t, 0 after Close or Abort. It stays owned by
// the Comm.
func (c *Comm) Handle() uintptr {
	if c == nil || c.hold == nil || c.hold.Closed() {
		return 0
	}
	return c.h
}

// String describes the communicator for errors and logs.
func (c *Comm) String() string {
	if c == nil || c.hold == nil {
		return "nil communicator"
	}
	return "communicator " + strconv.Itoa(c.rank) + "/" + strconv.Itoa(c.count) + " on " + c.ctx.String()
}

// check returns op's error for a nil or closed communicator.
func (c *Comm) check(op string) error {
	if c == nil || c.hold == nil {
		return fmt.Errorf("%s: nil communicator: %w", op, driver.ErrInvalidInput)
	}
	if err := c.hold.Check(c); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if err := c.ident(); err != nil {
		return fmt.Errorf("%s: %s: %w", op, c, err)
	}
	return nil
}

// AsyncError returns the communicator's asynchronous error
// (ncclCommGetAsyncError): nil while all is well, an error wrapping
// InProgress while a non-blocking communicator is still being made (or
// split; see Wait), an *Error when making it failed, a collective failed on
// the device or a peer failed (ncclRemoteError), after which the
// communicator must be aborted. It never waits.
func (c *Comm) AsyncError() error {
	const op = "nccl.Comm.AsyncError"
	if err := c.check(op); err != nil {
		return err
	}
	async, err := c.poll()
	if err != nil {
		return fmt.Errorf("%s: %s: %w", op, c, err)
	}
	if async == nil {
		c.pending.Store(false)
	}
	if async != nil {
		return fmt.Errorf("%s: %s: %w", op, c, async)
	}
	return nil
}

// Split makes communicators of the ranks that pass the same color
// (ncclCommSplit), ordered by key and then by rank here. Every rank of c
// must call it (from its own goroutine, or in one Group). A negative color
// joins no communicator: Split returns nil and no error. cfg nil inherits
// c's configuration.
func (c *Comm) Split(color, key int, cfg *Config) (*Comm, error) {
	const op = "nccl.Comm.Split"
	sc, err := c.splitArgs(op, &color, key, cfg)
	if err != nil {
		if g := currentGroup(); g != nil {
			// The other ranks' splits in the group would wait for this
			// one forever: the group fails (see Group).
			g.note(c, err)
		}
		return nil, err
	}
	if color == backend.NCCLSplitNoColor {
		// NCCL still needs the call (every rank takes part), and makes nothing.
		none := new(uintptr) // NCCL may write NULL there at the group's end
		c.noColor = none     // so it stays alive until the next Split
		g := currentGroup()
		err := c.hold.Do(func(api backend.API) error {
			if g != nil {
				if err := g.join(c.n, api, c); err != nil {
					return err
				}
			}
			err := c.n.CommSplit(c.h, color, key, sc, none)
			if g != nil {
				g.tell(err)
			}
			return err
		})
		if errors.Is(err, InProgress) && g == nil {
			err = c.await() // a non-blocking split completes on the parent
		} else if errors.Is(err, InProgress) {
			err = nil // the group's end waits
		}
		if g != nil {
			g.note(c, err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s, no color: %w", op, c, err)
		}
		return nil, nil
	}
	hold, err := core.ContextOf(c.ctx).Hold()
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, c, err)
	}
	slot := new(uintptr) // NCCL writes it when the split completes: kept in the Comm
	g := currentGroup()
	err = c.hold.Do(func(api backend.API) error {
		if g != nil {
			if err := g.join(c.n, api, c); err != nil {
				return err
			}
		}
		err := c.n.CommSplit(c.h, color, key, sc, slot)
		if g != nil {
			g.tell(err)
		}
		return err
	})
	child := &Comm{n: c.n, hold: hold, ctx: c.ctx, slot: slot, nonBlocking: c.nonBlocking, rank: -1, count: -1}
	if cfg != nil {
		child.nonBlocking = cfg.NonBlocking
	}
	if g != nil && child.nonBlocking {
		child.parent = c // polled through its parent until the split is done
	}
	switch {
	case g != nil && errors.Is(err, InProgress):
		err = nil // the group's end waits
	case g == nil && errors.Is(err, InProgress):
		err = c.await() // a non-blocking split completes on the parent
	}
	if err == nil && g == nil && atomic.LoadUintptr(slot) == 0 {
		// The NCCL of the H200 runs S2 and S3 returned from a split of a
		// non-blocking parent with the handle not yet written: its thread
		// writes it when the new communicator is made.
		err = child.awaitSplit()
	}
	if err == nil && g != nil && child.nonBlocking {
		g.comms = append(g.comms, child)
	}
	if err == nil && g == nil {
		err = child.identify()
	}
	if g != nil {
		g.note(c, err) // a failed rank fails the group: the others would wait for it
	}
	if err != nil {
		if h := *slot; h != 0 {
			_ = c.n.CommAbort(h)
		}
		return nil, hold.Drop(fmt.Errorf("%s: %s, color %d, key %d: %w", op, c, color, key, err))
	}
	if g != nil {
		g.add(child) // identified at the group's end, aborted if the group fails
	}
	return child, nil
}

// Close destroys the communicator (ncclCommDestroy) once the work it queued
// is done; Close again is nil. A failed destroy leaves it open, so that
// Close (or Abort) can be retried. A non-blocking communicator still being
// made, or whose making failed, is aborted instead (ncclCommAbort): NCCL's
// destroy would wait for peers that may never come.
func (c *Comm) Close() error {
	return c.end("nccl.Comm.Close", false, func(n backend.NCCL, h uintptr) error { return n.CommDestroy(h) })
}

// Abort ends the communicator at once (ncclCommAbort), stopping its work in
// flight, as after a failed peer: it is how a job gives up on a collective
// that cannot complete, or on a non-blocking NewComm or Split whose peers
// never come. Its collectives waiting on their streams for peers end
// without a result (NCCL's kernels return; nothing can be assumed about
// the buffers they were writing), so that the streams' work after them
// runs and waits on them return; the peers' own collectives wait until
// their communicators are aborted too. A Wait or a call waiting for the
// communicator in another goroutine returns an error wrapping
// driver.ErrClosed. After Close or Abort it is a no-op that returns nil.
func (c *Comm) Abort() error {
	return c.end("nccl.Comm.Abort", true, func(n backend.NCCL, h uintptr) error { return n.CommAbort(h) })
}

// end ends the communicator with f (ncclCommDestroy or ncclCommAbort):
// once the calls in progress on it are done, or at once for an abort, which
// is what stops a call stuck on a peer that never comes.
func (c *Comm) end(op string, abort bool, f func(n backend.NCCL, h uintptr) error) error {
	if c == nil || c.hold == nil {
		return fmt.Errorf("%s: nil communicator: %w", op, driver.ErrInvalidInput)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	destroy := func(backend.API) error {
		c.pollMu.Lock() // no poll runs during or after the destroy
		defer c.pollMu.Unlock()
		if !abort && c.nonBlocking {
			if async, err := c.n.CommGetAsyncError(c.h); err == nil && async != nil {
				// Still being made, or failed: ncclCommDestroy would wait
				// for the init (and its peers); abort it.
				f = func(n backend.NCCL, h uintptr) error { return n.CommAbort(h) }
			}
		}
		if err := f(c.n, c.h); err != nil && !errors.Is(err, InProgress) {
			return err // ncclInProgress: a non-blocking communicator finishing its teardown
		}
		c.ended = true
		return nil
	}
	if c.hold.Closed() {
		return nil
	}
	if c.ident() != nil {
		c.identMu.Lock()
		if c.h == 0 && c.slot != nil {
			c.h = *c.slot // made by NCCL, its rank and count not known
		}
		h := c.h
		c.identMu.Unlock()
		if h == 0 {
			c.pollMu.Lock()
			c.ended = true // NCCL made nothing to destroy, and nothing to poll
			c.pollMu.Unlock()
			destroy = nil
		}
	}
	closeHold := c.hold.Close
	if abort {
		closeHold = c.hold.Abort
	}
	if err := closeHold(destroy); err != nil {
		return fmt.Errorf("%s: %s: %w", op, c, err)
	}
	return nil
}

func unwrapOp(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// splitArgs checks Split's arguments (a negative color becomes
// NCCLSplitNoColor), and waits for c if it is still being made.
func (c *Comm) splitArgs(op string, color *int, key int, cfg *Config) (*backend.NCCLConfig, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	if *color < 0 {
		*color = backend.NCCLSplitNoColor
	}
	if *color > 1<<30 || key < -1<<30 || key > 1<<30 {
		return nil, fmt.Errorf("%s: color %d, key %d out of range: %w", op, *color, key, driver.ErrInvalidInput)
	}
	sc, err := cfg.seam(op)
	if err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op, c, err)
	}
	return sc, nil
}

package faultsweep

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
)

// errWrongResult is what a sequence returns when it computed a wrong value:
// a fault that was swallowed.
var errWrongResult = errors.New("faultsweep: wrong result")

// codes are the injected results: what the library must report clearly.
var codes = []struct {
	name string
	code driver.Result
}{
	{"OUT_OF_MEMORY", driver.ErrOutOfMemory},
	{"INVALID_VALUE", driver.ErrInvalidValue},
	{"ILLEGAL_ADDRESS", driver.ErrIllegalAddress},
	{"LAUNCH_FAILED", driver.ErrLaunchFailed},
	{"DEINITIALIZED", driver.ErrDeinitialized},
}

// closeAttempts is how often cleanup calls an object's Close before it
// gives up: one injected fault makes one Close fail at most once.
const closeAttempts = 3

// runTimeout bounds one run of a sequence: a run is a few milliseconds.
func runTimeout() time.Duration {
	if raceEnabled {
		return 2 * time.Minute
	}
	return 30 * time.Second
}

// knownTimeout bounds a run of a known bug's case, which may hang: short,
// so that the sweep does not wait the full timeout for each known hang,
// and still far above a run's milliseconds, so that a fixed bug passes.
func knownTimeout() time.Duration {
	if raceEnabled {
		return 3 * time.Second
	}
	return 2 * time.Second
}

// env is the world of one run: the fake backend (faulted), the Driver made
// over it, a peer process for IPC (never faulted) and what the sequence
// made, in order.
type env struct {
	b     fake.Backend
	drv   *driver.Driver
	peerB fake.Backend
	peerD *driver.Driver
	kept  []kept

	timeout time.Duration // of a run; 0: runTimeout()
}

type kept struct {
	what  string
	close func() error
}

func newEnv(opts ...fake.Option) *env {
	opts = append(append(options(), fake.CountCalls()), opts...)
	return &env{b: fake.NewBackend(opts...)}
}

// driver returns the Driver of the run, making it (cuInit) on first use.
func (e *env) driver() (*driver.Driver, error) {
	if e.drv != nil {
		return e.drv, nil
	}
	drv, err := driver.New(e.b)
	if err != nil {
		return nil, err
	}
	e.drv = drv
	return drv, nil
}

// peer returns the Driver of the peer process.
func (e *env) peer() *driver.Driver {
	if e.peerD == nil {
		e.peerB = fake.NewBackend(options()...)
		drv, err := driver.New(e.peerB)
		if err != nil {
			panic(err)
		}
		e.peerD = drv
	}
	return e.peerD
}

func (e *env) keep(what string, c interface{ Close() error }) { e.keepFunc(what, c.Close) }

func (e *env) keepFunc(what string, close func() error) {
	e.kept = append(e.kept, kept{what, close})
}

// cleanup closes everything kept, last first, retrying each Close until it
// succeeds (closeAttempts at most). It returns every error a Close returned
// and what never closed.
func (e *env) cleanup() (errs []error, unclosed []string) {
	for i := len(e.kept) - 1; i >= 0; i-- {
		k := e.kept[i]
		ok := false
		for a := 1; a <= closeAttempts && !ok; a++ {
			if err := k.close(); err != nil {
				errs = append(errs, fmt.Errorf("%s: Close attempt %d: %w", k.what, a, err))
			} else {
				ok = true
			}
		}
		if !ok {
			unclosed = append(unclosed, k.what)
		}
	}
	e.kept = nil
	return errs, unclosed
}

// outcome is what one run of a sequence did.
type outcome struct {
	body        error
	closeErrs   []error
	unclosed    []string
	panicked    string // the panic and its stack
	hung        string // every goroutine's stack, when the run timed out
	callsBefore map[string]int64
	leaks       []string
	peerLeaks   []string
}

// execute runs seq in e and then cleans up, on a goroutine of its own under
// runTimeout.
func execute(e *env, seq sequence) outcome {
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o.panicked = fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
			}
			done <- o
		}()
		o.body = seq.body(e)
		o.callsBefore = e.b.Fake().Calls()
		o.closeErrs, o.unclosed = e.cleanup()
	}()
	timeout := e.timeout
	if timeout == 0 {
		timeout = runTimeout()
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var o outcome
	select {
	case o = <-done:
	case <-timer.C:
		buf := make([]byte, 1<<20)
		o.hung = fmt.Sprintf("the run did not end within %v\n%s", timeout, buf[:runtime.Stack(buf, true)])
		return o
	}
	o.leaks = leakLines(e.b.Leaks())
	if e.peerB != nil {
		o.peerLeaks = leakLines(e.peerB.Leaks())
	}
	return o
}

// matches reports whether err carries the injected code: a Result for a
// libcuda entry point, an nvrtcResult (ncclResult) with the same number for
// an NVRTC (NCCL) one: the fake injects the code as given.
func matches(err error, op string, code driver.Result) bool {
	if errors.Is(err, code) {
		return true
	}
	var ne *backend.NVRTCError
	if strings.HasPrefix(op, "nvrtc") && errors.As(err, &ne) && ne.Code == int(code) {
		return true
	}
	var nc *backend.NCCLError // the fake injects the number as an ncclResult
	return strings.HasPrefix(op, "nccl") && errors.As(err, &nc) && nc.Result == backend.NCCLResult(code)
}

// gone reports the codes for which a failed teardown closes the object all
// the same (the context is unusable or the driver shutting down): the
// driver did not free it, and does not have to until the process ends.
func gone(code driver.Result) bool {
	return code.Sticky() || code == driver.ErrDeinitialized
}

const swallowed = "the injected error was swallowed: the sequence and every Close succeeded"

// check applies the sweep's rules to a run with FailNth(op, nth, code)
// and returns what broke them.
func check(o outcome, calls map[string]int64, op string, nth int64, code driver.Result) (problems []string, fired bool) {
	if o.panicked != "" {
		return []string{o.panicked}, true
	}
	if o.hung != "" {
		return []string{"hang: " + o.hung}, true
	}
	fired = calls[op] >= nth
	inCleanup := o.callsBefore[op] < nth
	var errs []error
	if o.body != nil {
		errs = append(errs, o.body)
	}
	errs = append(errs, o.closeErrs...)
	switch {
	case !fired && len(errs) > 0:
		problems = append(problems, fmt.Sprintf("failed though the fault did not fire: %v", errors.Join(errs...)))
	case fired && len(errs) == 0:
		problems = append(problems, swallowed)
	case fired && !matches(errs[0], op, code):
		problems = append(problems, fmt.Sprintf("the first error does not carry the injected code: %v", errs[0]))
	}
	if fired && inCleanup && o.body != nil {
		problems = append(problems, fmt.Sprintf("the fault fired in cleanup, yet the sequence failed: %v", o.body))
	}
	if len(o.closeErrs) > 1 {
		problems = append(problems, fmt.Sprintf("one fault made %d Close calls fail: %v", len(o.closeErrs), errors.Join(o.closeErrs...)))
	}
	if fired && !inCleanup && len(o.closeErrs) > 0 {
		problems = append(problems, fmt.Sprintf("the fault fired in the sequence, yet a Close failed: %v", errors.Join(o.closeErrs...)))
	}
	if len(o.unclosed) > 0 {
		problems = append(problems, fmt.Sprintf("Close never succeeded (%d attempts) for: %s", closeAttempts, strings.Join(o.unclosed, ", ")))
	}
	if len(o.leaks) > 0 && !(fired && inCleanup && gone(code)) {
		problems = append(problems, "leaked:\n\t"+strings.Join(o.leaks, "\n\t"))
	}
	if len(o.peerLeaks) > 0 {
		problems = append(problems, "leaked in the peer process:\n\t"+strings.Join(o.peerLeaks, "\n\t"))
	}
	return problems, fired
}

// profile runs seq on a clean fake and returns the calls it made to each
// entry point, failing the test if the run is not clean or not
// deterministic.
func profile(t *testing.T, seq sequence) map[string]int64 {
	t.Helper()
	var calls []map[string]int64
	for range 2 {
		e := newEnv(seq.fakeOptions()...)
		o := execute(e, seq)
		problems, _ := check(o, nil, "", 1, 0)
		if o.body != nil {
			problems = append(problems, fmt.Sprintf("the clean run failed: %v", o.body))
		}
		if len(problems) > 0 {
			t.Fatalf("clean run of %s:\n%s", seq.name, strings.Join(problems, "\n"))
		}
		calls = append(calls, e.b.Fake().Calls())
	}
	if !mapsEqual(calls[0], calls[1]) {
		t.Fatalf("two clean runs of %s made different calls:\n%v\n%v", seq.name, calls[0], calls[1])
	}
	return calls[0]
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A fault case: FailNth(op, nth, code) in a run of seq.
type faultCase struct {
	seq  string
	op   string
	nth  int64
	code string
}

func (c faultCase) String() string { return fmt.Sprintf("%s/%s/%d/%s", c.seq, c.op, c.nth, c.code) }

// cases lists the fault cases of a sequence that made calls: every code at
// every call of every entry point.
func cases(seq string, calls map[string]int64) []faultCase {
	ops := make([]string, 0, len(calls))
	for op := range calls {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var out []faultCase
	for _, op := range ops {
		k := calls[op]
		for nth := int64(1); nth <= k; nth++ {
			for _, c := range codes {
				out = append(out, faultCase{seq, op, nth, c.name})
			}
		}
	}
	return out
}

// stats counts what the sweep saw, for its summary.
type stats struct {
	mu         sync.Mutex
	runs       int
	unmarked   map[string]bool // ops whose sticky code came without ErrStickyFault
	leftovers  map[string]bool // gone-code teardown faults that left objects to the process's end
	skipped    int
	perSeqRuns map[string]int
}

// TestSweep injects each code at each call index of each entry point that
// each sequence calls (see the package documentation for the rules).
func TestSweep(t *testing.T) {
	st := &stats{unmarked: map[string]bool{}, leftovers: map[string]bool{}, perSeqRuns: map[string]int{}}
	start := time.Now()
	t.Cleanup(func() {
		ops := func(m map[string]bool) string {
			var s []string
			for k := range m {
				s = append(s, k)
			}
			sort.Strings(s)
			return strings.Join(s, ", ")
		}
		t.Logf("%d fault runs (%v) in %v; %d known bugs skipped", st.runs, st.perSeqRuns, time.Since(start).Round(time.Millisecond), st.skipped)
		if len(st.unmarked) > 0 {
			t.Logf("sticky codes reported without driver.ErrStickyFault by: %s", ops(st.unmarked))
		}
		if len(st.leftovers) > 0 {
			t.Logf("teardowns refused as gone that leave the object to the process's end: %s", ops(st.leftovers))
		}
	})
	for _, seq := range sequences {
		t.Run(seq.name, func(t *testing.T) {
			calls := profile(t, seq)
			t.Logf("calls: %v", calls)
			for _, c := range cases(seq.name, calls) {
				t.Run(fmt.Sprintf("%s/%d/%s", c.op, c.nth, c.code), func(t *testing.T) {
					t.Parallel()
					problems := runCase(st, seq, c, calls)
					bug, known := knownBugs[c.String()]
					switch {
					case known && len(problems) > 0:
						st.mu.Lock()
						st.skipped++
						st.mu.Unlock()
						t.Skipf("known bug %s\n%s", bug, strings.Join(problems, "\n"))
					case known:
						t.Errorf("%s passes: known bug %q is fixed; remove the case from knownBugs", c, bug)
					case len(problems) > 0:
						t.Errorf("%s: FailNth(%q, %d, %s):\n%s", c, c.op, c.nth, c.code, strings.Join(problems, "\n"))
					}
				})
			}
		})
	}
}

func codeOf(name string) driver.Result {
	for _, c := range codes {
		if c.name == name {
			return c.code
		}
	}
	panic("unknown code " + name)
}

// runCase runs one fault case and returns the rules it broke. clean is the
// clean run's calls.
func runCase(st *stats, seq sequence, c faultCase, clean map[string]int64) []string {
	code := codeOf(c.code)
	e := newEnv(seq.fakeOptions(fake.FailNth(c.op, int(c.nth), code))...)
	if _, known := knownBugs[c.String()]; known {
		e.timeout = knownTimeout()
	}
	o := execute(e, seq)
	calls := e.b.Fake().Calls()
	problems, fired := check(o, calls, c.op, c.nth, code)
	if len(problems) == 1 && problems[0] == swallowed && (sameAnswer(c, clean) || retried(c)) {
		problems = nil
	}
	if !fired && o.panicked == "" && o.hung == "" {
		// The runs are the same up to the fault: it must fire.
		problems = append(problems, fmt.Sprintf("the fault did not fire: %d calls of %s (the clean run makes %d)", calls[c.op], c.op, clean[c.op]))
	}

	st.mu.Lock()
	st.runs++
	st.perSeqRuns[seq.name]++
	if fired && code.Sticky() {
		first := o.body
		if first == nil && len(o.closeErrs) > 0 {
			first = o.closeErrs[0]
		}
		if first != nil && !errors.Is(first, driver.ErrStickyFault) {
			st.unmarked[c.op] = true
		}
	}
	if len(o.leaks) > 0 && len(problems) == 0 {
		st.leftovers[c.op] = true
	}
	st.mu.Unlock()

	if o.panicked == "" && o.hung == "" {
		problems = append(problems, worksAfterwards(e, seq, o.leaks)...)
	}
	return problems
}

// sameAnswer reports a fault case whose injected answer is the one the call
// gets anyway, which therefore changes nothing: Function reads the kernel's
// parameters with cuFuncGetParamInfo until it answers INVALID_VALUE, past
// the last one.
func sameAnswer(c faultCase, clean map[string]int64) bool {
	return c.op == "cuFuncGetParamInfo" && c.code == "INVALID_VALUE" && c.nth == clean[c.op]
}

// retried reports a fault case the library absorbs by design, by trying
// again: a failed nvrtcDestroyProgram is tried once more (module.Compile),
// so one failure neither leaks the program nor fails a compile that worked;
// a parameter layout that could not be read is read again by the next use
// of the Function, and an answer of CUDA_ERROR_INVALID_VALUE (past the last
// parameter, or a failure saying the same) is asked twice.
func retried(c faultCase) bool {
	return c.op == "nvrtcDestroyProgram" || c.op == "cuFuncGetParamInfo"
}

// worksAfterwards runs seq again on the same backend (and the same Driver,
// when the failed run made one): the fault fired once, so everything must
// succeed, close at the first attempt and leave nothing more behind than
// the failed run did.
func worksAfterwards(failed *env, seq sequence, leftover []string) []string {
	e := &env{b: failed.b, drv: failed.drv, timeout: failed.timeout}
	o := execute(e, seq)
	var problems []string
	switch {
	case o.panicked != "":
		return []string{"afterwards: " + o.panicked}
	case o.hung != "":
		return []string{"afterwards: hang\n" + o.hung}
	case o.body != nil:
		problems = append(problems, fmt.Sprintf("afterwards: the sequence fails: %v", o.body))
	}
	if len(o.closeErrs) > 0 {
		problems = append(problems, fmt.Sprintf("afterwards: Close fails: %v", errors.Join(o.closeErrs...)))
	}
	if !slices.Equal(o.leaks, leftover) {
		problems = append(problems, fmt.Sprintf("afterwards: leaked:\n\t%s", strings.Join(o.leaks, "\n\t")))
	}
	if len(o.peerLeaks) > 0 {
		problems = append(problems, "afterwards: leaked in the peer process:\n\t"+strings.Join(o.peerLeaks, "\n\t"))
	}
	return problems
}

// leakLines describes each leak in one line.
func leakLines(ls []fake.Leak) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

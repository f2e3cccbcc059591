package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures; Fatal and Fatalf end the
// goroutine, as on a real test.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper()           {}
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, a ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, a...))
}
func (r *recorder) Fatal(args ...any) {
	r.fatals = append(r.fatals, fmt.Sprint(args...))
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, a ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, a...))
	runtime.Goexit()
}

// record runs check on a recorder in its own goroutine, and says whether
// check returned (rather than being stopped by Fatal).
func record(check func(t testing.TB)) (r *recorder, returned bool) {
	r = &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
		returned = true
	}()
	<-done
	return r, returned
}

func TestChecks(t *testing.T) {
	target := errors.New("target")
	other := errors.New("other")
	p, q := new(int), new(int)
	var nilPtr *int
	nan := math.NaN()
	var pe *fs.PathError
	cases := []struct {
		name  string
		fatal bool
		check func(t testing.TB)
		says  []string // in the failure message; nil: the check passes
	}{
		{"must", true, func(t testing.TB) { must(t, other, "step %d", 3) }, []string{"step 3", "other"}},
		{"must/ok", true, func(t testing.TB) { must(t, nil) }, nil},
		{"noError", false, func(t testing.TB) { noError(t, other, "what") }, []string{"what", "other"}},
		{"noError/ok", false, func(t testing.TB) { noError(t, nil) }, nil},
		{"mustErr", true, func(t testing.TB) { mustErr(t, nil, "what") }, []string{"what", "no error"}},
		{"mustErr/ok", true, func(t testing.TB) { mustErr(t, other) }, nil},
		{"hasError", false, func(t testing.TB) { hasError(t, nil, "what") }, []string{"what", "no error"}},
		{"hasError/ok", false, func(t testing.TB) { hasError(t, other) }, nil},
		{"mustIs", true, func(t testing.TB) { mustIs(t, other, target, "what") }, []string{"what", "other", "target", "errors.Is"}},
		{"mustIs/nil", true, func(t testing.TB) { mustIs(t, nil, target) }, []string{"nil", "target"}},
		{"mustIs/ok", true, func(t testing.TB) { mustIs(t, fmt.Errorf("x: %w", target), target) }, nil},
		{"errorIs", false, func(t testing.TB) { errorIs(t, other, target, "what") }, []string{"what", "other", "target"}},
		{"errorIs/ok", false, func(t testing.TB) { errorIs(t, fmt.Errorf("x: %w", target), target) }, nil},
		{"mustAs", true, func(t testing.TB) { mustAs(t, other, &pe, "what") }, []string{"what", "other", "*fs.PathError"}},
		{"mustAs/ok", true, func(t testing.TB) { mustAs(t, fmt.Errorf("x: %w", &fs.PathError{}), &pe) }, nil},
		{"errorContains/nil", false, func(t testing.TB) { errorContains(t, nil, "sub", "what") }, []string{"what", "no error"}},
		{"errorContains", false, func(t testing.TB) { errorContains(t, other, "sub", "what") }, []string{"what", "other", "sub"}},
		{"errorContains/ok", false, func(t testing.TB) { errorContains(t, other, "the") }, nil},
		{"contains", false, func(t testing.TB) { contains(t, "haystack", "needle", "what") }, []string{"what", "haystack", "needle"}},
		{"contains/ok", false, func(t testing.TB) { contains(t, "haystack", "st") }, nil},
		{"mustEqual", true, func(t testing.TB) { mustEqual(t, 1, 2, "what") }, []string{"what", "got 1", "want 2"}},
		{"mustEqual/ok", true, func(t testing.TB) { mustEqual(t, []int{1}, []int{1}) }, nil},
		{"equal", false, func(t testing.TB) { equal(t, []int{1, 2}, []int{1, 3}, "what") }, []string{"what", "got []int{1, 2}", "want []int{1, 3}"}},
		{"equal/nil-empty", false, func(t testing.TB) { equal(t, []byte{}, nil) }, []string{"got []byte{}", "want []byte(nil)"}},
		{"equal/error", false, func(t testing.TB) { equal[error](t, other, target) }, []string{"other", "target"}},
		{"equal/ok", false, func(t testing.TB) { equal(t, "a", "a") }, nil},
		{"notEqual", false, func(t testing.TB) { notEqual(t, []int{1}, []int{1}, "what") }, []string{"what", "[]int{1}"}},
		{"notEqual/ok", false, func(t testing.TB) { notEqual(t, 1, 2) }, nil},
		{"mustTrue", true, func(t testing.TB) { mustTrue(t, false, "what") }, []string{"what", "got false"}},
		{"mustTrue/ok", true, func(t testing.TB) { mustTrue(t, true) }, nil},
		{"isTrue", false, func(t testing.TB) { isTrue(t, false, "what") }, []string{"what", "got false"}},
		{"isTrue/ok", false, func(t testing.TB) { isTrue(t, true) }, nil},
		{"isFalse", false, func(t testing.TB) { isFalse(t, true, "what") }, []string{"what", "got true"}},
		{"isFalse/ok", false, func(t testing.TB) { isFalse(t, false) }, nil},
		{"isZero", false, func(t testing.TB) { isZero(t, uintptr(7), "what") }, []string{"what", "0x7"}},
		{"isZero/ok", false, func(t testing.TB) { isZero(t, uintptr(0)) }, nil},
		{"notZero", false, func(t testing.TB) { notZero(t, 0, "what") }, []string{"what", "got 0"}},
		{"notZero/ok", false, func(t testing.TB) { notZero(t, 1) }, nil},
		{"isSame", false, func(t testing.TB) { isSame(t, p, q, "what") }, []string{"what", fmt.Sprintf("%p", p), fmt.Sprintf("%p", q)}},
		{"isSame/ok", false, func(t testing.TB) { isSame(t, p, p) }, nil},
		{"isNil", false, func(t testing.TB) { isNil(t, p, "what") }, []string{"what", "want nil"}},
		{"isNil/empty-slice", false, func(t testing.TB) { isNil(t, []int{}) }, []string{"[]int{}"}},
		{"isNil/typed-nil", false, func(t testing.TB) { isNil(t, nilPtr) }, nil},
		{"isNil/nil-slice", false, func(t testing.TB) { isNil(t, []byte(nil)) }, nil},
		{"compare<", false, func(t testing.TB) { compare(t, 2, "<", 2, "what") }, []string{"what", "got 2", "want < 2"}},
		{"compare<=", false, func(t testing.TB) { compare(t, 3, "<=", 2) }, []string{"got 3", "want <= 2"}},
		{"compare>", false, func(t testing.TB) { compare(t, 2, ">", 2) }, []string{"got 2", "want > 2"}},
		{"compare>=", false, func(t testing.TB) { compare(t, 1, ">=", 2) }, []string{"got 1", "want >= 2"}},
		{"compare/NaN", false, func(t testing.TB) { compare(t, nan, "<", 0) }, []string{"NaN"}},
		{"compare/ok", false, func(t testing.TB) {
			compare(t, 1, "<", 2)
			compare(t, 2, "<=", 2)
			compare(t, 3, ">", 2)
			compare(t, 2, ">=", 2)
		}, nil},
		{"mustLen", true, func(t testing.TB) { mustLen(t, []int{1, 2}, 3, "what") }, []string{"what", "got 2 items, want 3"}},
		{"mustLen/ok", true, func(t testing.TB) { mustLen(t, "abc", 3) }, nil},
		{"hasLen", false, func(t testing.TB) { hasLen(t, map[int]int{}, 1, "what") }, []string{"what", "got 0 items, want 1"}},
		{"hasLen/no-len", false, func(t testing.TB) { hasLen(t, 5, 0) }, []string{"len of a int"}},
		{"hasLen/ok", false, func(t testing.TB) { hasLen(t, []string{"a"}, 1) }, nil},
		{"isEmpty", false, func(t testing.TB) { isEmpty(t, []string{"leak"}, "what") }, []string{"what", "leak"}},
		{"isEmpty/string", false, func(t testing.TB) { isEmpty(t, "x") }, []string{`"x"`}},
		{"isEmpty/ok", false, func(t testing.TB) {
			isEmpty(t, []string(nil))
			isEmpty(t, []string{})
			isEmpty(t, "")
		}, nil},
	}
	for _, c := range cases {
		r, returned := record(c.check)
		failures := r.errors
		if c.fatal {
			failures = r.fatals
		}
		switch {
		case c.fatal && len(r.errors) != 0, !c.fatal && len(r.fatals) != 0:
			t.Errorf("%s: reported with the wrong severity: errors %q, fatals %q", c.name, r.errors, r.fatals)
		case c.says == nil && len(failures) != 0:
			t.Errorf("%s: a passing check reported %q", c.name, failures)
		case c.says != nil && len(failures) != 1:
			t.Errorf("%s: got %d failures (%q), want 1", c.name, len(failures), failures)
		case c.says != nil:
			for _, s := range c.says {
				if !strings.Contains(failures[0], s) {
					t.Errorf("%s: the failure %q does not say %q", c.name, failures[0], s)
				}
			}
		}
		if want := !c.fatal || c.says == nil; returned != want {
			t.Errorf("%s: returned %v, want %v (a fatal failure stops the test)", c.name, returned, want)
		}
	}
}

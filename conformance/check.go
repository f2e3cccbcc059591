package conformance

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The checks of the suite, on testing.TB alone. Each reports a failure with
// what was expected and what was found; the optional msgAndArgs (a message,
// or a format and its arguments) say what was being checked. The must forms
// stop the test (t.Fatal); the others record the failure and go on (t.Error).

// fail reports a failed check: the message of msgAndArgs, if any, then the
// detail.
func fail(t testing.TB, fatal bool, msgAndArgs []any, format string, args ...any) {
	t.Helper()
	s := fmt.Sprintf(format, args...)
	if m := message(msgAndArgs); m != "" {
		s = m + ": " + s
	}
	if fatal {
		t.Fatal(s)
	}
	t.Error(s)
}

// message formats msgAndArgs: a single value as it is, or a format and its
// arguments.
func message(msgAndArgs []any) string {
	switch len(msgAndArgs) {
	case 0:
		return ""
	case 1:
		if s, ok := msgAndArgs[0].(string); ok {
			return s
		}
		return fmt.Sprintf("%+v", msgAndArgs[0])
	}
	if f, ok := msgAndArgs[0].(string); ok {
		return fmt.Sprintf(f, msgAndArgs[1:]...)
	}
	return fmt.Sprint(msgAndArgs...)
}

// show formats a value for a failure message, shortened if it is long.
func show(v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		s = "nil"
	case error:
		s = fmt.Sprintf("%T(%q)", v, v)
	case string:
		s = fmt.Sprintf("%q", v)
	default:
		s = fmt.Sprintf("%#v", v)
	}
	if len(s) > 1000 {
		s = s[:1000] + "..."
	}
	return s
}

func checkNoError(t testing.TB, fatal bool, err error, msgAndArgs []any) bool {
	t.Helper()
	if err != nil {
		fail(t, fatal, msgAndArgs, "unexpected error: %+v", err)
		return false
	}
	return true
}

// must stops the test if err is not nil.
func must(t testing.TB, err error, msgAndArgs ...any) {
	t.Helper()
	checkNoError(t, true, err, msgAndArgs)
}

// noError reports err if it is not nil.
func noError(t testing.TB, err error, msgAndArgs ...any) bool {
	t.Helper()
	return checkNoError(t, false, err, msgAndArgs)
}

func checkError(t testing.TB, fatal bool, err error, msgAndArgs []any) bool {
	t.Helper()
	if err == nil {
		fail(t, fatal, msgAndArgs, "got no error, want one")
		return false
	}
	return true
}

// mustErr stops the test if err is nil.
func mustErr(t testing.TB, err error, msgAndArgs ...any) {
	t.Helper()
	checkError(t, true, err, msgAndArgs)
}

// hasError reports a nil err, and says whether err is not nil.
func hasError(t testing.TB, err error, msgAndArgs ...any) bool {
	t.Helper()
	return checkError(t, false, err, msgAndArgs)
}

func checkIs(t testing.TB, fatal bool, err, target error, msgAndArgs []any) bool {
	t.Helper()
	if !errors.Is(err, target) {
		fail(t, fatal, msgAndArgs, "got error %s, want one that is (errors.Is) %s", show(err), show(target))
		return false
	}
	return true
}

// mustIs stops the test unless errors.Is(err, target).
func mustIs(t testing.TB, err, target error, msgAndArgs ...any) {
	t.Helper()
	checkIs(t, true, err, target, msgAndArgs)
}

// errorIs reports err unless errors.Is(err, target).
func errorIs(t testing.TB, err, target error, msgAndArgs ...any) bool {
	t.Helper()
	return checkIs(t, false, err, target, msgAndArgs)
}

// mustAs stops the test unless errors.As(err, target).
func mustAs(t testing.TB, err error, target any, msgAndArgs ...any) {
	t.Helper()
	if !errors.As(err, target) {
		fail(t, true, msgAndArgs, "got error %s, want one that is (errors.As) a %v", show(err), reflect.TypeOf(target).Elem())
	}
}

// errorContains reports err if it is nil or its text does not contain sub.
func errorContains(t testing.TB, err error, sub string, msgAndArgs ...any) bool {
	t.Helper()
	if !checkError(t, false, err, msgAndArgs) {
		return false
	}
	return contains(t, err.Error(), sub, msgAndArgs...)
}

// contains reports s if it does not contain sub.
func contains(t testing.TB, s, sub string, msgAndArgs ...any) bool {
	t.Helper()
	if !strings.Contains(s, sub) {
		fail(t, false, msgAndArgs, "%s does not contain %q", show(s), sub)
		return false
	}
	return true
}

func checkEqual[T any](t testing.TB, fatal bool, got, want T, msgAndArgs []any) bool {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		fail(t, fatal, msgAndArgs, "got %s, want %s", show(got), show(want))
		return false
	}
	return true
}

// mustEqual stops the test unless got deeply equals want.
func mustEqual[T any](t testing.TB, got, want T, msgAndArgs ...any) {
	t.Helper()
	checkEqual(t, true, got, want, msgAndArgs)
}

// equal reports got unless it deeply equals want.
func equal[T any](t testing.TB, got, want T, msgAndArgs ...any) bool {
	t.Helper()
	return checkEqual(t, false, got, want, msgAndArgs)
}

// notEqual reports got if it deeply equals bad.
func notEqual[T any](t testing.TB, got, bad T, msgAndArgs ...any) bool {
	t.Helper()
	if reflect.DeepEqual(got, bad) {
		fail(t, false, msgAndArgs, "got %s, want anything else", show(got))
		return false
	}
	return true
}

func checkTrue(t testing.TB, fatal bool, cond bool, msgAndArgs []any) bool {
	t.Helper()
	if !cond {
		fail(t, fatal, msgAndArgs, "got false, want true")
	}
	return cond
}

// mustTrue stops the test unless cond.
func mustTrue(t testing.TB, cond bool, msgAndArgs ...any) {
	t.Helper()
	checkTrue(t, true, cond, msgAndArgs)
}

// isTrue reports a false cond.
func isTrue(t testing.TB, cond bool, msgAndArgs ...any) bool {
	t.Helper()
	return checkTrue(t, false, cond, msgAndArgs)
}

// isFalse reports a true cond.
func isFalse(t testing.TB, cond bool, msgAndArgs ...any) bool {
	t.Helper()
	if cond {
		fail(t, false, msgAndArgs, "got true, want false")
		return false
	}
	return true
}

// isZero reports v unless it is the zero value of its type.
func isZero[T comparable](t testing.TB, v T, msgAndArgs ...any) bool {
	t.Helper()
	var zero T
	if v != zero {
		fail(t, false, msgAndArgs, "got %s, want the zero value", show(v))
		return false
	}
	return true
}

// notZero reports v if it is the zero value of its type.
func notZero[T comparable](t testing.TB, v T, msgAndArgs ...any) bool {
	t.Helper()
	var zero T
	if v == zero {
		fail(t, false, msgAndArgs, "got %s, want a value other than zero", show(v))
		return false
	}
	return true
}

// isSame reports got unless it is the pointer want.
func isSame[T any](t testing.TB, got, want *T, msgAndArgs ...any) bool {
	t.Helper()
	if got != want {
		fail(t, false, msgAndArgs, "got %T %p, want the same pointer as %p", got, got, want)
		return false
	}
	return true
}

// isNil reports v unless it is nil (or a nil pointer, slice, map, channel,
// function or interface).
func isNil(t testing.TB, v any, msgAndArgs ...any) bool {
	t.Helper()
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice, reflect.UnsafePointer:
		if rv.IsNil() {
			return true
		}
	}
	fail(t, false, msgAndArgs, "got %s, want nil", show(v))
	return false
}

// compare reports got unless got op want holds; op is <, <=, > or >=.
func compare[T cmp.Ordered](t testing.TB, got T, op string, want T, msgAndArgs ...any) bool {
	t.Helper()
	var ok bool // false for a NaN, whatever op is
	switch op {
	case "<":
		ok = got < want
	case "<=":
		ok = got <= want
	case ">":
		ok = got > want
	case ">=":
		ok = got >= want
	default:
		panic("conformance: compare with " + op)
	}
	if !ok {
		fail(t, false, msgAndArgs, "got %s, want %s %s", show(got), op, show(want))
	}
	return ok
}

func checkLen(t testing.TB, fatal bool, v any, n int, msgAndArgs []any) bool {
	t.Helper()
	l, ok := length(v)
	if !ok {
		fail(t, fatal, msgAndArgs, "len of a %T", v)
		return false
	}
	if l != n {
		fail(t, fatal, msgAndArgs, "got %d items, want %d: %s", l, n, show(v))
		return false
	}
	return true
}

// length is len(v), if v has a length.
func length(v any) (n int, ok bool) {
	defer func() {
		if recover() != nil {
			n, ok = 0, false
		}
	}()
	return reflect.ValueOf(v).Len(), true
}

// mustLen stops the test unless v (an array, channel, map, slice or string)
// has n items.
func mustLen(t testing.TB, v any, n int, msgAndArgs ...any) {
	t.Helper()
	checkLen(t, true, v, n, msgAndArgs)
}

// hasLen reports v unless it (an array, channel, map, slice or string) has n
// items.
func hasLen(t testing.TB, v any, n int, msgAndArgs ...any) bool {
	t.Helper()
	return checkLen(t, false, v, n, msgAndArgs)
}

// isEmpty reports v unless it is empty: the zero value, a channel, map or
// slice of no items, or a pointer to an empty value.
func isEmpty(t testing.TB, v any, msgAndArgs ...any) bool {
	t.Helper()
	if !empty(v) {
		fail(t, false, msgAndArgs, "got %s, want it empty", show(v))
		return false
	}
	return true
}

func empty(v any) bool {
	if v == nil {
		return true
	}
	return emptyValue(reflect.ValueOf(v))
}

func emptyValue(rv reflect.Value) bool {
	if rv.IsZero() {
		return true
	}
	switch rv.Kind() {
	case reflect.Chan, reflect.Map, reflect.Slice:
		return rv.Len() == 0
	case reflect.Pointer:
		return emptyValue(rv.Elem())
	}
	return false
}

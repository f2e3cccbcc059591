// Package demo is a binding the generator's tests write: an interface of
// its own, declared in the package itself (as -api . does).
package demo

// Point is laid out as the C struct point_t.
type Point struct{ X, Y int32 }

// Mode is a C enum.
type Mode int

// API is what the demo binding implements.
type API interface {
	Open() (uintptr, error)
	Count(h uintptr, mode Mode) (int, error)
	Scale(h uintptr, n int, by float64, on bool) error
	Sum(h uintptr, xs []int32) (int64, error)
	Where(h uintptr, p *Point, n uint64) (Point, bool, error)
	Size() int
	Name(h uintptr) (string, error)
}

package main

import (
	"strings"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/fake"
)

// compilerOf names the run-time compiler drv compiles with: "libnvrtc" for
// the real driver's; on the fake, its Implementation ("libnvrtc on the
// fake" or the pretend "nocgo/cuda fake"), with the library's path when it
// is NVIDIA's.
func compilerOf(drv *driver.Driver) string {
	b := fake.Of(drv)
	if b == nil {
		return "libnvrtc"
	}
	nv, err := b.Backend().NVRTC()
	if err != nil {
		return "unknown: " + err.Error()
	}
	name := nv.Implementation()
	if p, ok := nv.(backend.LibraryPaths); ok {
		if paths := p.LibraryPaths(); len(paths) > 0 {
			name += ": " + strings.Join(paths, " ")
		}
	}
	return name
}

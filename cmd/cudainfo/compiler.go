package main

import (
	"strings"

	"github.com/nocgo/cuda/driver/backend"
)

// compilerOf names the run-time compiler of the backend api: "libnvrtc" for
// the real driver's; on the fake, its Implementation ("libnvrtc on the
// fake" or the pretend "nocgo/cuda fake"), with the library's path when it
// is NVIDIA's.
func compilerOf(api backend.API, isFake bool) string {
	if !isFake {
		return "libnvrtc"
	}
	p, ok := api.(backend.NVRTCProvider)
	if !ok {
		return "none"
	}
	nv, err := p.NVRTC()
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

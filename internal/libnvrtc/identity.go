//go:build linux && (amd64 || arm64)

package libnvrtc

import (
	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/loader"
)

// identityPrefix starts every identity this package gives: NVIDIA's
// compiler (Implementation "libnvrtc"), then its file.
const identityPrefix = "libnvrtc file "

// Identity names the libnvrtc that Open would open, without opening it
// (see backend.NVRTCIdentifier): loader.Locate's file, by
// loader.FileIdentity. ok is false when the loader cannot tell which file
// the system loader would pick.
func Identity() (string, bool) {
	p, ok := loader.Locate(loader.NVRTC)
	if !ok {
		return "", false
	}
	return fileIdentity(p)
}

// Absent reports whether Open is sure to find no libnvrtc (see
// loader.Absent): nothing is loaded to tell.
func Absent() bool { return loader.Absent(loader.NVRTC) }

// IdentityOf names nv, a compiler Open returned, by the file it opened;
// ok is false for another compiler.
func IdentityOf(nv backend.NVRTC) (string, bool) {
	n, ok := nv.(*libnvrtc)
	if !ok {
		return "", false
	}
	return fileIdentity(n.lib.Path())
}

func fileIdentity(path string) (string, bool) {
	id, err := loader.FileIdentity(path)
	if err != nil {
		return "", false
	}
	return identityPrefix + id, true
}

//go:build linux && (amd64 || arm64)

package libnccl

import (
	"sync"
	"unsafe"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/cstr"
)

// config is ncclConfig_t as NCCL 2.18 laid it out (struct
// ncclConfig_v21700 with splitShare; NCCL 2.19 and 2.28 keep these fields at
// these offsets and add more after them, which NCCL then leaves at their
// defaults because size says they are absent):
//
//	offset  0  size_t size
//	offset  8  unsigned int magic      NCCL_API_MAGIC 0xcafebeef
//	offset 12  unsigned int version    NCCL_VERSION(2,18,0) = 21800
//	offset 16  int blocking
//	offset 20  int cgaClusterSize
//	offset 24  int minCTAs
//	offset 28  int maxCTAs
//	offset 32  const char *netName
//	offset 40  int splitShare
//	sizeof 48 (LP64: 4 bytes of tail padding)
type config struct {
	size           uintptr
	magic          uint32
	version        uint32
	blocking       int32
	cgaClusterSize int32
	minCTAs        int32
	maxCTAs        int32
	netName        unsafe.Pointer
	splitShare     int32
	_              int32
}

// An index out of range here is a compile error when the layout is wrong.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(config{})-48]
	_ = [1]struct{}{}[unsafe.Offsetof(config{}.magic)-8]
	_ = [1]struct{}{}[unsafe.Offsetof(config{}.version)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(config{}.blocking)-16]
	_ = [1]struct{}{}[unsafe.Offsetof(config{}.maxCTAs)-28]
	_ = [1]struct{}{}[unsafe.Offsetof(config{}.netName)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(config{}.splitShare)-40]
)

const (
	apiMagic      = 0xcafebeef // NCCL_API_MAGIC
	configVersion = 21800      // NCCL_VERSION(2,18,0)
)

// netNames keeps the C strings of the network names passed to NCCL alive
// for the life of the process: a non-blocking communicator may copy its
// name on NCCL's own thread after the call returned. There are few names.
var netNames struct {
	mu sync.Mutex
	m  map[string][]byte
}

func netName(s string) ([]byte, error) {
	netNames.mu.Lock()
	defer netNames.mu.Unlock()
	if b, ok := netNames.m[s]; ok {
		return b, nil
	}
	b, err := cstr.Bytes(s)
	if err != nil {
		return nil, err
	}
	if netNames.m == nil {
		netNames.m = map[string][]byte{}
	}
	netNames.m[s] = b
	return b, nil
}

// newConfig lays c out for NCCL, nil for nil. The result is heap memory
// that the caller keeps alive over the call.
func newConfig(c *backend.NCCLConfig) (*config, []byte, error) {
	if c == nil {
		return nil, nil, nil
	}
	cfg := &config{
		size: unsafe.Sizeof(config{}), magic: apiMagic, version: configVersion,
		blocking: c.Blocking, cgaClusterSize: c.CGAClusterSize, minCTAs: c.MinCTAs, maxCTAs: c.MaxCTAs,
		splitShare: c.SplitShare,
	}
	var name []byte
	if c.NetName != "" {
		var err error
		if name, err = netName(c.NetName); err != nil {
			return nil, nil, err
		}
		cfg.netName = unsafe.Pointer(unsafe.SliceData(name))
	}
	return cfg, name, nil
}

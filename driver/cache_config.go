package driver

import (
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
)

// CacheConfig is a preference between L1 cache and shared memory (a
// CUfunc_cache, with the same values), set for a whole context with
// Context.SetCacheConfig.
type CacheConfig uint32

// Cache preferences.
const (
	CachePreferNone   CacheConfig = 0 // no preference (the default)
	CachePreferShared CacheConfig = 1 // more shared memory, less L1
	CachePreferL1     CacheConfig = 2 // more L1, less shared memory
	CachePreferEqual  CacheConfig = 3 // as much of each
)

// String returns the CUfunc_cache's name ("CU_FUNC_CACHE_PREFER_NONE").
func (c CacheConfig) String() string {
	switch c {
	case CachePreferNone:
		return "CU_FUNC_CACHE_PREFER_NONE"
	case CachePreferShared:
		return "CU_FUNC_CACHE_PREFER_SHARED"
	case CachePreferL1:
		return "CU_FUNC_CACHE_PREFER_L1"
	case CachePreferEqual:
		return "CU_FUNC_CACHE_PREFER_EQUAL"
	}
	return fmt.Sprintf("CUfunc_cache(%d)", uint32(c))
}

// SharedMemConfig is a shared-memory bank size (a CUsharedconfig, with the
// same values), for Context.SetSharedMemConfig.
type SharedMemConfig uint32

// Shared-memory bank sizes.
const (
	SharedMemBankSizeDefault   SharedMemConfig = 0 // the device's default
	SharedMemBankSizeFourByte  SharedMemConfig = 1 // four-byte banks
	SharedMemBankSizeEightByte SharedMemConfig = 2 // eight-byte banks
)

// String returns the CUsharedconfig's name
// ("CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE").
func (c SharedMemConfig) String() string {
	switch c {
	case SharedMemBankSizeDefault:
		return "CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE"
	case SharedMemBankSizeFourByte:
		return "CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE"
	case SharedMemBankSizeEightByte:
		return "CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE"
	}
	return fmt.Sprintf("CUsharedconfig(%d)", uint32(c))
}

// CacheConfig returns c's cache preference (cuCtxGetCacheConfig, with c
// current).
func (c *Context) CacheConfig() (CacheConfig, error) {
	const op = "driver.Context.CacheConfig"
	if c.state() == nil {
		return 0, nilContext(op)
	}
	cc, err := c.contextConfig(op)
	if err != nil {
		return 0, err
	}
	var v backend.CacheConfig
	err = c.state().Do(func(backend.API) error {
		var r error
		if v, r = cc.CtxGetCacheConfig(); r != nil {
			return fmt.Errorf("%s: cuCtxGetCacheConfig: %w", c, r)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return CacheConfig(v), nil
}

// SetCacheConfig sets c's preference between L1 cache and shared memory for
// the kernels it launches (cuCtxSetCacheConfig, with c current). It is only
// a preference: the driver picks another configuration where a kernel
// needs it, and devices with a fixed split ignore it. A function's own
// preference overrides it. A value other than the four CacheConfig
// constants is an error wrapping ErrInvalidValue, before any driver call.
func (c *Context) SetCacheConfig(cfg CacheConfig) error {
	const op = "driver.Context.SetCacheConfig"
	if c.state() == nil {
		return nilContext(op)
	}
	if cfg > CachePreferEqual {
		return fmt.Errorf("%s: %s: cache configuration %d is none of CU_FUNC_CACHE_PREFER_*: %w", op, c, uint32(cfg), ErrInvalidValue)
	}
	cc, err := c.contextConfig(op)
	if err != nil {
		return err
	}
	err = c.state().Do(func(backend.API) error {
		if r := cc.CtxSetCacheConfig(backend.CacheConfig(cfg)); r != nil {
			return fmt.Errorf("%s: cuCtxSetCacheConfig(%s): %w", c, cfg, r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// SharedMemConfig returns c's shared-memory bank size
// (cuCtxGetSharedMemConfig, with c current). NVIDIA deprecated the call in
// CUDA 12.3; CUDA 13 still has it. No device since Kepler has a
// configurable bank size.
func (c *Context) SharedMemConfig() (SharedMemConfig, error) {
	const op = "driver.Context.SharedMemConfig"
	if c.state() == nil {
		return 0, nilContext(op)
	}
	cc, err := c.contextConfig(op)
	if err != nil {
		return 0, err
	}
	var v backend.SharedMemConfig
	err = c.state().Do(func(backend.API) error {
		var r error
		if v, r = cc.CtxGetSharedMemConfig(); r != nil {
			return fmt.Errorf("%s: cuCtxGetSharedMemConfig: %w", c, r)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	return SharedMemConfig(v), nil
}

// SetSharedMemConfig sets c's shared-memory bank size
// (cuCtxSetSharedMemConfig, with c current), deprecated by NVIDIA since CUDA
// 12.3: devices with a fixed bank size (all since Kepler, the H200 too)
// accept it and change nothing. A value other than the three
// SharedMemConfig constants is an error wrapping ErrInvalidValue, before
// any driver call.
func (c *Context) SetSharedMemConfig(cfg SharedMemConfig) error {
	const op = "driver.Context.SetSharedMemConfig"
	if c.state() == nil {
		return nilContext(op)
	}
	if cfg > SharedMemBankSizeEightByte {
		return fmt.Errorf("%s: %s: shared memory configuration %d is none of CU_SHARED_MEM_CONFIG_*: %w", op, c, uint32(cfg), ErrInvalidValue)
	}
	cc, err := c.contextConfig(op)
	if err != nil {
		return err
	}
	err = c.state().Do(func(backend.API) error {
		if r := cc.CtxSetSharedMemConfig(backend.SharedMemConfig(cfg)); r != nil {
			return fmt.Errorf("%s: cuCtxSetSharedMemConfig(%s): %w", c, cfg, r)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

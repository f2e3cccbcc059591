// Package module compiles CUDA C++ at run time (NVRTC), loads device code
// (PTX, CUBIN, fatbin) into a context, and launches its kernels with
// arguments checked against each kernel's parameter layout.
//
// The classic run-time workflow:
//
//	m, err := module.Compile(ctx, src, module.Options{Name: "scale.cu"})
//	if err != nil { return err }   // a *module.CompileError carries NVRTC's log
//	defer m.Close()
//	f, err := m.Function("scale")
//	err = f.Launch(s, module.Config{Grid: module.Cover(n, 256), Block: module.Dim(256)},
//		out, in, int32(n))
//
// Compile targets the context's device (CUBIN for sm_XY where NVRTC knows
// the architecture) and keeps its results in an on-disk cache, so a second
// run of a program loads the compiled code in about a millisecond instead of
// compiling again (see Options and CacheDir). A cache hit opens no
// compiler: the key names libnvrtc by its file (found as the system loader
// would find it, without loading it), so a fresh process that hits pays
// what a C program loading a CUBIN pays; NVRTC is opened on a miss only. A
// source that includes CUDA's own headers (<cooperative_groups.h>,
// <cuda_fp16.h>, <cuda/std/...>) needs no include paths: Compile adds the
// toolkit's (ToolkitIncludePaths, include/cccl included on CUDA 13), and
// the headers the source reaches there are in the cache key.
//
// A Library (LoadLibrary, CompileLibrary; cuLibrary, CUDA 12.0) is device
// code loaded once for every context of the driver: its LibraryKernels give
// a Function in any context, each context getting its own instance on
// first use, and its Close unloads it everywhere.
//
// CompileLTOIR compiles to LTO-IR, which Link links with link-time
// optimisation through nvJitLink (libnvJitLink, opened on first use) where
// the backend has it; the fake has no nvJitLink.
//
// Beyond compile and launch: Load reports what the driver's JIT compiler
// said (a *LoadError with its error log when it refuses PTX; Module.JITLog
// otherwise); Link links PTX, CUBIN, fatbin and LTO-IR inputs; Global is a
// buffer view of a module's __device__ or __constant__ variable; a Config
// with Cluster or Cooperative launches thread-block clusters or a
// cooperative grid (cuLaunchKernelEx), bounded by the occupancy queries
// Function.MaxActiveBlocksPerMultiprocessor and Function.MaxActiveClusters.
//
// The examples run on the fake driver (package fake) as written: the
// package Example_quickStart on the GPU too, where the driver loads.
//
// Ownership: a Module is owned by whoever loaded or compiled it; Close
// destroys it (idempotent) and every Function of it then returns driver.ErrClosed.
// A Module holds its context (driver.Context) until Close: it keeps
// working after the Context is released, and the context ends only after
// the Module is unloaded.
// Arguments are copied at launch: a Launch keeps no reference to them.
//
// # Kernel arguments
//
// Launch, Function.Args and Args.Set take these Go values:
//
//   - a device pointer: a *memory.Buffer[T], of any T, or a view of one
//     (8 bytes): its device address. A nil buffer, a freed one (driver.ErrClosed)
//     and a broken view (an out-of-range Slice: its error) are refused, and
//     the memory must be of the module's context or device
//     (driver.ErrWrongContext otherwise). Where the module was compiled
//     from CUDA C (Compile) and the kernel's C signature gives a pointer
//     to a number (float*, const int*), a buffer of another number type
//     (a *memory.Buffer[int32] for a float*) is refused; byte views
//     (Buffer.Bytes) and buffers of structs pass, as reinterpretations.
//     Launch errors then name parameters by their C declaration
//     ("argument 3 (int n)"), and say which Go type to pass.
//   - a raw device address, or NULL: a uintptr (uintptr(0) for NULL). A
//     value of any other type with a Ptr() uintptr method is refused, not
//     taken for a device pointer: a launch calls no method of a type it does
//     not know, so pass uintptr(x.Ptr()).
//   - bool, int8, uint8 (1 byte); int16, uint16 (2); int32, uint32, float32
//     (4); int64, uint64, int, uint, uintptr, float64, complex64 (8);
//     complex128 (16); and named types of these: the value. A Go int is 8
//     bytes: a C int takes int32.
//   - a struct or array without pointers, passed by value as its bytes: it
//     must be laid out like the kernel's C struct (same fields, same order,
//     same padding). Such types are checked by reflection once, then from a
//     cache.
//
// Other types, unsafe.Pointer and nil included, are refused. Arguments are
// recognised by their type alone, and read without calling methods through
// an interface, so the compiler's escape analysis sees all that a launch
// does with them: it keeps no argument, and a scalar boxed into an argument
// (as int32(n) above) stays on the caller's stack.
//
// Each argument's size must equal its parameter's, and the argument count
// the parameter count; a mismatch is an error wrapping ErrArgs that names
// the argument and the parameter, and nothing is launched. Where the
// module's PTX gives the parameter types (PTX loaded by Load, and what
// Compile compiled: it keeps the PTX beside the CUBIN, in its cache too),
// the Go type is checked as well: a .f parameter takes a float, a .s one a
// signed integer, a .u one any integer or bool or device pointer (NVRTC
// writes .u32 for a C int), a .b one any scalar; a .ptr parameter takes a
// device pointer only; a struct by value (.align A .b8 p[N]) takes a struct,
// array or complex number no more aligned than A; a [N]byte passes for any
// parameter of N bytes, unchecked. So int32(2) for a float parameter is
// refused ("argument 2 (float k): an int32 of 4 bytes for a .f32
// parameter"). A foreign CUBIN carries no types: its sizes are checked.
//
// Kernel1 to Kernel6 (NewKernel4[A, B, C, D](f), ...) are typed forms of a
// Function whose arguments Go's compiler checks: their types are checked
// against the kernel once, when made, and a launch checks no types and
// allocates nothing.
//
// The parameter layout comes from the driver (cuFuncGetParamInfo, CUDA
// 12.4+) or, on older drivers, from the kernel's PTX signature, which
// Compile keeps beside the CUBIN it produces and Load reads from PTX images.
// A CUBIN or fatbin loaded on an older driver has no known layout: its
// launches fail with ErrNoLayout rather than go unchecked.
//
// # Launch cost
//
// Launches are the hot path: Launch does no heap allocation of its own, for
// scalars, buffers and structs alike (beyond the first launch with a given
// struct or buffer type, which reflection checks and caches), and the
// prepared form (Function.Args, then Function.LaunchArgs, and Args.Set to
// change an argument) does none at all: its argument block is laid out once
// and pinned (runtime.Pinner), with the kernelParams array pointing into it.
//
// # Errors
//
// Errors name the call that failed first (module.Function.Launch: ...), then
// the object and the driver or NVRTC entry point, and wrap the cause
// (module.Function.Launch: kernel add1: argument 1 is a ...: launch
// arguments do not match the kernel's parameters).
package module

import "errors"

// Version is this library's version. It is part of every compile cache key,
// so a new version never reads entries written by an older one.
const Version = "0.1.0"

// ErrArgs is wrapped by every launch argument error: a count or size that
// does not match the kernel's parameters, an unsupported Go type, a freed
// buffer. Nothing is launched when it is returned.
//
//	if errors.Is(err, module.ErrArgs) { ... }
var ErrArgs = errors.New("module: launch arguments do not match the kernel's parameters")

// ErrConfig is wrapped by the errors of a launch configuration refused
// before reaching the driver (a zero dimension, a block over 1024 threads,
// negative shared memory). Such errors also wrap driver.ErrInvalidValue, as
// the driver would have answered.
var ErrConfig = errors.New("module: invalid launch configuration")

// ErrNoLayout is returned by launches of a kernel whose parameter layout is
// unknown: the driver has no cuFuncGetParamInfo (CUDA < 12.4) and the module
// was loaded from a CUBIN or fatbin, which carries no PTX signature. Compile
// keeps the PTX of what it compiles, and Load of PTX parses it, so only
// prebuilt binaries on old drivers meet this.
var ErrNoLayout = errors.New("module: kernel parameter layout unknown: the driver has no cuFuncGetParamInfo and the module carries no PTX")

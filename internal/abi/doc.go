// Package abi holds the facts about NVIDIA's libraries that the real
// backends (internal/libcuda) and the fake (package fake) share, so that
// neither side keeps its own copy: the name of every entry point the
// backends call, the library it belongs to and the CUDA version that
// introduced it with the ABI called (EntryPoints, Lookup, Since), and the
// layouts of the binary images cuModuleLoadData takes (CUBIN, that is ELF,
// and fatbin: CheckELF, CheckFatbin, FatbinEntries).
//
// The entry points come from internal/libcuda/entrypoints.txt, the one
// declaration table of the backends: internal/libcuda/internal/gen writes
// zz_generated.go here from it, together with libcuda's symbol table and
// methods. After changing the table, regenerate with
//
//	go generate ./internal/libcuda
//
// The package imports nothing of this module and no dynamic loading: the
// fake reads these facts without importing the real backend.
package abi

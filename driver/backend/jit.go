package backend

// JITLog is what the driver's JIT compiler and linker wrote to their log
// buffers: Info holds informational messages (with verbose logging,
// register and memory use per kernel), Error the reasons for a failure.
type JITLog struct {
	Info, Error string
}

// ModuleJIT is implemented by backends that load an image with the JIT's
// logs: ModuleLoadDataEx is cuModuleLoadDataEx with the info and error log
// buffers (CU_JIT_INFO_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER and their sizes)
// and, when verbose, CU_JIT_LOG_VERBOSE. Like ModuleLoadData it loads into
// the current context. The logs are returned whether or not the load
// succeeded; on failure Error says why.
type ModuleJIT interface {
	ModuleLoadDataEx(image []byte, verbose bool) (mod uintptr, log JITLog, err error)
}

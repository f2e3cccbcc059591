package backend

// ProcessSpawner is the optional interface of a backend that can stand up
// another "process" of its own kind inside this one: the fake does, so that
// GPU work that may fault can be isolated on a machine with no GPU (package
// worker runs its workers over such processes when the parent's driver is
// the fake, and in real child processes otherwise).
//
// A spawned process is a new, uninitialised backend (call Init, or
// driver.New) that sees the same devices (the same UUIDs) and shares the
// spawner's IPC namespace, as two processes on one machine do: memory and
// events exported by one (IPCGetMemHandle, IPCGetEventHandle) open in the
// other. It shares nothing else: its objects are its own, and a sticky fault
// in it poisons only it. Exit ends it as a process exit does.
type ProcessSpawner interface {
	SpawnProcess() (Process, error)
}

// Process is a backend spawned by a ProcessSpawner: the API of one isolated
// "process", plus its exit. Type assertions on it find the same optional
// interfaces as on its spawner.
type Process interface {
	API
	// Exit ends the process, as its exit would: everything it still held is
	// freed (its contexts, streams, events, memory, IPC mappings; handles it
	// exported stop opening), and every later call fails with
	// CUDA_ERROR_DEINITIALIZED. A second Exit is a no-op. Work of the
	// process still running (a hung host function, say) finishes against a
	// process that is gone.
	Exit()
}

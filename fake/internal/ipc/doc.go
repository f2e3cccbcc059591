// Package ipc is the fake driver's room for interprocess sharing
// (cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle,
// cuIpcGetEventHandle, cuIpcOpenEventHandle). Each fake backend stands for
// one process, and this package's registry is the kernel-level sharing
// between them: an exported allocation's storage is mapped, not copied, by
// the backend that opens its handle, and an exported event's state is
// shared.
//
// The room owns the process-wide registry of exported memory and events
// under that registry's lock, a leaf: the core calls Withdraw while it
// holds its own lock, and no other lock is taken under the registry's. It
// reaches the fake's core only through [Core]: the entry-point prologue,
// the current context, exporting an allocation or an event of the core's
// tables (which keep the id they are exported under), and mapping another
// process's storage or opening its event in the current context.
package ipc

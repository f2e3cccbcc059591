package vmm

import "syscall"

// sysMemfdCreate is memfd_create's number on linux/arm64.
const sysMemfdCreate = syscall.SYS_MEMFD_CREATE

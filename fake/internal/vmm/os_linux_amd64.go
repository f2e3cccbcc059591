package vmm

// sysMemfdCreate is memfd_create's number on linux/amd64 (the syscall
// package has no constant for it there).
const sysMemfdCreate = 319

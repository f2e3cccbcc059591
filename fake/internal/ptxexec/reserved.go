package ptxexec

// reservedShared is the shared memory each block has beyond the kernel's
// own, for NVIDIA's system software: 1 KiB, the H200's
// cudaDevAttrReservedSharedMemoryPerBlock. It lies after the kernel's
// static and dynamic shared memory and is zeroed with them at each block's
// start. %reserved_smem_offset_begin (and _0), _end and _cap name it;
// %reserved_smem_offset_1 is its second half, where cooperative groups
// (CUDA 12 and later, sm_80 and up) keep the barriers and exchange slots
// of tiles of more than one warp (at least 288 bytes). %total_smem_size
// leaves it out, as PTX defines.
const reservedShared = 1024

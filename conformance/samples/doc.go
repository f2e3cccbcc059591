// Package samples holds the CUDA C of the conformance suite's "samples"
// group and the Go references its results are checked against: kernels
// written from the algorithms of NVIDIA's cuda-samples (the reduction
// variants, scans, a 256-bin histogram, a padded tiled transpose,
// warp-aggregated atomics, cooperative groups, a half2 dot product) and of
// karpathy/llm.c (encoder, layernorm, matmul with bias, online softmax, a
// block-wide row reduction whose lanes all store their warp's sum, and
// GELU forward, in float and in bf16). The kernels are this project's own
// versions of those algorithms, not copies of the public files.
//
// The package is constants and pure Go functions only: it imports nothing
// of the module, so any backend's test (the fake, the real driver) can use
// it. The conformance package compiles the sources with module.Compile and
// compares what they compute with the references here.
//
// Three sources, by what they need from CUDA's headers:
//   - [Source]: no headers (reductions, scans, histogram, transpose,
//     warp-aggregated atomics with __activemask).
//   - [LLMSource]: no headers; llm.c's float kernels. Compile it with
//     [LLMFlags] (--fmad=false) so that every float operation is rounded
//     on its own and the references can repeat them exactly.
//   - [HalfSource]: cuda_fp16.h and cuda_bf16.h (half2 dot product, llm.c's
//     bf16 kernels); compile it with [LLMFlags] too.
//   - [CGSource]: cooperative_groups.h (thread_block, tiled_partition,
//     cg::reduce, cg::inclusive_scan, coalesced_threads,
//     labeled_partition).
//   - [CGPartitionSource]: cooperative_groups.h (cg::reduce over the groups
//     of labeled_partition and binary_partition, as warpAggregatedAtomicsCG
//     and binaryPartitionCG reduce them).
//   - [WarpBarrierSource]: no headers; a block sum whose warps meet at a
//     software barrier of shared atomics and a volatile spin, as
//     cooperative groups' multi-warp tiles synchronise.
package samples

package backend

// BLASLtProvider is implemented by backends that come with cuBLASLt, the
// lightweight matrix-multiply library with heuristics and fused
// epilogues. The real backend opens libcublasLt on the first call; the fake
// answers with its own, which computes on the CPU in stream order.
type BLASLtProvider interface {
	CUBLASLt() (CUBLASLt, error)
}

// CUBLASLt is the seam to cuBLASLt (libcublasLt): one method per entry
// point, handles and descriptors (cublasLtHandle_t, cublasLtMatmulDesc_t,
// cublasLtMatrixLayout_t, cublasLtMatmulPreference_t) and device pointers
// as uintptr. Attribute values are passed as their bytes (an int32 enum as
// 4 little-endian bytes, a pointer or size_t as 8).
//
// Create works on the calling OS thread's current context; callers bind the
// context for Create, AlgoGetHeuristic and Matmul.
//
// Failed calls return a *BLASError (errors.Is with a BLASStatus).
type CUBLASLt interface {
	Create() (uintptr, error)
	Destroy(h uintptr) error
	// Version is cublasLtGetVersion: major*10000 + minor*100 + patch.
	Version() int

	MatmulDescCreate(compute BLASComputeType, scale DataType) (uintptr, error)
	MatmulDescDestroy(d uintptr) error
	MatmulDescSetAttribute(d uintptr, attr LtMatmulDescAttr, value []byte) error

	// MatrixLayoutCreate is cublasLtMatrixLayoutCreate: a column-major
	// rows×cols matrix of type t with leading dimension ld.
	MatrixLayoutCreate(t DataType, rows, cols uint64, ld int64) (uintptr, error)
	MatrixLayoutDestroy(l uintptr) error
	MatrixLayoutSetAttribute(l uintptr, attr LtLayoutAttr, value []byte) error

	PreferenceCreate() (uintptr, error)
	PreferenceDestroy(p uintptr) error
	PreferenceSetAttribute(p uintptr, attr LtPreferenceAttr, value []byte) error

	// AlgoGetHeuristic is cublasLtMatmulAlgoGetHeuristic: up to
	// len(results) algorithms for the operation, best first; it returns
	// how many it wrote. None is CUBLAS_STATUS_NOT_SUPPORTED.
	AlgoGetHeuristic(h, desc, a, b, c, d, pref uintptr, results []LtHeuristicResult) (int, error)

	// Matmul is cublasLtMatmul: D = epilogue(alpha*op(A)*op(B) + beta*C).
	// scale is the descriptor's scale type, which says how the host-mode
	// alpha and beta are passed. algo nil lets cuBLASLt choose.
	Matmul(h, desc uintptr, scale DataType, alpha BLASScalar, a, adesc, b, bdesc uintptr,
		beta BLASScalar, c, cdesc, d, ddesc uintptr, algo *LtAlgo, workspace, workspaceSize, s uintptr) error
}

// LtAlgo is a cublasLtMatmulAlgo_t: 8 opaque 64-bit words.
type LtAlgo [8]uint64

// LtHeuristicResult is a cublasLtMatmulHeuristicResult_t, laid out as in
// cublasLt.h (96 bytes).
type LtHeuristicResult struct {
	Algo          LtAlgo
	WorkspaceSize uintptr // bytes of workspace the algorithm needs
	State         int32   // a cublasStatus_t: 0 when the algorithm works
	WavesCount    float32 // waves of the device's SMs; 1 is a full wave
	Reserved      [4]int32
}

// LtMatmulDescAttr is a cublasLtMatmulDescAttributes_t.
type LtMatmulDescAttr int32

// The cublasLtMatmulDescAttributes_t values used here.
const (
	LtDescComputeType   LtMatmulDescAttr = 0
	LtDescScaleType     LtMatmulDescAttr = 1
	LtDescPointerMode   LtMatmulDescAttr = 2
	LtDescTransA        LtMatmulDescAttr = 3 // int32 BLASOp
	LtDescTransB        LtMatmulDescAttr = 4
	LtDescEpilogue      LtMatmulDescAttr = 7  // uint32 LtEpilogue
	LtDescBiasPointer   LtMatmulDescAttr = 8  // device pointer
	LtDescAScalePointer LtMatmulDescAttr = 17 // device pointer to a float (fp8)
	LtDescBScalePointer LtMatmulDescAttr = 18
	LtDescCScalePointer LtMatmulDescAttr = 19
	LtDescDScalePointer LtMatmulDescAttr = 20
	LtDescAmaxDPointer  LtMatmulDescAttr = 21
	LtDescFastAccum     LtMatmulDescAttr = 25 // int8
	LtDescBiasDataType  LtMatmulDescAttr = 26 // int32 DataType
)

// LtEpilogue is a cublasLtEpilogue_t.
type LtEpilogue uint32

// The cublasLtEpilogue_t values offered here.
const (
	LtEpilogueDefault  LtEpilogue = 1
	LtEpilogueReLU     LtEpilogue = 2
	LtEpilogueBias     LtEpilogue = 4
	LtEpilogueReLUBias LtEpilogue = 6
	LtEpilogueGELU     LtEpilogue = 32
	LtEpilogueGELUBias LtEpilogue = 36
)

// LtLayoutAttr is a cublasLtMatrixLayoutAttribute_t.
type LtLayoutAttr int32

// The cublasLtMatrixLayoutAttribute_t values used here.
const (
	LtLayoutOrder         LtLayoutAttr = 1 // int32: 0 column-major, 1 row-major
	LtLayoutBatchCount    LtLayoutAttr = 5 // int32
	LtLayoutStridedOffset LtLayoutAttr = 6 // int64, in elements
)

// LtPreferenceAttr is a cublasLtMatmulPreferenceAttributes_t.
type LtPreferenceAttr int32

// The cublasLtMatmulPreferenceAttributes_t values used here.
const (
	LtPrefMaxWorkspaceBytes LtPreferenceAttr = 1 // uint64
)

package abi

// The libnccl entry points the fake's NCCL implements and the real backend
// (internal/libnccl) calls, by exported name: the names FailNth and Calls
// of package fake use for NCCL. libnccl is opened with dlsym, its entry
// points never versioned, so this hand-kept list (not the generated table
// of internal/libcuda/entrypoints.txt, whose generator speaks the driver's
// ABI) is their one declaration; internal/libnccl names its symbols by it.
const (
	NcclGetVersion           = "ncclGetVersion"
	NcclGetUniqueId          = "ncclGetUniqueId"
	NcclCommInitRankConfig   = "ncclCommInitRankConfig"
	NcclCommInitRankScalable = "ncclCommInitRankScalable"
	NcclCommInitAll          = "ncclCommInitAll"
	NcclCommSplit            = "ncclCommSplit"
	NcclCommFinalize         = "ncclCommFinalize"
	NcclCommDestroy          = "ncclCommDestroy"
	NcclCommAbort            = "ncclCommAbort"
	NcclCommGetAsyncError    = "ncclCommGetAsyncError"
	NcclCommCount            = "ncclCommCount"
	NcclCommCuDevice         = "ncclCommCuDevice"
	NcclCommUserRank         = "ncclCommUserRank"
	NcclGetErrorString       = "ncclGetErrorString"
	NcclGetLastError         = "ncclGetLastError"
	NcclGroupStart           = "ncclGroupStart"
	NcclGroupEnd             = "ncclGroupEnd"
	NcclAllReduce            = "ncclAllReduce"
	NcclBroadcast            = "ncclBroadcast"
	NcclReduce               = "ncclReduce"
	NcclAllGather            = "ncclAllGather"
	NcclReduceScatter        = "ncclReduceScatter"
	NcclSend                 = "ncclSend"
	NcclRecv                 = "ncclRecv"
)

// ncclTable lists libnccl's entry points. Since is the NCCL version
// (NCCL_VERSION_CODE: 10000*major + 100*minor + patch) that introduced
// each; 20000 (NCCL 2.0) for the oldest. The inner ones are called only
// inside another entry point's method (an error's text, the scalable
// initialisation that CommInitRank may use): the fake neither counts nor
// fails them.
var ncclTable = [...]EntryPoint{
	{Name: NcclGetVersion, Library: NCCL, Since: 20000},
	{Name: NcclGetUniqueId, Library: NCCL, Since: 20000},
	{Name: NcclCommInitRankConfig, Library: NCCL, Since: 21400},
	{Name: NcclCommInitRankScalable, Library: NCCL, Since: 22300, Inner: true},
	{Name: NcclCommInitAll, Library: NCCL, Since: 20000},
	{Name: NcclCommSplit, Library: NCCL, Since: 21800},
	{Name: NcclCommFinalize, Library: NCCL, Since: 21400},
	{Name: NcclCommDestroy, Library: NCCL, Since: 20000},
	{Name: NcclCommAbort, Library: NCCL, Since: 20000},
	{Name: NcclCommGetAsyncError, Library: NCCL, Since: 20000},
	{Name: NcclCommCount, Library: NCCL, Since: 20000},
	{Name: NcclCommCuDevice, Library: NCCL, Since: 20000},
	{Name: NcclCommUserRank, Library: NCCL, Since: 20000},
	{Name: NcclGetErrorString, Library: NCCL, Since: 20000, Inner: true},
	{Name: NcclGetLastError, Library: NCCL, Since: 21300, Inner: true},
	{Name: NcclGroupStart, Library: NCCL, Since: 20000},
	{Name: NcclGroupEnd, Library: NCCL, Since: 20000},
	{Name: NcclAllReduce, Library: NCCL, Since: 20000},
	{Name: NcclBroadcast, Library: NCCL, Since: 20000},
	{Name: NcclReduce, Library: NCCL, Since: 20000},
	{Name: NcclAllGather, Library: NCCL, Since: 20000},
	{Name: NcclReduceScatter, Library: NCCL, Since: 20000},
	{Name: NcclSend, Library: NCCL, Since: 20700},
	{Name: NcclRecv, Library: NCCL, Since: 20700},
}

// ncclIndex returns the index in ncclTable of the entry point name, or -1.
func ncclIndex(name string) int {
	for i, ep := range ncclTable {
		if ep.Name == name {
			return i
		}
	}
	return -1
}

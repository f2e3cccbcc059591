//go:build linux && (amd64 || arm64)

package libcuda

// cInt reports whether v fits a C int (32 bits), the type of device
// ordinals, priorities and attribute values.
func cInt(v int) bool { return v == int(int32(v)) }

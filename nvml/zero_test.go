package nvml_test

import (
	"testing"

	"github.com/nocgo/cuda/internal/zerotest"
	"github.com/nocgo/cuda/nvml"
)

// Every method of every exported type, on a nil pointer and on a zero
// value, returns an error (or a zero answer) and never panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	values := []any{
		(*nvml.Library)(nil), (*nvml.Device)(nil), (*nvml.EventSet)(nil),
		nvml.Bytes(0), nvml.Milliwatts(0), nvml.Millijoules(0), nvml.Celsius(0), nvml.MHz(0), nvml.Percent(0),
		nvml.Brand(0), nvml.Architecture(0), nvml.PCIInfo{}, nvml.Memory{}, nvml.Utilization{}, nvml.CodecUtilization{},
		nvml.Threshold(0), nvml.Clock(0), nvml.ThrottleReasons(0), nvml.ECCMode{}, nvml.ECCErrors{},
		nvml.RetirementCause(0), nvml.RemappedRows{}, nvml.Process{}, nvml.NVLinkCounter(0), nvml.Topology(0),
		nvml.MIGMode{}, nvml.EventType(0), nvml.Event{},
	}
	zerotest.Covers(t, ".", values...)
	zerotest.Methods(t, zerotest.Options{}, values...)
}

package nvml

import (
	"fmt"
	"math"

	"github.com/nocgo/cuda/driver"
	"github.com/nocgo/cuda/driver/backend"
)

// NVLinkActive reports whether NVLink link is up (nvmlDeviceGetNvLinkState,
// NVML 8). Links the GPU does not have fail with ErrInvalidArgument.
func (d *Device) NVLinkActive(link int) (bool, error) {
	const op = "nvml.Device.NVLinkActive"
	if err := checkLink(op, link); err != nil {
		return false, err
	}
	return query(d, op, func(n backend.NVML, h uintptr) (bool, error) { return n.DeviceNVLinkState(h, uint32(link)) })
}

// NVLinkRemote returns the PCI location of what is at the other end of an
// active link: a peer GPU, or an NVSwitch (nvmlDeviceGetNvLinkRemotePciInfo_v2,
// NVML 10).
func (d *Device) NVLinkRemote(link int) (PCIInfo, error) {
	const op = "nvml.Device.NVLinkRemote"
	if err := checkLink(op, link); err != nil {
		return PCIInfo{}, err
	}
	p, err := query(d, op, func(n backend.NVML, h uintptr) (backend.NVMLPCIInfo, error) {
		return n.DeviceNVLinkRemotePCIInfo(h, uint32(link))
	})
	return PCIInfo(p), err
}

// NVLinkCounter is an nvmlNvLinkErrorCounter_t.
type NVLinkCounter int

// The counters (nvml.h, NVML_NVLINK_ERROR_*).
const (
	NVLinkReplay   NVLinkCounter = 0 // data link transmit replays
	NVLinkRecovery NVLinkCounter = 1 // data link transmit recoveries
	NVLinkCRCFlit  NVLinkCounter = 2 // data link receive flow-control digit CRC errors
	NVLinkCRCData  NVLinkCounter = 3 // data link receive data CRC errors
	NVLinkECCData  NVLinkCounter = 4 // data link receive data ECC errors
)

// NVLinkErrors returns one error counter of an active link
// (nvmlDeviceGetNvLinkErrorCounter, NVML 8).
func (d *Device) NVLinkErrors(link int, c NVLinkCounter) (uint64, error) {
	const op = "nvml.Device.NVLinkErrors"
	if err := checkLink(op, link); err != nil {
		return 0, err
	}
	return query(d, op, func(n backend.NVML, h uintptr) (uint64, error) {
		return n.DeviceNVLinkErrorCounter(h, uint32(link), uint32(c))
	})
}

// checkLink refuses a negative link number before NVML sees it.
func checkLink(op string, link int) error {
	if link < 0 || link > math.MaxInt32 {
		return fmt.Errorf("%s: link %d: %w", op, link, driver.ErrInvalidInput)
	}
	return nil
}

// Topology is an nvmlGpuTopologyLevel_t: how close two GPUs are on the PCIe
// tree.
type Topology int

// The levels (nvml.h, NVML_TOPOLOGY_*), closest first.
const (
	TopologyInternal   Topology = 0  // the same board
	TopologySingle     Topology = 10 // one PCIe switch between them
	TopologyMultiple   Topology = 20 // several PCIe switches, no host bridge
	TopologyHostBridge Topology = 30 // one host bridge
	TopologyNode       Topology = 40 // host bridges of one NUMA node
	TopologySystem     Topology = 50 // across NUMA nodes (SMP interconnect)
)

// String returns "NODE" and the like, as nvidia-smi topo -m names them.
func (t Topology) String() string {
	switch t {
	case TopologyInternal:
		return "INTERNAL"
	case TopologySingle:
		return "PIX"
	case TopologyMultiple:
		return "PXB"
	case TopologyHostBridge:
		return "PHB"
	case TopologyNode:
		return "NODE"
	case TopologySystem:
		return "SYS"
	}
	return fmt.Sprintf("Topology(%d)", int(t))
}

// Topology returns the closest common ancestor of the two GPUs on the PCIe
// tree (nvmlDeviceGetTopologyCommonAncestor, NVML 7.346; Linux only).
func (d *Device) Topology(other *Device) (Topology, error) {
	const op = "nvml.Device.Topology"
	if other == nil || other.l == nil {
		return 0, fmt.Errorf("%s: nil other device: %w", op, driver.ErrInvalidInput)
	}
	if d != nil && other.l != d.l {
		return 0, fmt.Errorf("%s: the other device is of another Library: %w", op, driver.ErrInvalidInput)
	}
	t, err := query(d, op, func(n backend.NVML, h uintptr) (int, error) { return n.DeviceTopology(h, other.h) })
	return Topology(t), err
}

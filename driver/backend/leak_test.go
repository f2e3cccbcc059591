package backend

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLeakString(t *testing.T) {
	for _, c := range []struct {
		l    Leak
		want string
	}{
		{Leak{Kind: LeakPrimaryContext, Handle: 0x10, Device: 1, Refs: 2}, "primary context 0x10 on device 1: 2 references retained"},
		{Leak{Kind: LeakContext, Handle: 0x10, Device: 0}, "context 0x10 on device 0: not destroyed"},
		{Leak{Kind: LeakStream, Handle: 0x20, Context: 0x10}, "stream 0x20 in context 0x10: not destroyed"},
		{Leak{Kind: LeakEvent, Handle: 0x20, Context: 0x10}, "event 0x20 in context 0x10: not destroyed"},
		{Leak{Kind: LeakModule, Handle: 0x20, Context: 0x10}, "module 0x20 in context 0x10: not unloaded"},
		{Leak{Kind: LeakDeviceMemory, Handle: 0x300, Size: 100, Device: 0}, "device memory 0x300: 100 bytes on device 0 not freed"},
		{Leak{Kind: LeakAsyncMemory, Handle: 0x300, Size: 8, Device: 1}, "stream-ordered device memory 0x300: 8 bytes on device 1 not freed"},
		{Leak{Kind: LeakHostMemory, Handle: 0x300, Size: 8, Context: 0x10}, "pinned host memory 0x300: 8 bytes in context 0x10 not freed"},
		{Leak{Kind: LeakIPCMapping, Handle: 0x300, Size: 8, Context: 0x10}, "IPC mapping 0x300: 8 bytes in context 0x10 not closed"},
		{Leak{Kind: LeakProgram, Handle: 0x40, Detail: "k.cu"}, "NVRTC program 0x40 (k.cu): not destroyed"},
		{Leak{Kind: LeakGraph, Handle: 0x50, Detail: "3 nodes"}, "graph 0x50 (3 nodes): not destroyed"},
		{Leak{Kind: LeakGraphExec, Handle: 0x60, Context: 0x10}, "graph exec 0x60 in context 0x10: not destroyed"},
		{Leak{Kind: "communicator", Handle: 0x70, Detail: "rank 1 of 2"}, "communicator 0x70: rank 1 of 2"},
		{Leak{Kind: "communicator", Handle: 0x70}, "communicator 0x70"},
		{Leak{Kind: LeakStream, Handle: 0x20, Context: 0x10, Site: "foo_test.go:42 (TestX)"}, "stream 0x20 in context 0x10: not destroyed, made at foo_test.go:42 (TestX)"},
	} {
		assert.Equal(t, c.want, c.l.String(), "%+v", c.l)
	}
}

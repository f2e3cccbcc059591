package abi

import (
	"testing"
)

// The fuzz targets check memory, not only crashes: whatever the input,
// the parsers allocate at most memoryBound of its size (20 times, issue
// 21's bound; in fact nothing but an error), and what they accept lies
// inside the input.

func FuzzCheckELF(f *testing.F) {
	f.Add(craftedELF())
	f.Add(minimalELF())
	f.Add(hostileNames(16, 64))
	for _, image := range badELFs() {
		f.Add(image)
	}
	f.Fuzz(func(t *testing.T, image []byte) {
		var err error
		checkMemory(t, "CheckELF", image, func() { err = CheckELF(image) })
		if err == nil && KindOf(image) != ImageELF {
			t.Fatal("accepted an image without the ELF magic")
		}
	})
}

func FuzzCheckFatbin(f *testing.F) {
	for _, image := range goodFatbins() {
		f.Add(image)
	}
	for _, image := range badFatbins() {
		f.Add(image)
	}
	f.Fuzz(func(t *testing.T, image []byte) {
		var err error
		checkMemory(t, "CheckFatbin", image, func() { err = CheckFatbin(image) })
		var end uint64 // where the last entry yielded ends
		n := 0
		checkMemory(t, "FatbinEntries", image, func() {
			for e := range FatbinEntries(image) {
				if e.Offset < end {
					t.Fatalf("entry at %d overlaps the previous one, which ends at %d", e.Offset, end)
				}
				end = e.Offset + FatbinEntryMin + uint64(len(e.Payload))
				if end > uint64(len(image)) {
					t.Fatalf("entry at %d ends at %d, past the image (%d bytes)", e.Offset, end, len(image))
				}
				n++
			}
		})
		if err == nil && n > 0 && end > uint64(readU16(image[6:]))+readU64(image[8:]) {
			t.Fatalf("accepted image's entries end at %d, past its body", end)
		}
	})
}

func readU16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

func readU64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

package samples

import (
	"math"
	"testing"
)

// TestHalfRoundMatchesFloat32 checks HalfRound against a float32 route for
// every binary16 and the midpoints between neighbours.
func TestHalfRound(t *testing.T) {
	for h := range uint32(0x7c00) {
		v := float64(HalfToFloat(uint16(h)))
		if got := HalfRound(v, 0); got != uint16(h) {
			t.Fatalf("HalfRound(%v) = %#04x, want %#04x", v, got, h)
		}
		if got := HalfRound(-v, 0); got != uint16(h)|0x8000 {
			t.Fatalf("HalfRound(%v) = %#04x, want %#04x", -v, got, h|0x8000)
		}
		if h == 0x7bff {
			continue
		}
		next := float64(HalfToFloat(uint16(h + 1)))
		mid := (v + next) / 2
		even := uint16(h)
		if h&1 == 1 {
			even = uint16(h + 1)
		}
		if got := HalfRound(mid, 0); got != even {
			t.Fatalf("HalfRound(midpoint %v) = %#04x, want %#04x", mid, got, even)
		}
		if got := HalfRound(mid, 1e-300); got != uint16(h+1) {
			t.Fatalf("HalfRound(midpoint %v + tiny) = %#04x, want %#04x", mid, got, h+1)
		}
		if got := HalfRound(mid, -1e-300); got != uint16(h) {
			t.Fatalf("HalfRound(midpoint %v - tiny) = %#04x, want %#04x", mid, got, h)
		}
	}
	if got := HalfRound(65520, 0); got != 0x7c00 {
		t.Errorf("HalfRound(65520) = %#04x, want infinity", got)
	}
	if got := HalfRound(65520, -1e-9); got != 0x7bff {
		t.Errorf("HalfRound(65520-) = %#04x, want 65504", got)
	}
}

func TestBF16Round(t *testing.T) {
	for _, c := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3f80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie to even
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie to even, up
		{math.Float32frombits(0x3f808001), 0x3f81},
		{-2, 0xc000},
	} {
		if got := BF16Round(c.f); got != c.want {
			t.Errorf("BF16Round(%#08x) = %#04x, want %#04x", math.Float32bits(c.f), got, c.want)
		}
	}
	if got := BF16Round(float32(math.NaN())); BF16ToFloat(got) == BF16ToFloat(got) {
		t.Errorf("BF16Round(NaN) = %#04x, not a NaN", got)
	}
}

func TestULPs(t *testing.T) {
	if d := ULPs(1, math.Nextafter32(1, 2)); d != 1 {
		t.Errorf("ULPs(1, next) = %d", d)
	}
	if d := ULPs(float32(math.Copysign(0, -1)), 0); d != 0 {
		t.Errorf("ULPs(-0, 0) = %d", d)
	}
	if d := ULPs(-math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat32); d != 2 {
		t.Errorf("ULPs(-min, min) = %d", d)
	}
}

func TestReferences(t *testing.T) {
	in := []int32{1, 2, 3, 4, 5}
	if got := BlockSums(in, 2); len(got) != 3 || got[0] != 3 || got[2] != 5 {
		t.Errorf("BlockSums = %v", got)
	}
	if got := InclusiveScan(in, 2); got[1] != 3 || got[2] != 3 || got[3] != 7 {
		t.Errorf("InclusiveScan = %v", got)
	}
	out, sums := ExclusiveScan(in, 2)
	if out[0] != 0 || out[1] != 1 || out[3] != 3 || sums[1] != 7 {
		t.Errorf("ExclusiveScan = %v %v", out, sums)
	}
	if h := Histogram([]uint32{0x01010203}); h[1] != 2 || h[2] != 1 || h[3] != 1 {
		t.Errorf("Histogram: %v", h[:4])
	}
	if got := TransposeRef([]float32{1, 2, 3, 4, 5, 6}, 3, 2); got[1] != 4 || got[2] != 2 {
		t.Errorf("TransposeRef = %v", got)
	}
	if got := HalfFMA(0x3c00, 0x4000, 0x3c00); got != 0x4200 { // 1*2+1 = 3
		t.Errorf("HalfFMA(1, 2, 1) = %#04x", got)
	}
}

package nvml

import (
	"strconv"
	"strings"
)

// Bytes is an amount of memory.
type Bytes uint64

// String returns the amount in the largest binary unit that keeps it
// readable: "80 GiB", "141.1 GiB", "1.5 KiB", "12 B" (one decimal).
func (b Bytes) String() string {
	const units = "KMGTPE"
	if b < 1024 {
		return strconv.FormatUint(uint64(b), 10) + " B"
	}
	v, i := float64(b)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + units[i:i+1] + "iB"
}

// Milliwatts is a power.
type Milliwatts uint32

// String returns "312.5 W".
func (p Milliwatts) String() string {
	return strconv.FormatFloat(float64(p)/1000, 'f', -1, 64) + " W"
}

// Millijoules is an energy.
type Millijoules uint64

// String returns "1234.567 J".
func (e Millijoules) String() string {
	return strconv.FormatFloat(float64(e)/1000, 'f', -1, 64) + " J"
}

// Celsius is a temperature in degrees Celsius.
type Celsius uint32

// String returns "45 °C".
func (c Celsius) String() string { return strconv.FormatUint(uint64(c), 10) + " °C" }

// MHz is a clock frequency.
type MHz uint32

// String returns "1980 MHz".
func (f MHz) String() string { return strconv.FormatUint(uint64(f), 10) + " MHz" }

// Percent is a utilisation or a fan speed, 0 to 100.
type Percent uint32

// String returns "42%".
func (p Percent) String() string { return strconv.FormatUint(uint64(p), 10) + "%" }

package cmdutil

import (
	"runtime"
	"testing"
)

func TestGCMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ input, ram, want int64 }{
		{0, 0, 512 * mib},                 // 4·0 + 512 MiB
		{100 * mib, 0, 912 * mib},         // 4·100 + 512, RAM unknown
		{100 * mib, 24 << 30, 912 * mib},  // well under half of 24 GiB
		{4 << 30, 24 << 30, 12 << 30},     // capped at half the RAM
		{100 * mib, 300 * mib, 256 * mib}, // half the RAM, raised to the floor
	} {
		if got := GCMemoryLimit(c.input, c.ram); got != c.want {
			t.Errorf("GCMemoryLimit(%d MiB, %d MiB) = %d MiB, want %d MiB", c.input/mib, c.ram/mib, got/mib, c.want/mib)
		}
	}
	if runtime.GOOS == "linux" && physicalMemory() < 256*mib {
		t.Errorf("physicalMemory() = %d bytes", physicalMemory())
	}
}

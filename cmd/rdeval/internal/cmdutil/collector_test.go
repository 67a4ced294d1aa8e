package cmdutil

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
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

// TestPauseCollector: the collector is off (GC percent < 0) with a memory
// limit while paused, a nested pause changes nothing, and restore brings
// back both settings (skipped when GOGC or GOMEMLIMIT is set, as then
// PauseCollector does nothing).
func TestPauseCollector(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: PauseCollector leaves the collector alone")
	}
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(limit)

	restore := PauseCollector(nil)
	if p := debug.SetGCPercent(-1); p >= 0 {
		t.Errorf("paused: GC percent %d, want off", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 512<<20 && l != physicalMemory()/2 {
		t.Errorf("paused: memory limit %d", l)
	}
	inner := PauseCollector([]string{"no/such/file"})
	inner()
	if p := debug.SetGCPercent(-1); p >= 0 {
		t.Errorf("after a nested pause and its restore: GC percent %d, want still off", p)
	}
	restore()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("restored: GC percent %d, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("restored: memory limit %d, want none", l)
	}
}

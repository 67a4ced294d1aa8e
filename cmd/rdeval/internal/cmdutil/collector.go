package cmdutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
)

// PauseCollector turns the garbage collector off while a command reads
// inputs, with a memory limit as the safety net (GCMemoryLimit of the
// inputs' size), and returns the function that restores both settings:
//
//	defer cmdutil.PauseCollector(inputs)()
//
// Reading builds the dataset, which only grows until it is read: a
// collection finds little to free, and with the collector on, each one
// scans the growing heap and makes fresh memory be touched twice. It does
// nothing when the user set GOGC or GOMEMLIMIT. Measured (docs/performance.md):
// `rdeval ingest` of METR ×20 (65 MB JSON Lines) 0.510 → 0.460 s wall, and
// the load of score@k's METR file (3 MB) about 10 ms less of 45.
func PauseCollector(inputs []string) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(-1)
	if percent < 0 {
		// Already paused by the caller (rdeval ingest pauses it for its
		// whole run, reading included): its limit stands.
		return func() {}
	}
	limit := debug.SetMemoryLimit(GCMemoryLimit(InputBytes(inputs), physicalMemory()))
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// GCMemoryLimit is the heap size at which the collector runs while it is
// paused: four times the input plus 512 MiB (ingest's peak RSS is 2–3
// times the input: docs/performance.md, "Scaling"), at most half the
// machine's memory when that is known (ram > 0), and at least 256 MiB.
func GCMemoryLimit(input, ram int64) int64 {
	limit := 4*input + 512<<20
	if ram > 0 {
		limit = min(limit, ram/2)
	}
	return max(limit, 256<<20)
}

// InputBytes is the total size of the regular files at or under paths
// (paths that cannot be read count nothing: reading them reports why).
func InputBytes(paths []string) int64 {
	var n int64
	for _, p := range paths {
		filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
	}
	return n
}

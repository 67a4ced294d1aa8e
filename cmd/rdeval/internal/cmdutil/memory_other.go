//go:build !linux

package cmdutil

// physicalMemory is the machine's RAM in bytes; 0: unknown on this system.
func physicalMemory() int64 { return 0 }

package ingest

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only (MAP_POPULATE: the
// kernel maps the page-cache pages in one call rather than one fault per
// page), or returns nil when it cannot.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil
	}
	return b
}

func unmapFile(b []byte) { syscall.Munmap(b) }

package ingest

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Huge pages. Ingesting touches a few hundred MB of fresh memory (the
// dataset's rows, Arrow columns, Parquet encoders' buffers); mapped 4 KiB
// at a time, the page faults took about a quarter of an ingest's CPU time
// (perf: clear_page, copy-on-write of the zero page and TLB shootdowns).
// Large buffers are therefore advised as transparent huge pages, which the
// kernel maps 2 MiB at a time where THP is enabled ("madvise" or "always");
// elsewhere the advice is ignored. It changes no byte of any output.

// hugeMin is the least buffer size worth advising: below a few MiB a
// buffer holds at most one whole 2 MiB page.
const hugeMin = 4 << 20

// hugeAllocator is memory.GoAllocator advising large buffers as huge pages.
type hugeAllocator struct{ memory.GoAllocator }

func (a *hugeAllocator) Allocate(size int) []byte {
	b := a.GoAllocator.Allocate(size)
	if size >= hugeMin {
		adviseHugePages(b)
	}
	return b
}

func (a *hugeAllocator) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	return nb
}

// adviseHugeSlice advises the memory behind s[len(s):cap(s)], a large
// slice's spare capacity, as huge pages.
func adviseHugeSlice[T any](s []T) {
	spare := s[len(s):cap(s)]
	if len(spare) == 0 {
		return
	}
	n := len(spare) * int(unsafe.Sizeof(spare[0]))
	if n >= hugeMin {
		adviseHugePages(unsafe.Slice((*byte)(unsafe.Pointer(&spare[0])), n))
	}
}

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

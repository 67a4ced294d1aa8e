package ingest

import "syscall"

// adviseHugePages asks the kernel to back the whole 2 MiB pages of b with
// transparent huge pages (madvise MADV_HUGEPAGE; a hint, honoured where
// /sys/kernel/mm/transparent_hugepage/enabled is "madvise" or "always"):
// one fault then maps 2 MiB rather than 4 KiB. b must not be in use.
func adviseHugePages(b []byte) {
	const huge = 2 << 20
	lo := (uintptr(unsafePointer(b)) + huge - 1) &^ (huge - 1)
	hi := (uintptr(unsafePointer(b)) + uintptr(len(b))) &^ (huge - 1)
	if hi <= lo {
		return
	}
	off := int(lo - uintptr(unsafePointer(b)))
	syscall.Madvise(b[off:off+int(hi-lo)], 14) // MADV_HUGEPAGE
}

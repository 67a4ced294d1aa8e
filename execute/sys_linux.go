package execute

import "syscall"

// Linux system calls execute uses, kept apart so that rdeval builds on
// other systems (sys_other.go), where the sandbox and overlay work trees
// are not available.

// sandboxProcAttr puts a child in its own process group, which the
// runner kills as a whole, and has the kernel kill it when the driver
// dies (Pdeathsig), so that no sandbox outlives an `rdeval execute`
// killed with SIGKILL.
func sandboxProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// mknodWhiteout makes name in the folder open as dirfd an overlayfs
// whiteout: a character device 0/0.
func mknodWhiteout(dirfd int, name string) error {
	return syscall.Mknodat(dirfd, name, syscall.S_IFCHR, 0)
}

// getxattr reads the extended attribute name of the file p into buf.
func getxattr(p, name string, buf []byte) (int, error) { return syscall.Getxattr(p, name, buf) }

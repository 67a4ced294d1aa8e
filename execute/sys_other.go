//go:build unix && !linux

package execute

import (
	"errors"
	"syscall"
)

// On systems other than Linux (macOS, the BSDs) rdeval builds, and every
// command but the sandboxed runs of `rdeval execute` works: bubblewrap,
// overlay work trees and Pdeathsig are Linux's. See sys_linux.go.

var errNotLinux = errors.New("overlay work trees need Linux (overlayfs)")

// sandboxProcAttr puts a child in its own process group; without
// Pdeathsig, a driver killed with SIGKILL leaves its children running.
func sandboxProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func mknodWhiteout(dirfd int, name string) error { return errNotLinux }

func getxattr(p, name string, buf []byte) (int, error) { return 0, errNotLinux }

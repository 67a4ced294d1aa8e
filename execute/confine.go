package execute

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sandboxUID is the user and group agent code runs as in the bwrap sandbox
// (nobody). Under a root driver it is also the host uid: bwrap is started
// through setpriv(1) as uid 65534 with no groups and no capabilities, so
// that agent code holds none of root's file access (/etc/shadow, $HOME)
// even where a file escapes the mount namespace. Under any other driver
// bwrap maps uid 65534 in its user namespace to the driver's own uid.
const sandboxUID = 65534

// dropsPrivileges reports whether commands drop to sandboxUID on the host:
// the driver is root.
func dropsPrivileges() bool { return os.Geteuid() == 0 }

// systemDirs are the host folders every bwrap sandbox sees read-only: the
// programs, libraries and configuration a task's toolchain needs. Nothing
// else of the host is visible (no /home, /root, /run, /var, /srv, /mnt,
// /opt or /media) unless the task spec's mounts: names it.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// maskedFiles are host files replaced by /dev/null inside the sandbox (a
// second line of defence: uid 65534 cannot read them anyway).
var maskedFiles = []string{"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers"}

// bwrapConfig is what one bwrap sandbox binds.
type bwrapConfig struct {
	// Work is the work tree's path inside the sandbox (the same as on the
	// host); WorkSrc the host path bound there ("" is Work itself).
	Work, WorkSrc string
	// Hide are folders covered by empty tmpfs (see hideArgs).
	Hide []string
	// Devices are host device nodes bound into /dev under their base name.
	Devices []string
	// Mounts are host paths bound read-only at the same path (the spec's
	// mounts: and the toolchain roots of the environment); MountSrc, when
	// set, gives the host path each is bound from (staged copies).
	Mounts, MountSrc []string
	// Home is the sandbox's $HOME: an empty private tmpfs ("" for none).
	Home string
	// StatusFD, when > 0, is the descriptor bwrap reports its child's start
	// on (--json-status-fd): no report means the sandbox never started.
	StatusFD int
	// Sys binds /sys read-only (GPU tasks: NVML reads it).
	Sys bool
}

// args is the bwrap command line up to (not including) "--": a new root
// holding only systemDirs (read-only, secrets masked), the declared
// mounts, a private /dev with the assigned devices, /proc, /tmp, /var/tmp
// and $HOME; the work tree as the only writable host folder; every
// namespace unshared (network included), uid and gid 65534, no
// capabilities, a new session (no controlling terminal: no TIOCSTI into
// the driver's terminal) and death with the driver. bwrap mounts every
// bind nosuid.
func (b bwrapConfig) args() []string {
	var a []string
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if t, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", t, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	for _, f := range maskedFiles {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			a = append(a, "--ro-bind", "/dev/null", f)
		}
	}
	a = append(a, "--dev", "/dev")
	for _, d := range b.Devices {
		a = append(a, "--dev-bind", d, "/dev/"+filepath.Base(d))
	}
	a = append(a, "--proc", "/proc")
	if b.Sys {
		a = append(a, "--ro-bind", "/sys", "/sys")
	}
	a = append(a, "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--dir", "/run")
	if h := filepath.Clean(b.Home); b.Home != "" && filepath.IsAbs(h) && h != "/" {
		a = append(a, "--tmpfs", h)
	}
	a = append(a, hideArgs(b.Hide)...)
	// After $HOME's tmpfs and the hidden folders, so that a declared
	// folder inside them is still seen.
	for i, m := range b.Mounts {
		src := m
		if i < len(b.MountSrc) && b.MountSrc[i] != "" {
			src = b.MountSrc[i]
		}
		a = append(a, "--ro-bind", src, m)
	}
	src := b.WorkSrc
	if src == "" {
		src = b.Work
	}
	a = append(a, "--bind", src, b.Work, "--chdir", b.Work,
		"--unshare-user", "--uid", strconv.Itoa(sandboxUID), "--gid", strconv.Itoa(sandboxUID),
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--hostname", "rdeval",
		"--cap-drop", "ALL",
		"--new-session",
		"--die-with-parent")
	if b.StatusFD > 0 {
		a = append(a, "--json-status-fd", strconv.Itoa(b.StatusFD))
	}
	return a
}

// hideArgs covers folders with empty tmpfs: the task folder, its
// repository and the run folder, so that agent code reads neither gold
// values, the repository's later history nor other runs, even where they
// lie inside a bound folder. Folders less than two levels deep are never
// hidden (they are not bound either).
func hideArgs(hide []string) []string {
	var h []string
	for _, d := range hide {
		if d = filepath.Clean(d); filepath.IsAbs(d) && strings.Count(d, "/") >= 2 {
			h = append(h, "--tmpfs", d)
		}
	}
	return h
}

// setprivArgs starts the rest of the command line as sandboxUID with no
// supplementary groups, no capabilities (inheritable, ambient, bounding)
// and no_new_privs.
func setprivArgs() []string {
	id := strconv.Itoa(sandboxUID)
	return []string{"setpriv", "--reuid", id, "--regid", id, "--clear-groups",
		"--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"}
}

// stageScript runs as root in the private mount namespace of a root
// driver's command, before privileges are dropped: it mounts the work tree
// (an overlay, or a bind of the checkout) and each declared mount on
// folders under a staging folder that uid 65534 can reach, since the run
// folder and $HOME usually cannot be traversed by it. Its arguments are
// the overlay options ("" for none), then pairs (source, target) up to
// "--", then the command to exec. Data only ever travels as arguments.
const stageScript = `set -e; ovl=$1; shift
while [ "$1" != -- ]; do
  if [ -n "$ovl" ]; then mount -t overlay rdeval-overlay -o "$ovl" -- "$2" || { echo "rdeval: overlay mount failed" >&2; exit 125; }; ovl=
  else mount --bind -- "$1" "$2" || { echo "rdeval: bind mount of $1 failed" >&2; exit 125; }; fi
  shift 2
done
shift; exec "$@"`

// stage is the staging folder of one root-driver command: stage/work
// takes the work tree, stage/m<N> the N-th declared mount.
type stage struct{ dir string }

// newStage makes a staging folder under the system's temporary folder:
// root-owned, mode 0711 (uid 65534 may pass through but not list it).
// Nothing is mounted there on the host: the mounts live in the command's
// own mount namespace.
func newStage(n int) (*stage, error) {
	dir, err := os.MkdirTemp("", "rdeval-stage-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	names := []string{"work"}
	for i := range n {
		names = append(names, "m"+strconv.Itoa(i))
	}
	for _, name := range names {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	return &stage{dir: dir}, nil
}

func (s *stage) work() string       { return filepath.Join(s.dir, "work") }
func (s *stage) mount(i int) string { return filepath.Join(s.dir, "m"+strconv.Itoa(i)) }

// remove deletes the (empty) staging folder.
func (s *stage) remove() {
	if s != nil {
		os.RemoveAll(s.dir)
	}
}

// chownTree gives the tree at root (not following symbolic links) to
// sandboxUID, so that agent code running as it can write the work tree.
func chownTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, sandboxUID, sandboxUID)
	})
}

// sanitizeTree makes a work tree safe to keep: it removes every .git file
// or folder (the checkout has none, so the run made it, and a planted
// core.fsmonitor or hook would run at the next git command there) and
// clears setuid and setgid bits. It returns what it changed.
func sanitizeTree(root string) ([]string, error) {
	var changed []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Name() == ".git" && p != root {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			changed = append(changed, "removed "+filepath.ToSlash(rel))
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if m := fi.Mode(); m&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			if err := os.Chmod(p, m.Perm()|(m&fs.ModeSticky)); err != nil {
				return err
			}
			changed = append(changed, "cleared setuid/setgid on "+filepath.ToSlash(rel))
		}
		return nil
	})
	return changed, err
}

// toolchainMounts are the host folders of the environment's toolchains
// (pyenv, conda, a virtualenv) that sandboxEnv passes on: bound read-only
// so that the same interpreter runs inside.
func toolchainMounts() []string {
	var out []string
	for _, k := range []string{"PYENV_ROOT", "CONDA_PREFIX", "VIRTUAL_ENV"} {
		if v := os.Getenv(k); v != "" && filepath.IsAbs(v) {
			if fi, err := os.Stat(v); err == nil && fi.IsDir() {
				out = append(out, filepath.Clean(v))
			}
		}
	}
	return out
}

// checkSandboxTools reports what a confined command needs and is missing.
func checkSandboxTools() error {
	need := []string{"bwrap"}
	if dropsPrivileges() {
		need = append(need, "setpriv", "unshare", "mount")
	}
	var missing []string
	for _, t := range need {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s not found on PATH", strings.Join(missing, ", "))
	}
	return nil
}

// bwrapArgv is the command line that starts bwrap for c, up to bwrap's
// "--". Under a root driver (and not for Slurm, whose jobs run as the
// submitting user) it is
//
//	unshare --mount --propagation private -- sh -c STAGE … -- setpriv … -- bwrap …
//
// which mounts the work tree (the overlay, or a bind of the checkout) and
// the declared mounts under a staging folder in a private mount
// namespace, drops to uid 65534 and binds them from there; the returned
// stage must be removed once the command ends. Otherwise bwrap starts as
// the driver's user, after the overlay's own prefix where there is one.
func (c *command) bwrapArgv() ([]string, *stage, error) {
	cfg := bwrapConfig{Work: c.Dir, Hide: c.Hide, Devices: c.Devices, Mounts: c.Mounts,
		Home: os.Getenv("HOME"), StatusFD: c.StatusFD, Sys: len(c.Devices) > 0}
	if !dropsPrivileges() || c.Backend == BackendSlurm || c.onNode {
		var argv []string
		if c.Overlay != nil {
			argv = append(argv, c.Overlay.prefix()...)
		}
		return append(append(argv, "bwrap"), cfg.args()...), nil, nil
	}
	st, err := newStage(len(c.Mounts))
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox staging folder: %w", err)
	}
	ovl, src := "", c.Dir
	if c.Overlay != nil {
		ovl, src = c.Overlay.options(), "rdeval-overlay"
	}
	argv := []string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", stageScript, "rdeval-stage", ovl, src, st.work()}
	cfg.WorkSrc = st.work()
	for i, m := range c.Mounts {
		argv = append(argv, m, st.mount(i))
		cfg.MountSrc = append(cfg.MountSrc, st.mount(i))
	}
	argv = append(argv, "--")
	argv = append(argv, setprivArgs()...)
	return append(append(argv, "bwrap"), cfg.args()...), st, nil
}

// prepareWorkTree readies a run's work tree for the bwrap sandbox: under a
// root driver it gives the tree (the checkout, or the overlay's upper
// folder; baseCache.get gives the base below) to sandboxUID, and it
// makes the tree's folder mode 0700, so that no other local user can reach
// a program the run leaves there while it lasts.
func prepareWorkTree(work string, ov *overlayMount) error {
	top := work
	if ov != nil {
		top = ov.Upper
	}
	if dropsPrivileges() {
		if err := chownTree(top); err != nil {
			return err
		}
	}
	return os.Chmod(top, 0o700)
}

// chownTreeIfRoot gives the tree at dir to sandboxUID unless its top
// already belongs to it (a base checkout left by an earlier driver).
func chownTreeIfRoot(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == sandboxUID {
		return nil
	}
	return chownTree(dir)
}

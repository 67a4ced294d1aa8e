package execute

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Work tree modes, recorded as result.json's worktree and the manifest's.
const (
	// WorktreeOverlay: the run's work tree is an overlayfs mount of the
	// batch's base tree (RUNDIR/.base/COMMIT, read-only below) and the run's
	// own upper folder (RUNDIR/runs/ID/upper, where every write lands).
	WorktreeOverlay = "overlay"
	// WorktreeCheckout: the run's work tree is a full checkout of its own.
	WorktreeCheckout = "checkout"
)

// WorktreeEnv, set to "checkout", makes every run use a full checkout even
// where overlay mounts work (Options.Worktree overrides it).
const WorktreeEnv = "RDEVAL_WORKTREE"

// overlayScript mounts the overlay ($1: mount options, $2: mount point) in
// the mount namespace unshare(1) made and execs the rest of its arguments
// (the bwrap command line). Data only ever travels as arguments.
const overlayScript = `mount -t overlay rdeval-overlay -o "$1" -- "$2" || { echo "rdeval: overlay mount failed" >&2; exit 125; }; shift 2; exec "$@"`

// overlayMount is the overlay a sandboxed command of an overlay-mode run
// mounts at its work tree, in a private mount namespace that ends with the
// command: nothing is mounted on the host.
type overlayMount struct {
	Lower, Upper, Work, Dest string
	// UserNS mounts inside a new user namespace mapping the driver's uid
	// to root (drivers that are not root; Linux 5.11 or later); else the
	// driver, root, mounts in a new mount namespace only.
	UserNS bool
}

// prefix is the command line that mounts the overlay and then execs the
// command line that follows it.
func (o *overlayMount) prefix() []string {
	a := []string{"unshare", "--mount", "--propagation", "private"}
	if o.UserNS {
		a = []string{"unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"}
	}
	return append(a, "--", "sh", "-c", overlayScript, "rdeval-overlay", o.options(), o.Dest)
}

// options are the overlay's mount options. No redirects and no
// metadata-only copy-ups, whatever the kernel's defaults: mergedTree reads
// upper and lower by the plain rules. bwrap's own user namespace (uid
// 65534, see bwrapConfig.args) sits inside the one of a UserNS mount.
func (o *overlayMount) options() string {
	opts := "lowerdir=" + o.Lower + ",upperdir=" + o.Upper + ",workdir=" + o.Work + ",redirect_dir=nofollow,metacopy=off"
	if o.UserNS {
		opts += ",userxattr"
	}
	return opts
}

// overlaySafePath reports whether p can appear in overlayfs mount options:
// commas separate options and colons lower folders, and no escaping is
// attempted.
func overlaySafePath(p string) bool {
	return filepath.IsAbs(p) && !strings.ContainsAny(p, ",:\\\n\"'")
}

// overlayProbe says whether this machine can run overlay-mode work trees
// for runs in the run folder out, sandboxed by bwrap: it mounts an overlay
// of a two-file lower folder over an upper folder holding one whiteout,
// runs a bwrap command that reads, writes and deletes in it, and checks
// where the writes landed. Root tries a plain mount namespace first, then
// a user namespace (as a driver that is not root does), which works where
// root may not mount (some containers). It returns the mount variant that
// worked (userNS), or why none did.
func overlayProbe(out string) (userNS bool, err error) {
	for _, tool := range []string{"unshare", "mount", "sh", "bwrap"} {
		if _, err := exec.LookPath(tool); err != nil {
			return false, fmt.Errorf("%s not found", tool)
		}
	}
	if !overlaySafePath(out) {
		return false, fmt.Errorf("the run folder path %q has a character overlayfs mount options cannot carry (, : \\ quote or newline)", out)
	}
	variants := []bool{true}
	if os.Geteuid() == 0 {
		variants = []bool{false, true}
	}
	var errs []error
	for _, userNS := range variants {
		err := probeVariant(out, userNS)
		if err == nil {
			return userNS, nil
		}
		errs = append(errs, err)
	}
	return false, errors.Join(errs...)
}

// probeVariant is one try of overlayProbe.
func probeVariant(out string, userNS bool) error {
	dir, err := os.MkdirTemp(out, ".overlay-probe-")
	if err != nil {
		return err
	}
	defer removeOverlayDirs(dir)
	o := &overlayMount{Lower: filepath.Join(dir, "lower"), Upper: filepath.Join(dir, "upper"),
		Work: filepath.Join(dir, "ovl"), Dest: filepath.Join(dir, "mnt"), UserNS: userNS}
	for _, d := range []string{o.Lower, o.Upper, o.Work, o.Dest} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	for _, f := range []string{"keep", "gone"} {
		if err := os.WriteFile(filepath.Join(o.Lower, f), []byte(f+"\n"), 0o644); err != nil {
			return err
		}
	}
	if err := syscall.Mknod(filepath.Join(o.Upper, "gone"), syscall.S_IFCHR, 0); err != nil {
		return fmt.Errorf("make a whiteout: %w", err)
	}
	if dropsPrivileges() {
		for _, d := range []string{o.Lower, o.Upper} {
			if err := chownTree(d); err != nil {
				return err
			}
		}
	}
	script := `test ! -e gone && test "$(cat keep)" = keep && echo new > new && rm keep && test ! -e keep && test "$(id -u)" = "$1"`
	c := &command{Sandbox: SandboxBwrap, Dir: o.Dest, Hide: []string{dir}, Overlay: o}
	argv, st, err := c.bwrapArgv()
	defer st.remove()
	if err != nil {
		return err
	}
	argv = append(argv, "--", "sh", "-c", script, "probe", strconv.Itoa(sandboxUID))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = o.Dest
	cmd.SysProcAttr = sandboxProcAttr()
	name := strings.Join(argv[:slices.Index(argv, "--")], " ")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, oneLine(string(b), 200))
	}
	if b, err := os.ReadFile(filepath.Join(o.Upper, "new")); err != nil || string(b) != "new\n" {
		return fmt.Errorf("%s: a write in the overlay did not land in the upper folder (%v)", name, err)
	}
	if fi, err := os.Lstat(filepath.Join(o.Upper, "keep")); err != nil || !isWhiteout(fi) {
		return fmt.Errorf("%s: a deletion in the overlay left no whiteout in the upper folder", name)
	}
	if b, err := os.ReadFile(filepath.Join(o.Lower, "keep")); err != nil || string(b) != "keep\n" {
		return fmt.Errorf("%s: the overlay changed its lower folder", name)
	}
	if ents, _ := os.ReadDir(o.Dest); len(ents) != 0 {
		return fmt.Errorf("%s: the overlay was mounted outside its namespace", name)
	}
	return nil
}

// removeOverlayDirs removes dir and everything in it, first giving its
// owner access to every folder in it: the kernel leaves a mode-000 folder
// in an overlay's work folder, and agent code may chmod folders of its
// upper folder, which a driver that is not root could not then empty.
// Symbolic links are neither followed nor changed.
func removeOverlayDirs(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o700 != 0o700 {
			_ = os.Chmod(p, fi.Mode().Perm()|0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// baseCache is the batch's base tree: the task repository checked out once
// per run folder at RUNDIR/.base/COMMIT, shared read-only (as overlay lower
// folder) by every overlay-mode run.
type baseCache struct {
	mu   sync.Mutex
	path string // "" until made or found
}

// baseDir returns RUNDIR/.base: hidden, so that readers of run folders
// (ingest skips hidden folders) never take the task repository's own
// files for inputs.
func baseDir(out string) string { return filepath.Join(out, ".base") }

// get returns the base tree's path, checking the repository out first when
// no earlier batch did. The checkout goes to a temporary folder that is
// renamed into place once complete, so a killed driver never leaves a
// partial tree under the final name; concurrent runs wait for the first.
func (c *baseCache) get(out, repo, commit string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.path != "" {
		return c.path, nil
	}
	final := filepath.Join(baseDir(out), commit)
	if fi, err := os.Lstat(final); err == nil && fi.IsDir() {
		if dropsPrivileges() {
			// Agent code (uid 65534) writes through the overlay.
			if err := chownTreeIfRoot(final); err != nil {
				return "", err
			}
		}
		c.path = final
		return final, nil
	}
	if err := os.MkdirAll(baseDir(out), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(baseDir(out), ".tmp-"+commit[:min(12, len(commit))]+"-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // as Checkout makes folders
		os.RemoveAll(tmp)
		return "", err
	}
	if _, err := Checkout(repo, commit, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if dropsPrivileges() {
		if err := chownTree(tmp); err != nil {
			os.RemoveAll(tmp)
			return "", err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	c.path = final
	return final, nil
}

// cleanBaseTemps removes partial base checkouts a killed driver left in
// RUNDIR/.base, and overlay probe folders (the caller holds the run
// folder's lock).
func cleanBaseTemps(out string) error {
	if probes, _ := filepath.Glob(filepath.Join(out, ".overlay-probe-*")); len(probes) > 0 {
		for _, p := range probes {
			if err := removeOverlayDirs(p); err != nil {
				return err
			}
		}
	}
	ents, err := os.ReadDir(baseDir(out))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			if err := os.RemoveAll(filepath.Join(baseDir(out), e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// errOverlayPath is why applyOverlay declines a patch whose path passes
// through a symbolic link of the base tree: the full checkout applies it.
var errOverlayPath = errors.New("a path passes through a symbolic link of the base tree")

// applyOverlay applies a vetted patch with go-gitdiff for an overlay-mode
// run: it reads the pristine files from the base tree and writes the
// changed and new files into the empty upper folder, and marks deleted
// files (and the old paths of renames) with whiteouts, which overlayfs
// reads as deletions. All access goes through os.Root, so no symbolic
// link of the base tree leads a write out of upper; a patch path that
// passes through such a link is declined (errOverlayPath), as is any patch
// go-gitdiff cannot apply: the caller falls back to a full checkout and the
// whole apply cascade.
func applyOverlay(base, upper string, data []byte, p *Patch) error {
	broot, err := os.OpenRoot(base)
	if err != nil {
		return err
	}
	defer broot.Close()
	for _, f := range p.Files {
		for _, q := range []string{f.Path, f.OldPath} {
			for d := path.Dir(q); q != "" && d != "."; d = path.Dir(d) {
				if fi, err := broot.Lstat(filepath.FromSlash(d)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
					return errOverlayPath
				}
			}
		}
	}
	order, final, err := planGo(data, p, rootReader(broot))
	if err != nil {
		return err
	}
	uroot, err := os.OpenRoot(upper)
	if err != nil {
		return err
	}
	defer uroot.Close()
	for _, q := range order {
		if !final[q].exists {
			if err := whiteout(uroot, q); err != nil {
				return &PatchError{File: q, Msg: "whiteout: " + err.Error()}
			}
		}
	}
	return writeFiles(uroot, order, final)
}

// whiteout makes the overlayfs whiteout (a character device 0/0) for the
// slash-separated path q in the upper folder root, creating its folders.
// Linux lets any user make one since 5.8.
func whiteout(root *os.Root, q string) error {
	dir, name := path.Split(q)
	d := "."
	if dir != "" {
		d = filepath.FromSlash(strings.TrimSuffix(dir, "/"))
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	f, err := root.Open(d)
	if err != nil {
		return err
	}
	defer f.Close()
	return mknodWhiteout(int(f.Fd()), name)
}

// worktreeMode decides how the batch makes work trees: WorktreeOverlay for
// the local backend's bwrap sandbox when overlayProbe succeeds in the run
// folder out, else WorktreeCheckout, with the reason (recorded in the
// manifest). Options.Worktree, or else RDEVAL_WORKTREE, set to "checkout"
// forces full checkouts.
func worktreeMode(opts *Options, out string) (mode string, userNS bool, why string) {
	force := opts.Worktree
	if force == "" {
		force = os.Getenv(WorktreeEnv)
	}
	switch {
	case force == WorktreeCheckout:
		return WorktreeCheckout, false, "forced (Options.Worktree or " + WorktreeEnv + "=checkout)"
	case opts.Backend != BackendLocal:
		return WorktreeCheckout, false, "the " + opts.Backend + " backend needs a real folder"
	case opts.Sandbox != SandboxBwrap:
		return WorktreeCheckout, false, "overlay work trees need the bwrap sandbox, not " + opts.Sandbox
	}
	userNS, err := overlayProbe(out)
	if err != nil {
		return WorktreeCheckout, false, "overlay mount does not work here: " + err.Error()
	}
	return WorktreeOverlay, userNS, ""
}

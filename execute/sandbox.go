package execute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Sandbox kinds recorded in result.json.
const (
	SandboxBwrap   = "bwrap"
	SandboxUnshare = "unshare"
	SandboxNone    = "none"
)

// Limits of a sandboxed command.
const (
	// MaxLogBytes caps stdout.log and stderr.log each; the rest is read
	// and dropped.
	MaxLogBytes = 64 << 20
	// killGrace is how long a timed-out command has between SIGTERM and
	// SIGKILL.
	killGrace = 5 * time.Second
)

// ErrNoSandbox is returned by DetectSandbox when neither bubblewrap nor
// unshare can isolate commands on this machine.
var ErrNoSandbox = errors.New("no sandbox available: install bubblewrap (apt-get install bubblewrap), or pass --no-sandbox to run agent code unconfined")

// DetectSandbox returns the sandbox used for runs: bubblewrap when it can
// create its namespaces here, else unshare(1) when running as root, else
// none when allowNone is set, else ErrNoSandbox. It runs a trivial command
// to check.
func DetectSandbox(allowNone bool) (string, error) {
	if allowNone {
		return SandboxNone, nil
	}
	if p, err := exec.LookPath("bwrap"); err == nil {
		args := append(bwrapArgs(os.TempDir(), nil, nil), "--", "true")
		if exec.Command(p, args...).Run() == nil {
			return SandboxBwrap, nil
		}
	}
	if p, err := exec.LookPath("unshare"); err == nil && os.Geteuid() == 0 {
		if exec.Command(p, append(unshareArgs(), "true")...).Run() == nil {
			return SandboxUnshare, nil
		}
	}
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("%w (sandboxed runs need Linux namespaces; on %s, run rdeval execute on a Linux machine or in a Linux container)", ErrNoSandbox, runtime.GOOS)
	}
	return "", ErrNoSandbox
}

// bwrapArgs confines a command to a read-only view of the host with a
// private /tmp, /dev and /proc, no network, its own PID, IPC and UTS
// namespaces, no capabilities, and work as the only writable folder.
// There is no --new-session: stdin is /dev/null and no terminal is passed,
// and staying in the driver's process group lets a timeout signal every
// process; the PID namespace kills whatever is left when bwrap exits.
//
// hide are folders replaced by empty ones (the task folder, its repository
// and the run folder, so that agent code reads neither gold values, the
// repository's later history nor other runs); folders less than two
// levels deep (/, /root, /home) are never hidden.
//
// devices are host device nodes (the assigned GPUs' /dev/nvidia* nodes)
// bound with --dev-bind into the private /dev under their base name.
func bwrapArgs(work string, hide, devices []string) []string {
	var h []string
	for _, d := range hide {
		if d = filepath.Clean(d); filepath.IsAbs(d) && strings.Count(d, "/") >= 2 {
			h = append(h, "--tmpfs", d)
		}
	}
	args := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev"}
	for _, d := range devices {
		args = append(args, "--dev-bind", d, "/dev/"+filepath.Base(d))
	}
	return append(append(append(args,
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--tmpfs", "/var/tmp"), h...),
		"--bind", work, work,
		"--chdir", work,
		"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--hostname", "rdeval",
		"--cap-drop", "ALL",
		"--die-with-parent",
	)
}

// unshareArgs is the fallback as root: no network and its own PID
// namespace, but the host file system stays writable.
func unshareArgs() []string {
	return []string{"--net", "--fork", "--pid", "--mount-proc", "--kill-child"}
}

// command is one sandboxed bash -c invocation.
type command struct {
	Sandbox string
	Script  string
	Dir     string // the work tree, cwd of the command
	Env     []string
	Stdout  string // log file paths
	Stderr  string
	// Deadline ends the command: SIGTERM to its process group, SIGKILL
	// killGrace later.
	Deadline time.Time
	// Hide are folders bwrap hides (see bwrapArgs).
	Hide []string
	// Devices are device nodes bound into the bwrap sandbox.
	Devices []string
	// CPUs, when set, pins the command to these CPUs (taskset -c).
	CPUs []int
	// Limits bound processes and memory (see Limits).
	Limits Limits
	// Backend is BackendLocal ("" too), BackendDocker or BackendPodman;
	// containers run Image under the unique Name with GPUs.
	Backend string
	Image   string
	Name    string
	GPUs    []GPU
	// SlurmGPUs and SlurmCPUs are the job's --gres=gpu:N and
	// --cpus-per-task (BackendSlurm).
	SlurmGPUs, SlurmCPUs int
	// Overlay, for an overlay-mode run (bwrap only), is mounted at Dir in
	// a mount namespace of the command's own before bwrap starts.
	Overlay *overlayMount
}

func (c *command) container() bool { return c.Backend == BackendDocker || c.Backend == BackendPodman }

// commandResult is what running a command gives.
type commandResult struct {
	ExitCode int
	TimedOut bool
	// LimitHit says which resource limit stopped the command ("" when
	// none did).
	LimitHit  string
	PeakTasks int
	PeakRSS   int64
	Wall      time.Duration
	CPU       time.Duration
	MaxRSSKB  int64
	Truncated bool // a log hit MaxLogBytes
}

// run runs c and waits for it and for every process it started.
func (c *command) run(ctx context.Context) (commandResult, error) {
	if c.Backend == BackendSlurm {
		return c.runSlurm(ctx)
	}
	var res commandResult
	argv, err := c.argv()
	if err != nil {
		return res, err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return res, err
	}
	outF, err := os.OpenFile(c.Stdout, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return res, err
	}
	defer outF.Close()
	errF, err := os.OpenFile(c.Stderr, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return res, err
	}
	defer errF.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return res, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return res, err
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: c.Dir, Env: c.Env, Stdout: outW, Stderr: errW}
	cmd.SysProcAttr = sandboxProcAttr()
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return res, err
	}
	pgid := cmd.Process.Pid
	wl := c.Limits
	if c.container() {
		// The engine enforces the limits; locally there is only its client.
		wl = Limits{}
	}
	wd := startWatchdog(wl, pgid, pgid)
	var wg sync.WaitGroup
	var truncOut, truncErr bool
	wg.Add(2)
	go func() { defer wg.Done(); truncOut = copyCapped(outF, outR, MaxLogBytes) }()
	go func() { defer wg.Done(); truncErr = copyCapped(errF, errR, MaxLogBytes) }()

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(time.Until(c.Deadline))
	defer timer.Stop()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer.C:
		res.TimedOut = true
		waitErr = c.terminate(pgid, done)
	case why := <-wd.hit:
		res.LimitHit = why
		waitErr = <-done
	case <-ctx.Done():
		waitErr = c.terminate(pgid, done)
	}
	res.Wall = time.Since(start)
	wd.finish()
	select {
	case why := <-wd.hit: // hit while the command was ending anyway
		if res.LimitHit == "" && !res.TimedOut {
			res.LimitHit = why
		}
	default:
	}
	res.PeakTasks, res.PeakRSS = wd.peakTask, wd.peakRSS
	// Background processes the command left behind.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	pipesDone := make(chan struct{})
	go func() { wg.Wait(); close(pipesDone) }()
	select {
	case <-pipesDone:
	case <-time.After(killGrace):
		// Something outside the process group (only possible without a
		// PID namespace) still holds the pipes: stop reading.
		outR.Close()
		errR.Close()
		<-pipesDone
	}
	outR.Close()
	errR.Close()
	res.Truncated = truncOut || truncErr
	if c.container() {
		c.containerCleanup(&res)
	}
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			res.MaxRSSKB = int64(ru.Maxrss) // int32 on 32-bit Linux
		}
		res.ExitCode = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return res, waitErr
	}
	return res, nil
}

// argv is the command line: [taskset -c CPUS] sandbox bash -c PRELUDE
// rdeval-limits SCRIPT (see limitPrelude).
func (c *command) argv() ([]string, error) {
	if c.container() {
		if c.Image == "" || c.Name == "" {
			return nil, fmt.Errorf("%s backend: no image (spec image: or --image)", c.Backend)
		}
		return c.containerArgs(), nil
	}
	var argv []string
	if len(c.CPUs) > 0 {
		cpus := make([]string, len(c.CPUs))
		for i, n := range c.CPUs {
			cpus[i] = strconv.Itoa(n)
		}
		argv = []string{"taskset", "-c", strings.Join(cpus, ",")}
	}
	if c.Overlay != nil && (c.Sandbox != SandboxBwrap || c.Backend != BackendLocal && c.Backend != "") {
		return nil, fmt.Errorf("an overlay work tree needs the local backend's bwrap sandbox, not %s/%s", c.Backend, c.Sandbox)
	}
	inner := []string{"bash", "-c", limitPrelude(c.Limits, c.Sandbox == SandboxBwrap), "rdeval-limits", c.Script}
	switch c.Sandbox {
	case SandboxBwrap:
		if c.Overlay != nil {
			argv = append(argv, c.Overlay.prefix()...)
		}
		argv = append(append(argv, "bwrap"), bwrapArgs(c.Dir, c.Hide, c.Devices)...)
		if c.Overlay != nil {
			argv = append(argv, c.Overlay.bwrapExtra()...)
		}
		argv = append(argv, "--")
	case SandboxUnshare:
		argv = append(append(argv, "unshare"), unshareArgs()...)
	case SandboxNone:
	default:
		return nil, fmt.Errorf("unknown sandbox %q", c.Sandbox)
	}
	return append(argv, inner...), nil
}

// terminate sends SIGTERM to the process group (and the container), SIGKILL
// after killGrace, and returns the command's wait error.
func (c *command) terminate(pgid int, done <-chan error) error {
	if c.container() {
		c.containerKill("TERM")
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case err := <-done:
		return err
	case <-time.After(killGrace):
		if c.container() {
			c.containerKill("KILL")
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return <-done
	}
}

// copyCapped copies r to w up to limit bytes and drains the rest; it
// reports whether it dropped anything.
func copyCapped(w io.Writer, r io.Reader, limit int64) bool {
	n, _ := io.Copy(w, io.LimitReader(r, limit))
	if n < limit {
		return false
	}
	m, _ := io.Copy(io.Discard, r)
	return m > 0
}

// sandboxEnv is the environment of a run: a few host variables that tools
// need (PATH, HOME, locale, pyenv/conda/virtualenv roots), then the spec's
// env, then RDEVAL_*. Nothing else of the driver's environment (tokens,
// credentials) reaches agent code.
//
// gpus sets CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES to the UUIDs of
// the run's GPUs (empty and "void" without GPUs); cpus > 0 sets
// OMP_NUM_THREADS unless the spec's env does.
func sandboxEnv(extra map[string]string, rdeval map[string]string, gpus []GPU, cpus int) []string {
	keep := []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM",
		"PYENV_ROOT", "PYENV_VERSION", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE", "VIRTUAL_ENV"}
	var env []string
	for _, k := range keep {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "TMPDIR=/tmp", "PYTHONUNBUFFERED=1")
	env = append(env, gpuEnv(gpus)...)
	if _, set := extra["OMP_NUM_THREADS"]; cpus > 0 && !set {
		env = append(env, "OMP_NUM_THREADS="+strconv.Itoa(cpus))
	}
	for _, k := range sortedKeys(extra) {
		env = append(env, k+"="+extra[k])
	}
	for _, k := range sortedKeys(rdeval) {
		env = append(env, k+"="+rdeval[k])
	}
	return env
}

// absDir returns dir as an absolute, symlink-free path (bwrap binds need
// one).
func absDir(dir string) (string, error) {
	a, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(a)
}

package execute

import (
	"bytes"
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

// ErrNoSandbox is returned by DetectSandbox when bubblewrap cannot confine
// commands on this machine. There is no weaker fallback: agent code runs
// unconfined only when the user passes UnconfinedFlag.
var ErrNoSandbox = errors.New("no sandbox available: rdeval execute runs agent code only inside bubblewrap (install it with: apt-get install bubblewrap), or, giving up every protection, with " + UnconfinedFlag)

// DetectSandbox returns the sandbox used for runs: bubblewrap when it can
// create its namespaces here (under a root driver, started through
// setpriv as uid 65534 after staging its mounts), else ErrNoSandbox with
// what failed. With unconfined (the user's explicit opt-in) it returns
// SandboxUnshare where unshare(1) can at least cut the network (root), else
// SandboxNone, without trying bwrap. It runs a trivial command to check.
func DetectSandbox(unconfined bool) (string, error) {
	if unconfined {
		if p, err := exec.LookPath("unshare"); err == nil && os.Geteuid() == 0 {
			if exec.Command(p, append(unshareArgs(), "true")...).Run() == nil {
				return SandboxUnshare, nil
			}
		}
		return SandboxNone, nil
	}
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("%w (sandboxed runs need Linux namespaces; on %s, run rdeval execute on a Linux machine or in a Linux container)", ErrNoSandbox, runtime.GOOS)
	}
	if err := checkSandboxTools(); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoSandbox, err)
	}
	work, err := os.MkdirTemp("", "rdeval-probe-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	c := &command{Sandbox: SandboxBwrap, Dir: work}
	argv, st, err := c.bwrapArgv()
	defer st.remove()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoSandbox, err)
	}
	if dropsPrivileges() {
		if err := os.Chown(work, sandboxUID, sandboxUID); err != nil {
			return "", err
		}
	}
	argv = append(argv, "--", "sh", "-c", `test "$(id -u)" = 65534 && echo ok > probe`)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: bubblewrap does not start here: %v: %s", ErrNoSandbox, err, oneLine(string(out), 300))
	}
	if b, err := os.ReadFile(filepath.Join(work, "probe")); err != nil || string(b) != "ok\n" {
		return "", fmt.Errorf("%w: a write in the bubblewrap sandbox did not reach its work tree", ErrNoSandbox)
	}
	return SandboxBwrap, nil
}

// unshareArgs is the unconfined opt-in as root: no network and its own PID
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
	// Mounts are host folders bound read-only into the bwrap sandbox (the
	// spec's mounts: and the environment's toolchain roots).
	Mounts []string
	// StatusFD, set by run, is the descriptor of bwrap's status pipe.
	StatusFD int
	// stage is the staging folder of a root driver's bwrap command (see
	// bwrapArgv), made by argv and removed by run.
	stage *stage
	// onNode: the command line is for a Slurm job script, run on a node as
	// the job's user (no staging; see bwrapArgv).
	onNode bool
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
	// DroppedOut and DroppedErr are the bytes of stdout and stderr dropped
	// from the middle of their logs (see tailLog).
	DroppedOut, DroppedErr int64
}

// run runs c and waits for it and for every process it started.
func (c *command) run(ctx context.Context) (commandResult, error) {
	if c.Backend == BackendSlurm {
		return c.runSlurm(ctx)
	}
	var res commandResult
	var statusR, statusW *os.File
	if c.Sandbox == SandboxBwrap && !c.container() {
		var err error
		if statusR, statusW, err = os.Pipe(); err != nil {
			return res, err
		}
		defer statusR.Close()
		defer statusW.Close()
		c.StatusFD = 3 // ExtraFiles[0]
	}
	argv, err := c.argv()
	defer c.stage.remove()
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
	if statusW != nil {
		cmd.ExtraFiles = []*os.File{statusW}
		// Started from a folder uid 65534 may not reach: bwrap's own
		// --chdir sets the command's folder.
		cmd.Dir = "/"
	}
	cmd.SysProcAttr = sandboxProcAttr()
	start := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	var status []byte
	statusDone := make(chan struct{})
	if statusW != nil {
		statusW.Close()
		go func() {
			status, _ = io.ReadAll(io.LimitReader(statusR, 64<<10))
			io.Copy(io.Discard, statusR)
			close(statusDone)
		}()
	} else {
		close(statusDone)
	}
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
	wg.Add(2)
	go func() { defer wg.Done(); res.DroppedOut = tailLog(outF, outR, MaxLogBytes) }()
	go func() { defer wg.Done(); res.DroppedErr = tailLog(errF, errR, MaxLogBytes) }()

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
	res.Truncated = res.DroppedOut > 0 || res.DroppedErr > 0
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
	if statusR != nil {
		select {
		case <-statusDone:
		case <-time.After(killGrace):
			statusR.Close() // held open by a process outside the group
			<-statusDone
		}
		if !bytes.Contains(status, []byte(`"child-pid"`)) {
			return res, &InfraError{What: "the bubblewrap sandbox did not start", Detail: lastLine(c.Stderr)}
		}
	}
	if c.container() && res.ExitCode == 125 {
		return res, &InfraError{What: c.Backend + " could not start the container (exit 125)", Detail: lastLine(c.Stderr)}
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
		a, st, err := c.bwrapArgv()
		if err != nil {
			return nil, err
		}
		c.stage = st
		argv = append(append(argv, a...), "--")
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

// UnconfinedFlag is the rdeval execute flag that opts in to running agent
// code without a confining sandbox.
const UnconfinedFlag = "--unsafe-no-sandbox"

// InfraError is a failure of the machinery around agent code: a container
// engine that is down, an overlay that does not mount, a sandbox that does
// not start. It stops the batch and writes no result for the run, so that
// a resume runs it again: it is never the agent's failure.
type InfraError struct {
	What   string
	Detail string // the command's last line of stderr, if any
}

func (e *InfraError) Error() string {
	if e.Detail != "" {
		return e.What + ": " + e.Detail
	}
	return e.What
}

// lastLine is the last non-empty line of the file at p (read from its
// last 4 KiB), shortened to one line.
func lastLine(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 4096 {
		f.Seek(fi.Size()-4096, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return oneLine(lines[len(lines)-1], 300)
}

package execute

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Backends: where a run's commands execute.
const (
	// BackendLocal runs them on this machine in the sandbox (bwrap,
	// unshare or none).
	BackendLocal = "local"
	// BackendDocker and BackendPodman run them in a container of the
	// task's image (see containerArgs).
	BackendDocker = "docker"
	BackendPodman = "podman"
	// BackendSlurm submits them as Slurm jobs (see slurm.go).
	BackendSlurm = "slurm"
)

// containerKeep are the host variables a container does not get: the
// image has its own PATH, HOME and environments.
var hostOnlyEnv = map[string]bool{"PATH": true, "HOME": true, "USER": true, "LOGNAME": true,
	"PYENV_ROOT": true, "PYENV_VERSION": true, "CONDA_PREFIX": true, "CONDA_DEFAULT_ENV": true, "CONDA_EXE": true, "VIRTUAL_ENV": true}

// containerArgs is the `docker run` / `podman run` command line of c: no
// network, a read-only root file system with a private /tmp and /var/tmp,
// the work tree as the only writable volume (at the same path), the
// driver's uid and gid, no capabilities, no new privileges, an init
// process that reaps orphans, the process limit (--pids-limit), memory
// (--memory, swap included) and CPUs (--cpuset-cpus) of the run, and its
// GPUs: docker --gpus "device=UUID,…" (the NVIDIA container toolkit),
// podman --device nvidia.com/gpu=UUID (CDI). The command is the same
// bash prelude as for the local sandbox, without RLIMIT_NPROC (which would
// count the uid's processes on the whole host; --pids-limit does it).
func (c *command) containerArgs() []string {
	a := []string{c.Backend, "run", "--name", c.Name, "--label", "rdeval.run=" + c.Name,
		"--network", "none", "--read-only",
		"--tmpfs", "/tmp:rw,exec,nosuid,nodev", "--tmpfs", "/var/tmp:rw,nosuid,nodev",
		"--volume", c.Dir + ":" + c.Dir + ":rw", "--workdir", c.Dir,
		"--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()),
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--init"}
	if c.Limits.PIDs > 0 {
		a = append(a, "--pids-limit", strconv.Itoa(c.Limits.PIDs))
	}
	if c.Limits.MemoryBytes > 0 {
		m := strconv.FormatInt(c.Limits.MemoryBytes, 10)
		a = append(a, "--memory", m, "--memory-swap", m)
	}
	if len(c.CPUs) > 0 {
		cpus := make([]string, len(c.CPUs))
		for i, n := range c.CPUs {
			cpus[i] = strconv.Itoa(n)
		}
		a = append(a, "--cpuset-cpus", strings.Join(cpus, ","))
	}
	if len(c.GPUs) > 0 {
		ids := make([]string, len(c.GPUs))
		for i, g := range c.GPUs {
			ids[i] = g.UUID
		}
		if c.Backend == BackendDocker {
			// The quotes are part of the value: docker reads --gpus as CSV.
			a = append(a, "--gpus", `"device=`+strings.Join(ids, ",")+`"`)
		} else {
			for _, id := range ids {
				a = append(a, "--device", "nvidia.com/gpu="+id)
			}
		}
	}
	for _, kv := range c.Env {
		k, _, _ := strings.Cut(kv, "=")
		if !hostOnlyEnv[k] {
			a = append(a, "--env", kv)
		}
	}
	return append(a, c.Image, "bash", "-c", limitPrelude(c.Limits, false), "rdeval-limits", c.Script)
}

// containerCleanup asks the engine whether the container was killed for
// memory (then the run hit its limit), and removes it.
func (c *command) containerCleanup(res *commandResult) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, c.Backend, "inspect", "--format", "{{.State.OOMKilled}}", c.Name).Output()
	if err == nil && strings.TrimSpace(string(out)) == "true" && res.LimitHit == "" && !res.TimedOut {
		res.LimitHit = fmt.Sprintf("memory: the container was killed for exceeding its %s limit", fmtBytes(c.Limits.MemoryBytes))
	}
	_ = exec.CommandContext(ctx, c.Backend, "rm", "--force", c.Name).Run()
}

// containerKill stops the container: the engine's client is only a
// client, so signalling it would leave the container running.
func (c *command) containerKill(signal string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = exec.CommandContext(ctx, c.Backend, "kill", "--signal", signal, c.Name).Run()
}

package execute

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// slurmPoll is how often squeue is asked about a submitted job.
var slurmPoll = 5 * time.Second

// shellQuote quotes s for bash: 'it'\”s'.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// slurmScript is the sbatch script of c: resources as #SBATCH lines
// (--time from the deadline, --cpus-per-task, --mem, --gres=gpu:N), the
// logs written by Slurm into the run folder (which must be on a file
// system the nodes share), --export=NONE and the run's environment set in
// the script (without CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES,
// which Slurm sets for the GPUs it grants), then the command under the
// sandbox chosen on the driver (bwrap binds /dev/nvidia* with
// --dev-bind-try: Slurm's device cgroup decides which GPUs are usable).
func (c *command) slurmScript(gpus int) (string, error) {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", c.Name)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n#SBATCH --error=%s\n", c.Stdout, c.Stderr)
	fmt.Fprintf(&b, "#SBATCH --chdir=%s\n#SBATCH --time=%d\n", c.Dir, c.slurmMinutes())
	b.WriteString(c.slurmHeader(gpus))
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "CUDA_VISIBLE_DEVICES" || k == "NVIDIA_VISIBLE_DEVICES" {
			continue
		}
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	local := *c
	local.Backend, local.CPUs, local.Devices, local.onNode = BackendLocal, nil, nil, true
	argv, err := local.argv()
	if err != nil {
		return "", err
	}
	if c.Sandbox == SandboxBwrap && gpus > 0 {
		// Insert the device binds after bwrap's --dev /dev.
		for i, a := range argv {
			if a == "--dev" && i+2 < len(argv) {
				var binds []string
				for _, n := range []string{"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset"} {
					binds = append(binds, "--dev-bind-try", "/dev/"+n, "/dev/"+n)
				}
				for n := range 64 {
					d := "/dev/nvidia" + strconv.Itoa(n)
					binds = append(binds, "--dev-bind-try", d, d)
				}
				argv = append(argv[:i+2], append(binds, argv[i+2:]...)...)
				break
			}
		}
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	b.WriteString("exec " + strings.Join(q, " ") + "\n")
	return b.String(), nil
}

// runSlurm writes c's script and submits it as an element of a job array
// (submitSlurm: the commands of a batch that start within slurmGather of
// each other and share resources go into one `sbatch --array`), polls
// squeue until the element leaves the queue, and reads its end with
// scontrol or sacct: TIMEOUT is a timeout,
// OUT_OF_MEMORY a memory limit hit, the exit code is sacct's (128+signal
// when killed). Cancelling ctx scancels the job.
func (c *command) runSlurm(ctx context.Context) (commandResult, error) {
	var res commandResult
	script, err := c.slurmScript(c.SlurmGPUs)
	if err != nil {
		return res, err
	}
	path := filepath.Join(filepath.Dir(c.Stdout), c.Name+".sbatch")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return res, err
	}
	start := time.Now()
	id, err := c.submitSlurm(ctx, path)
	if err != nil {
		return res, err
	}
	for {
		select {
		case <-ctx.Done():
			_ = exec.Command("scancel", id).Run()
			return res, ctx.Err()
		case <-time.After(slurmPoll):
		}
		q, err := exec.CommandContext(ctx, "squeue", "--noheader", "--jobs", id, "--format", "%T").Output()
		state := strings.TrimSpace(string(q))
		if err == nil && state != "" && state != "COMPLETED" && state != "FAILED" && state != "TIMEOUT" &&
			state != "CANCELLED" && state != "OUT_OF_MEMORY" && state != "NODE_FAIL" {
			continue
		}
		break
	}
	res.Wall = time.Since(start)
	state, code, sig, err := slurmEnd(ctx, id)
	if err != nil {
		return res, err
	}
	res.ExitCode = code
	if sig != 0 {
		res.ExitCode = 128 + sig
	}
	switch state {
	case "TIMEOUT":
		res.TimedOut = true
	case "OUT_OF_MEMORY":
		res.LimitHit = fmt.Sprintf("memory: Slurm killed the job for exceeding --mem %s", fmtBytes(c.Limits.MemoryBytes))
	case "COMPLETED":
	default:
		if res.ExitCode == 0 {
			res.ExitCode = 1 // CANCELLED, NODE_FAIL, FAILED without a code
		}
	}
	for _, p := range []string{c.Stdout, c.Stderr} {
		if fi, err := os.Stat(p); err == nil && fi.Size() > MaxLogBytes {
			_ = os.Truncate(p, MaxLogBytes)
			res.Truncated = true
		}
	}
	return res, nil
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return ": " + string(bytes.TrimSpace(ee.Stderr))
	}
	return ""
}

// slurmEnd reads a finished job's state and exit code: from `scontrol show
// job` (works without accounting, while the controller remembers the job,
// MinJobAge), else from sacct (needs accounting storage).
func slurmEnd(ctx context.Context, id string) (state string, code, sig int, err error) {
	parseCode := func(v string) {
		if a, b, ok := strings.Cut(v, ":"); ok {
			code, _ = strconv.Atoi(a)
			sig, _ = strconv.Atoi(b)
		}
	}
	if out, err := exec.CommandContext(ctx, "scontrol", "show", "job", "--oneliner", id).Output(); err == nil {
		for f := range strings.FieldsSeq(string(out)) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "JobState":
				state = v
			case "ExitCode":
				parseCode(v)
			}
		}
		if state != "" {
			return state, code, sig, nil
		}
	}
	acct, err := exec.CommandContext(ctx, "sacct", "--noheader", "--parsable2", "--allocations", "--jobs", id, "--format", "State,ExitCode").Output()
	if err != nil {
		return "", 0, 0, fmt.Errorf("job %s: neither scontrol nor sacct knows its end: sacct: %v%s", id, err, stderrOf(err))
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(acct)), "\n")
	f := strings.Split(line, "|")
	if len(f) < 2 {
		return "", 0, 0, fmt.Errorf("sacct -j %s printed %q, not State|ExitCode", id, acct)
	}
	parseCode(f[1])
	return strings.Fields(f[0] + " ")[0], code, sig, nil
}

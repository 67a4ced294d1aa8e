package execute

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeEngine writes a fake docker or podman into a new folder: it logs
// every call to LOG/calls and the argv of `run` (NUL-separated) to
// LOG/run.argv, then runs the container's command on the host in its
// --workdir with only its --env variables (plus a PATH), as a container
// would; `inspect` says OOMKilled when LOG/oom exists. It returns the
// folder for PATH and the log folder.
func fakeEngine(t *testing.T, name string) (bin, logDir string) {
	t.Helper()
	bin, logDir = t.TempDir(), t.TempDir()
	script := strings.ReplaceAll(`#!/bin/bash
printf '%s\n' "$*" >> LOG/calls
case "$1" in
run)
  printf '%s\0' "$@" > LOG/run.argv
  shift
  envs=(); wd=/
  while [ $# -gt 0 ]; do
    case "$1" in
      --read-only|--init) shift;;
      --env) envs+=("$2"); shift 2;;
      --workdir) wd=$2; shift 2;;
      --*) shift 2;;
      *) break;;
    esac
  done
  shift # the image
  cd "$wd" && exec env -i "${envs[@]}" PATH=/usr/local/bin:/usr/bin:/bin "$@"
  ;;
inspect) if [ -e LOG/oom ]; then echo true; else echo false; fi;;
esac
`, "LOG", logDir)
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, logDir
}

func readArgv(t *testing.T, logDir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(logDir, "run.argv"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// hasSeq reports whether args holds want as consecutive elements.
func hasSeq(args []string, want ...string) bool {
	for i := 0; i+len(want) <= len(args); i++ {
		ok := true
		for j, w := range want {
			if args[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestContainerBackends runs a gpus: 1 task with memory, cpus and pids
// limits through fake docker and podman clients and checks their command
// lines: no network, read-only root, the work tree as the only volume, no
// capabilities, the limits, the GPU by UUID (docker --gpus
// "device=UUID", podman CDI --device nvidia.com/gpu=UUID), the run's
// environment without the host's PATH; then an OOM kill is resource_limit
// and a timeout kills the container (not only its client).
// Not parallel: it puts the fake engine first on PATH.
func TestContainerBackends(t *testing.T) {
	found, _ := ParseGPUList([]byte(fakeSMIOutput))
	for _, engine := range []string{BackendDocker, BackendPodman} {
		bin, logDir := fakeEngine(t, engine)
		t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
		spec := bashTask(t, `echo "CVD=$CUDA_VISIBLE_DEVICES"; echo RESULT: 0`, "image: ghcr.io/example/task:1\nmemory: 1G\ncpus: 1\npids: 100\ngpus: 1\n")
		b, _ := os.ReadFile(spec)
		os.WriteFile(spec, bytes.Replace(b, []byte("gpus: 0\n"), nil, 1), 0o644)
		dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
		out := t.TempDir()
		_, res := runBatch(t, spec, []string{dir}, out, func(o *Options) {
			o.Backend, o.GPUs, o.Sandbox, o.CPUSet = engine, found[1:2], SandboxNone, []int{0}
		})
		r := res["p.diff"]
		if r.Outcome != OutcomeSuccess || r.Backend != engine || len(r.GPUs) != 1 {
			t.Fatalf("%s: %+v", engine, r)
		}
		argv := readArgv(t, logDir)
		work := filepath.Join(out, "runs", r.RunID, "work")
		uuid := found[1].UUID
		for _, want := range [][]string{
			{"run", "--name", "rdeval-" + r.RunID + "-run"},
			{"--network", "none", "--read-only"},
			{"--volume", work + ":" + work + ":rw", "--workdir", work},
			{"--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--init"},
			{"--pids-limit", "100", "--memory", "1073741824", "--memory-swap", "1073741824", "--cpuset-cpus", "0"},
			{"--env", "CUDA_VISIBLE_DEVICES=" + uuid},
			{"ghcr.io/example/task:1", "bash", "-c"},
		} {
			if !hasSeq(argv, want...) {
				t.Errorf("%s: argv lacks %q:\n%q", engine, want, argv)
			}
		}
		gpuFlag := []string{"--gpus", `"device=` + uuid + `"`}
		if engine == BackendPodman {
			gpuFlag = []string{"--device", "nvidia.com/gpu=" + uuid}
		}
		if !hasSeq(argv, gpuFlag...) {
			t.Errorf("%s: argv lacks %q: %q", engine, gpuFlag, argv)
		}
		for _, a := range argv {
			if strings.HasPrefix(a, "PATH=") || strings.HasPrefix(a, "HOME=") || a == "--privileged" || strings.HasPrefix(a, "--network=host") {
				t.Errorf("%s: argv has %q", engine, a)
			}
		}
		stdout, _ := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stdout.log"))
		if !strings.Contains(string(stdout), "CVD="+uuid) {
			t.Errorf("%s: stdout %q", engine, stdout)
		}
		calls, _ := os.ReadFile(filepath.Join(logDir, "calls"))
		if !strings.Contains(string(calls), "rm --force rdeval-"+r.RunID+"-run") {
			t.Errorf("%s: container not removed: %s", engine, calls)
		}

		// The engine OOM-killed the container.
		os.WriteFile(filepath.Join(logDir, "oom"), nil, 0o644)
		_, res = runBatch(t, spec, []string{dir}, t.TempDir(), func(o *Options) {
			o.Backend, o.GPUs, o.Sandbox, o.CPUSet = engine, found[1:2], SandboxNone, []int{0}
		})
		if r := res["p.diff"]; r.Outcome != OutcomeResourceLimit || !strings.Contains(r.Reason, "container was killed") {
			t.Errorf("%s OOM: %s %s", engine, r.Outcome, r.Reason)
		}
		os.Remove(filepath.Join(logDir, "oom"))
	}
	// No image: a clear error before any run.
	spec := bashTask(t, "echo RESULT: 0", "")
	s, _ := LoadSpec(spec)
	if _, err := runBatchErr(s, t.TempDir(), BackendDocker); err == nil || !strings.Contains(err.Error(), "needs a container image") {
		t.Errorf("no image: %v", err)
	}
}

// TestContainerTimeout: at the timeout the container itself is signalled
// (docker kill), since signalling the client would leave it running.
func TestContainerTimeout(t *testing.T) {
	bin, logDir := fakeEngine(t, BackendDocker)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	spec := bashTask(t, "sleep 30", "image: img\n")
	b, _ := os.ReadFile(spec)
	os.WriteFile(spec, bytes.Replace(b, []byte("timeout: 20s"), []byte("timeout: 500ms"), 1), 0o644)
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	start := time.Now()
	_, res := runBatch(t, spec, []string{dir}, t.TempDir(), func(o *Options) { o.Backend, o.Sandbox = BackendDocker, SandboxNone })
	r := res["p.diff"]
	calls, _ := os.ReadFile(filepath.Join(logDir, "calls"))
	if r.Outcome != OutcomeTimeout || !strings.Contains(string(calls), "kill --signal TERM rdeval-"+r.RunID+"-run") {
		t.Errorf("%s after %v; calls:\n%s", r.Outcome, time.Since(start), calls)
	}
}

func runBatchErr(s *Spec, out, backend string) (*Summary, error) {
	return Run(context.Background(), Options{Spec: s, Patches: []string{s.File}, Out: out, Sandbox: SandboxNone, Backend: backend})
}

// fakeSlurm writes fake sbatch, squeue and sacct: sbatch keeps a copy of
// the array script followed by its elements' scripts (LOG/job.sbatch), runs
// each element at once (SLURM_ARRAY_TASK_ID = 0…N−1 of its #SBATCH
// --array=0-N, in the array's --chdir, with --export=NONE's empty
// environment), records each element's exit status, and prints a job id;
// squeue says the job is gone; sacct prints State|ExitCode of element
// 4242_i (TIMEOUT when that element's script contains SIMULATE_TIMEOUT).
func fakeSlurm(t *testing.T) (bin, logDir string) {
	t.Helper()
	bin, logDir = t.TempDir(), t.TempDir()
	files := map[string]string{
		"sbatch": `#!/bin/bash
printf '%s\n' "$*" >> LOG/calls
f=${@: -1}
get() { sed -n "s/^#SBATCH --$1=//p" "$f"; }
last=$(get array | sed 's/^0-//')
cp "$f" LOG/job.sbatch
for ((i = 0; i <= last; i++)); do
  s=$(sed -n "s/^$i) cd .* \&\& exec bash '\([^']*\)' > .*/\1/p" "$f")
  cat "$s" >> LOG/job.sbatch
  cp "$s" LOG/element_$i.sbatch
  (cd "$(get chdir)" && env -i SLURM_ARRAY_TASK_ID=$i bash "$f"); echo $? > LOG/rc_$i
done
echo "4242;cluster"
`,
		"squeue": "#!/bin/bash\nprintf '%s\\n' \"squeue $*\" >> LOG/calls\n",
		"sacct": `#!/bin/bash
printf '%s\n' "sacct $*" >> LOG/calls
i=$(printf '%s\n' "$*" | sed -n 's/.*--jobs 4242_\([0-9]*\).*/\1/p')
if grep -q SIMULATE_TIMEOUT LOG/element_$i.sbatch; then echo "TIMEOUT|0:15"; exit; fi
rc=$(cat LOG/rc_$i); if [ "$rc" = 0 ]; then echo "COMPLETED|0:0"; else echo "FAILED|$rc:0"; fi
`,
		"scancel": "#!/bin/bash\nprintf '%s\\n' \"scancel $*\" >> LOG/calls\n",
		// The controller forgot the job: the end comes from sacct.
		"scontrol": "#!/bin/bash\nprintf '%s\\n' \"scontrol $*\" >> LOG/calls\nexit 1\n",
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(strings.ReplaceAll(s, "LOG", logDir)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin, logDir
}

// TestSlurmBackend: each run command becomes an sbatch script with the
// task's resources (--gres=gpu:N, --mem, --cpus-per-task, --time), the
// logs in the run folder, no exported environment, the run's variables
// (but not CUDA_VISIBLE_DEVICES, which Slurm sets) and the sandboxed
// command; sacct's state decides timeouts and exit codes.
func TestSlurmBackend(t *testing.T) {
	bin, logDir := fakeSlurm(t)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	old, oldGather := slurmPoll, slurmGather
	slurmPoll, slurmGather = 10*time.Millisecond, 10*time.Millisecond
	defer func() { slurmPoll, slurmGather = old, oldGather }()
	spec := bashTask(t, `echo "seed $RDEVAL_SEED"; echo RESULT: 0`, "memory: 2G\ncpus: 4\ngpus: 2\n")
	b, _ := os.ReadFile(spec)
	os.WriteFile(spec, bytes.Replace(b, []byte("gpus: 0\n"), nil, 1), 0o644)
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	out := t.TempDir()
	sb := testSandbox(t)
	_, res := runBatch(t, spec, []string{dir}, out, func(o *Options) { o.Backend, o.Sandbox = BackendSlurm, sb })
	r := res["p.diff"]
	job, _ := os.ReadFile(filepath.Join(logDir, "job.sbatch"))
	if r.Outcome != OutcomeSuccess || r.Backend != BackendSlurm {
		stderr, _ := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stderr.log"))
		t.Fatalf("%+v\njob:\n%s\nstderr: %s", r, job, stderr)
	}
	rd := filepath.Join(out, "runs", r.RunID)
	for _, want := range []string{
		"#SBATCH --job-name=rdeval-" + r.RunID + "-run\n",
		"#SBATCH --output=" + rd + "/stdout.log\n#SBATCH --error=" + rd + "/stderr.log\n",
		"#SBATCH --chdir=" + rd + "/work\n#SBATCH --time=1\n#SBATCH --export=NONE\n",
		"#SBATCH --cpus-per-task=4\n#SBATCH --mem=2048M\n#SBATCH --gres=gpu:2\n",
		"export RDEVAL_SEED='1'\n",
		"exec ",
	} {
		if !strings.Contains(string(job), want) {
			t.Errorf("job script lacks %q:\n%s", want, job)
		}
	}
	if strings.Contains(string(job), "CUDA_VISIBLE_DEVICES") {
		t.Errorf("the job script sets CUDA_VISIBLE_DEVICES (Slurm's to set):\n%s", job)
	}
	if sb == SandboxBwrap && !strings.Contains(string(job), "'--unshare-net'") {
		t.Errorf("the job does not run in bwrap:\n%s", job)
	}
	calls, _ := os.ReadFile(filepath.Join(logDir, "calls"))
	if !strings.Contains(string(calls), "--parsable "+rd+"/rdeval-array-") || !strings.Contains(string(calls), "sacct --noheader --parsable2 --allocations --jobs 4242_0") {
		t.Errorf("calls:\n%s", calls)
	}
	for _, want := range []string{"#SBATCH --array=0-0\n", "0) cd '" + rd + "/work' && exec bash '" + rd + "/rdeval-" + r.RunID + "-run.sbatch' > '" + rd + "/stdout.log' 2> '" + rd + "/stderr.log' ;;\n"} {
		if !strings.Contains(string(job), want) {
			t.Errorf("array script lacks %q:\n%s", want, job)
		}
	}

	// sacct says TIMEOUT.
	spec2 := bashTask(t, "echo SIMULATE_TIMEOUT", "")
	_, res = runBatch(t, spec2, []string{dir}, t.TempDir(), func(o *Options) { o.Backend, o.Sandbox = BackendSlurm, sb })
	if r := res["p.diff"]; r.Outcome != OutcomeTimeout {
		t.Errorf("TIMEOUT: %s %s", r.Outcome, r.Reason)
	}
	// A failing job's exit code.
	spec3 := bashTask(t, "exit 3", "")
	_, res = runBatch(t, spec3, []string{dir}, t.TempDir(), func(o *Options) { o.Backend, o.Sandbox = BackendSlurm, sb })
	if r := res["p.diff"]; r.Outcome != OutcomeExecError || r.ExitCode == nil || *r.ExitCode != 3 {
		t.Errorf("exit 3: %s %s", r.Outcome, r.Reason)
	}
}

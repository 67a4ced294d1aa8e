package execute

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseMemory(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"512M": 512 << 20, "4GiB": 4 << 30, "1.5G": 3 << 29, "1048576": 1 << 20, "64 MiB": 64 << 20, "2t": 2 << 40, "100KB": 100 << 10} {
		if got, err := ParseMemory(in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1G", "5X", "0"} {
		if _, err := ParseMemory(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	if _, err := ParseSpec([]byte(strings.Replace(minimalSpec, "gpus: 0", "gpus: 0\nmemory: 3 apples", 1)), "/"); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Errorf("bad memory: %v", err)
	}
	s, err := ParseSpec([]byte(strings.Replace(minimalSpec, "gpus: 0", "gpus: 0\nmemory: 2G\ncpus: 1\npids: 100", 1)), "/")
	if err != nil || s.MemoryBytes != 2<<30 || s.CPUs != 1 || s.PIDs != 100 {
		t.Errorf("%+v %v", s, err)
	}
	if s, _ := ParseSpec([]byte(minimalSpec), "/"); s.PIDs != DefaultPIDs || s.MemoryBytes != 0 {
		t.Errorf("defaults: %+v", s)
	}
}

// runLimited runs script under the machine's sandbox with the limits and
// returns the result and how long it took.
func runLimited(t *testing.T, script string, l Limits, timeout time.Duration) (commandResult, string) {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	c := &command{Sandbox: testSandbox(t), Script: script, Dir: work, Env: sandboxEnv(nil, nil, nil, 0),
		Stdout: filepath.Join(dir, "out"), Stderr: filepath.Join(dir, "err"), Deadline: time.Now().Add(timeout), Limits: l}
	res, err := c.run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res, filepath.Join(dir, "err")
}

// TestForkBombContained: an exponential fork bomb (bounded at 2^9 leaves
// so that a broken watchdog cannot take the machine down) and a linear one
// end in well under their timeout, with nothing left behind.
func TestForkBombContained(t *testing.T) {
	t.Parallel()
	for name, script := range map[string]string{
		"exponential": `f() { [ "$1" -lt 9 ] && { f $(($1+1)) & f $(($1+1)) & }; sleep 30 # rdeval-forkbomb
}; f 0; wait`,
		"linear": `for i in $(seq 2000); do (sleep 30 # rdeval-forkbomb
) & done; wait`,
	} {
		start := time.Now()
		res, _ := runLimited(t, script, Limits{PIDs: 64}, 60*time.Second)
		took := time.Since(start)
		t.Logf("%s fork bomb (sandbox %s, uid %d): %v, peak %d tasks, %s", name, testSandbox(t), os.Geteuid(), took, res.PeakTasks, res.LimitHit)
		if !strings.HasPrefix(res.LimitHit, "processes:") || took > 10*time.Second || res.TimedOut {
			t.Errorf("%s: not contained: %+v after %v", name, res, took)
		}
		// Without root, bwrap makes a user namespace and RLIMIT_NPROC counts
		// the run's own tasks: the kernel stops the bomb at the limit (bwrap's
		// outer process is outside the namespace: +1).
		if testSandbox(t) == SandboxBwrap && os.Geteuid() != 0 && res.PeakTasks > 64+1 {
			t.Errorf("%s: peak %d tasks: RLIMIT_NPROC was not enforced in the user namespace", name, res.PeakTasks)
		}
		if l := leftoversAfter("rdeval-forkbomb", 2*time.Second); len(l) > 0 {
			t.Errorf("%s: %d processes left, e.g. %s", name, len(l), l[0])
		}
	}
}

// TestMemoryHogContained: a process that allocates and touches memory
// without end is stopped by the address-space limit (CPU tasks) or by the
// resident-memory watchdog (GPU tasks, no RLIMIT_AS), well before its
// timeout.
func TestMemoryHogContained(t *testing.T) {
	t.Parallel()
	needPython(t)
	hog := `python3 -c '
a = []
while True:
    a.append(b"x" * (16 << 20))
'`
	// Watchdog only (as for GPU tasks).
	start := time.Now()
	res, _ := runLimited(t, hog, Limits{PIDs: 64, MemoryBytes: 200 << 20}, 60*time.Second)
	t.Logf("watchdog: %v, peak %s, %s", time.Since(start), fmtBytes(res.PeakRSS), res.LimitHit)
	if !strings.HasPrefix(res.LimitHit, "memory:") || time.Since(start) > 20*time.Second {
		t.Errorf("watchdog: %+v", res)
	}
	// RLIMIT_AS: the allocation fails, python exits with MemoryError.
	l := Limits{PIDs: 64, MemoryBytes: 200 << 20, AddressSpace: true}
	res, stderr := runLimited(t, hog, l, 60*time.Second)
	why := limitFromStderr(stderr, l)
	if res.ExitCode == 0 || (res.LimitHit == "" && !strings.HasPrefix(why, "memory:")) {
		b, _ := os.ReadFile(stderr)
		t.Errorf("RLIMIT_AS: %+v, %q; stderr %s", res, why, b)
	}
	// Within the limits nothing is stopped.
	res, _ = runLimited(t, `python3 -c 'a = b"x" * (20 << 20); print(len(a))'`, l, 60*time.Second)
	if res.ExitCode != 0 || res.LimitHit != "" {
		t.Errorf("small run: %+v", res)
	}
}

// TestResourceLimitOutcome: through the runner, a memory hog patch ends in
// resource_limit, and cpus: 1 pins the run to one CPU with
// OMP_NUM_THREADS=1.
func TestResourceLimitOutcome(t *testing.T) {
	t.Parallel()
	needPython(t)
	spec := bashTask(t, `grep Cpus_allowed_list /proc/self/status; echo "OMP=$OMP_NUM_THREADS"; python3 -c 'b"x" * (400 << 20)' || exit 3; echo RESULT: 0`, "memory: 128M\ncpus: 1\npids: 64\n")
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	out := t.TempDir()
	_, res := runBatch(t, spec, []string{dir}, out, nil)
	r := res["p.diff"]
	if r.Outcome != OutcomeResourceLimit || !strings.HasPrefix(r.Reason, "memory:") || len(r.CPUs) != 1 || r.LimitMemoryBytes != 128<<20 || r.LimitPIDs != 64 {
		b, _ := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stdout.log"))
		e, _ := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stderr.log"))
		t.Fatalf("%+v\nstdout: %s\nstderr: %s", r, b, e)
	}
	b, _ := os.ReadFile(filepath.Join(out, "runs", r.RunID, "stdout.log"))
	if want := "Cpus_allowed_list:\t" + strconv.Itoa(r.CPUs[0]) + "\nOMP=1\n"; !strings.HasPrefix(string(b), want) {
		t.Errorf("stdout %q, want it to start with %q", b, want)
	}
}

// TestForkBombPatchOutcome: through the runner, a run that fork-bombs
// (bounded at 2^9 leaves) ends in resource_limit well before its timeout,
// and the next run of the batch is unaffected.
func TestForkBombPatchOutcome(t *testing.T) {
	t.Parallel()
	spec := bashTask(t, `if [ "$RDEVAL_SEED" = 1 ]; then f() { [ "$1" -lt 9 ] && { f $(($1+1)) & f $(($1+1)) & }; sleep 30 # rdeval-bombpatch
}; f 0; wait; fi; echo RESULT: 0`, "pids: 64\n")
	b, _ := os.ReadFile(spec)
	os.WriteFile(spec, []byte(strings.Replace(strings.Replace(string(b), "seeds: [1]", "seeds: [1, 2]", 1), "timeout: 20s", "timeout: 60s", 1)), 0o644)
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	start := time.Now()
	sum, _ := runBatch(t, spec, []string{dir}, t.TempDir(), nil)
	took := time.Since(start)
	r1, r2 := sum.Results[0], sum.Results[1]
	t.Logf("fork bomb run: %s (%s), peak %d tasks; batch %v", r1.Outcome, r1.Reason, r1.PeakTasks, took)
	if r1.Outcome != OutcomeResourceLimit || !strings.HasPrefix(r1.Reason, "processes:") || took > 20*time.Second || r2.Outcome != OutcomeSuccess {
		t.Errorf("seed 1: %s %s; seed 2: %s; %v", r1.Outcome, r1.Reason, r2.Outcome, took)
	}
	if l := leftoversAfter("rdeval-bombpatch", 2*time.Second); len(l) > 0 {
		t.Errorf("%d processes left", len(l))
	}
}

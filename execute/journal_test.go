package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// driverEnv makes the test binary act as an `execute run` driver (see
// TestMain): SPEC|PATCHES|OUT|JOBS.
const driverEnv = "RDEVAL_TEST_DRIVER"

func TestMain(m *testing.M) {
	if v := os.Getenv(driverEnv); v != "" {
		os.Exit(testDriver(v))
	}
	os.Exit(m.Run())
}

func testDriver(v string) int {
	f := strings.Split(v, "|")
	s, err := LoadSpec(f[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sb, err := DetectSandbox(false)
	if err != nil {
		sb = SandboxNone
	}
	jobs := 1
	fmt.Sscan(f[3], &jobs)
	if _, err := Run(context.Background(), Options{Spec: s, Patches: []string{f[1]}, Out: f[2], Jobs: jobs, Sandbox: sb}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func countFinished(t *testing.T, out string) map[string]int {
	t.Helper()
	es, _, err := ReadJournal(out)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range es {
		if e.Event == EventRunFinish {
			n[e.RunID]++
		}
	}
	return n
}

// inProgress counts the runs the journal shows started and not finished
// that have no result yet: those in progress (after a kill, interrupted).
// A run with a result but no journaled finish counts as finished; see
// TestJournalRecoversUnjournaledFinish.
func inProgress(t *testing.T, out string) int {
	t.Helper()
	es, _, err := ReadJournal(out)
	if err != nil {
		t.Fatal(err)
	}
	s := map[string]bool{}
	for _, e := range es {
		switch e.Event {
		case EventRunStart:
			s[e.RunID] = true
		case EventRunFinish:
			delete(s, e.RunID)
		}
	}
	n := 0
	for id := range s {
		if _, err := os.Stat(filepath.Join(out, "runs", id, "result.json")); err != nil {
			n++
		}
	}
	return n
}

// TestKillDriverAndResume starts a driver over 10 runs (--jobs 2), kills
// it with SIGKILL once 3 runs have finished and another is in progress,
// checks `status` calls exactly the runs in progress interrupted, reruns it, and checks that every run has
// exactly one outcome, that the results finished before the kill are
// byte-for-byte unchanged (not redone), and that the journal records one
// finish per run over both drivers.
func TestKillDriverAndResume(t *testing.T) {
	t.Parallel()
	spec := bashTask(t, "sleep 0.3 # rdeval-killtest\necho RESULT: 0", "")
	// Ten seeds.
	b, _ := os.ReadFile(spec)
	os.WriteFile(spec, bytes.Replace(b, []byte("seeds: [1]"), []byte("seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"), 1), 0o644)
	patches := writePatches(t, map[string]string{"p.diff": patchCorrect})
	out := filepath.Join(t.TempDir(), "rundir")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start := func() *exec.Cmd {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), driverEnv+"="+strings.Join([]string{spec, patches, out, "2"}, "|"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	cmd := start()
	deadline := time.Now().Add(60 * time.Second)
	// Kill while a run is in progress. With two jobs both slots can finish
	// together, and the next runs start a moment later: waiting only for
	// three finishes could kill the driver in that gap (seen in CI).
	for len(countFinished(t, out)) < 3 || inProgress(t, out) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the driver did not finish 3 runs in 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	interrupted := inProgress(t, out)
	// Results present right after the kill.
	before := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join(out, "runs", "*", "result.json"))
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		before[p] = b
	}
	if len(before) < 3 || len(before) >= 10 {
		t.Fatalf("%d results after the kill: the kill was not mid-batch", len(before))
	}
	// A child forked at the instant of the kill holds the lock until it
	// execs (close-on-exec): give it a moment.
	st, err := Status(out)
	for i := 0; err == nil && st.DriverRunning && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
		st, err = Status(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.DriverRunning || st.Counts[OutcomeSuccess] != len(before) || st.Counts[StateRunning] != 0 || st.Counts[StateInterrupted] != interrupted ||
		st.Counts[StateInterrupted]+st.Counts[StateQueued]+len(before) != 10 {
		t.Errorf("status after the kill: %+v, want %d interrupted", st.Counts, interrupted)
	}
	if interrupted == 0 {
		// The run seen in progress finished between the poll and the
		// kill: the rest of the test still holds, with less to check.
		t.Log("no run was in progress at the kill")
	}
	if err := start().Wait(); err != nil {
		t.Fatalf("rerun: %v", err)
	}
	// Nothing is left: the sandboxes died with the driver, or the rerun
	// killed a bwrap that was starting at the instant of the kill.
	if l := leftoversAfter("rdeval-killtest", 2*time.Second); len(l) > 0 {
		t.Errorf("processes left after the rerun: %v", l)
	}
	st, err = Status(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts[OutcomeSuccess] != 10 || len(st.Runs) != 10 {
		t.Errorf("after the rerun: %+v", st.Counts)
	}
	for p, b := range before {
		now, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(now, b) {
			t.Errorf("%s changed or vanished after the rerun", p)
		}
	}
	for id, n := range countFinished(t, out) {
		if n != 1 {
			t.Errorf("%s finished %d times", id, n)
		}
	}
	if n := len(countFinished(t, out)); n != 10 {
		t.Errorf("%d runs finished in the journal, want 10", n)
	}
	es, torn, _ := ReadJournal(out)
	starts, stale := 0, 0
	for _, e := range es {
		if e.Event == EventBatchStart {
			starts++
			stale += e.StaleKilled
		}
	}
	t.Logf("journal: %d entries, %d torn lines, %d batches, %d stale processes killed; %d results kept across the kill", len(es), torn, starts, stale, len(before))
	if starts != 2 {
		t.Errorf("%d batch_start entries, want 2", starts)
	}
	var m Manifest
	b, _ = os.ReadFile(filepath.Join(out, "manifest.json"))
	if json.Unmarshal(b, &m) != nil || len(m.Runs) != 10 {
		t.Errorf("manifest: %d runs", len(m.Runs))
	}
}

// TestRunDirLocked: a second driver on a run folder in use stops at once.
func TestRunDirLocked(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	f, err := lockRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if running, pid := DriverRunning(out); !running || pid != os.Getpid() {
		t.Errorf("DriverRunning = %v %d", running, pid)
	}
	if _, err := lockRunDir(out); err == nil || !strings.Contains(err.Error(), "in use by another rdeval execute") {
		t.Errorf("second lock: %v", err)
	}
	f.Close()
	if running, _ := DriverRunning(out); running {
		t.Error("still running after unlock")
	}
}

// TestJournalRecoversUnjournaledFinish: a driver killed between writing a
// run's result.json and journaling its finish (the window
// TestKillDriverAndResume can hit) leaves a result without a run_finish
// entry; the next driver keeps the result and journals the finish once.
func TestJournalRecoversUnjournaledFinish(t *testing.T) {
	t.Parallel()
	spec := bashTask(t, "echo RESULT: 0", "")
	patches := writePatches(t, map[string]string{"p.diff": patchCorrect})
	out := t.TempDir()
	runBatch(t, spec, []string{patches}, out, nil)
	// Drop the run_finish entry, as a kill at that instant would.
	path := filepath.Join(out, JournalFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !strings.Contains(l, `"event":"`+EventRunFinish+`"`) {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")) {
		t.Fatalf("no run_finish entry to drop in:\n%s", b)
	}
	os.WriteFile(path, []byte(strings.Join(kept, "\n")+"\n"), 0o644)
	if n := len(countFinished(t, out)); n != 0 {
		t.Fatalf("%d finished before the rerun", n)
	}
	sum, _ := runBatch(t, spec, []string{patches}, out, nil)
	if sum.Skipped != 1 || sum.Ran != 0 {
		t.Errorf("rerun: ran %d, skipped %d; want the result kept", sum.Ran, sum.Skipped)
	}
	fin := countFinished(t, out)
	if len(fin) != 1 {
		t.Fatalf("finished after the rerun: %v", fin)
	}
	es, _, _ := ReadJournal(out)
	recovered := 0
	for _, e := range es {
		if e.Event == EventRunFinish && strings.HasPrefix(e.Reason, "recovered:") {
			recovered++
		}
	}
	if recovered != 1 {
		t.Errorf("%d recovered finish entries, want 1", recovered)
	}
	// A third run journals nothing more for it.
	runBatch(t, spec, []string{patches}, out, nil)
	for id, n := range countFinished(t, out) {
		if n != 1 {
			t.Errorf("%s finished %d times", id, n)
		}
	}
}

package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// minimalSpec is the minimal task spec, exactly as written there.
const minimalSpec = `id: toy
repo: ./repo
base_commit: main            # a commit id, branch or tag
run: python3 experiment.py --seed $RDEVAL_SEED
timeout: 20s
gpus: 0
seeds: [1]
metrics:
  accuracy: {stdout_regex: 'ACC: ([0-9.]+)'}
success:
  exact: {accuracy: 0.8125}
`

const toyExperiment = `import argparse, random
p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, required=True)
a = p.parse_args()
random.seed(a.seed)
from model import predict
print("ACC: %.4f" % predict())
`

const toyModel = "def predict():\n    return 0.5\n"

// Agent patches against toyModel.
const (
	patchCorrect = `diff --git a/model.py b/model.py
--- a/model.py
+++ b/model.py
@@ -1,2 +1,2 @@
 def predict():
-    return 0.5
+    return 0.8125
`
	patchWrong = `diff --git a/model.py b/model.py
--- a/model.py
+++ b/model.py
@@ -1,2 +1,2 @@
 def predict():
-    return 0.5
+    return 0.75
`
	patchCrash = `diff --git a/model.py b/model.py
--- a/model.py
+++ b/model.py
@@ -1,2 +1,2 @@
 def predict():
-    return 0.5
+    raise SystemExit(1)
`
	// patchSleep leaves a background process behind and sleeps past the
	// timeout; its marker argument finds leftovers in /proc.
	patchSleep = `diff --git a/model.py b/model.py
--- a/model.py
+++ b/model.py
@@ -1,2 +1,4 @@
+import subprocess, time
 def predict():
-    return 0.5
+    subprocess.Popen(["sleep", "987.654321"])
+    time.sleep(60)
`
	sleepMarker = "987.654321"
	patchEscape = `diff --git a/../evil.py b/../evil.py
new file mode 100644
--- /dev/null
+++ b/../evil.py
@@ -0,0 +1 @@
+print("escaped")
`
	// patchOffset has a wrong hunk position: go-gitdiff refuses it, the
	// CLI fallbacks find the context.
	patchOffset = `diff --git a/model.py b/model.py
--- a/model.py
+++ b/model.py
@@ -3,2 +3,2 @@
 def predict():
-    return 0.5
+    return 0.8125
`
	patchNotApplying = `diff --git a/model.py b/model.py
--- a/model.py
+++ b/model.py
@@ -1,2 +1,2 @@
 def forecast():
-    return 0.25
+    return 0.8125
`
	// patchAddRename creates a file, renames one and makes one executable.
	patchAddRename = `diff --git a/helper.py b/helper.py
new file mode 100755
--- /dev/null
+++ b/helper.py
@@ -0,0 +1 @@
+X = 1
diff --git a/model.py b/toy_model.py
similarity index 100%
rename from model.py
rename to toy_model.py
diff --git a/README.md b/README.md
deleted file mode 100644
--- a/README.md
+++ /dev/null
@@ -1 +0,0 @@
-toy
`
)

// commitAll makes repoDir (already holding its files) a git repository on
// branch main with one commit of everything in it, by a fixed author at a
// fixed time.
func commitAll(t *testing.T, repoDir, msg string) {
	t.Helper()
	repo, err := git.PlainInitWithOptions(repoDir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Task Author", Email: "author@example.com", When: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

// toyTask builds the toy repository with go-git next to a task spec and
// returns the spec's path.
func toyTask(t *testing.T, spec string) string {
	t.Helper()
	dir := t.TempDir()
	repoDir := filepath.Join(dir, "repo")
	files := map[string]string{"experiment.py": toyExperiment, "model.py": toyModel, "README.md": "toy\n",
		"run.sh": "#!/bin/bash\nexec python3 experiment.py --seed \"$RDEVAL_SEED\"\n",
		// A CSV of the repository's own, which readers of run folders
		// (ingest) must not take for an input.
		"data/train.csv": "x,y\n1,2\n"}
	for name, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(repoDir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(repoDir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commitAll(t, repoDir, "toy task")
	path := filepath.Join(dir, "toy.yaml")
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writePatches writes name → content patch files into a new folder.
func writePatches(t *testing.T, patches map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, p := range patches {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testSandbox returns the sandbox the tests run under: the one this
// machine offers, or none.
func testSandbox(t *testing.T) string {
	t.Helper()
	sb, err := DetectSandbox(false)
	if err != nil {
		t.Logf("no sandbox on this machine (%v): running unconfined", err)
		return SandboxNone
	}
	return sb
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: the toy experiment needs it")
	}
}

// runBatch loads the spec and runs the patches; it returns results by
// patch file base name.
func runBatch(t *testing.T, specPath string, patches []string, out string, mod func(*Options)) (*Summary, map[string]*Result) {
	t.Helper()
	s, err := LoadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Spec: s, Patches: patches, Out: out, Sandbox: testSandbox(t)}
	if mod != nil {
		mod(&opts)
	}
	sum, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Result{}
	for _, r := range sum.Results {
		byName[filepath.Base(r.PatchFile)] = r
	}
	return sum, byName
}

// leftoversAfter polls leftovers(marker) for up to wait and returns what
// is still there: a process killed an instant ago may still be exiting.
func leftoversAfter(marker string, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		l := leftovers(marker)
		if len(l) == 0 || time.Now().After(deadline) {
			return l
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leftovers lists the processes whose command line contains marker.
func leftovers(marker string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), marker) {
			found = append(found, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

func TestRunOutcomes(t *testing.T) {
	t.Parallel()
	needPython(t)
	spec := toyTask(t, minimalSpec)
	dir := writePatches(t, map[string]string{
		"correct.diff": patchCorrect, "wrong.diff": patchWrong, "crash.diff": patchCrash,
		"empty.diff": "", "escape.diff": patchEscape,
		"offset.diff": patchOffset, "noapply.diff": patchNotApplying,
	})
	out := filepath.Join(t.TempDir(), "rundir")
	sum, res := runBatch(t, spec, []string{dir}, out, func(o *Options) { o.Jobs = 4 })
	want := map[string]string{
		"correct.diff": OutcomeSuccess, "wrong.diff": OutcomeWrongResult, "crash.diff": OutcomeExecError,
		"empty.diff": OutcomeNoPatch, "escape.diff": OutcomePatchFailed,
		"offset.diff": OutcomeSuccess, "noapply.diff": OutcomePatchFailed,
	}
	if len(sum.Results) != len(want) || sum.Ran != len(want) {
		t.Fatalf("ran %d runs, %d results; want %d", sum.Ran, len(sum.Results), len(want))
	}
	for name, w := range want {
		r := res[name]
		if r == nil {
			t.Errorf("%s: no result", name)
			continue
		}
		if r.Outcome != w {
			t.Errorf("%s: outcome %s (%s), want %s", name, r.Outcome, r.Reason, w)
		}
		// result.json on disk is what Run returned.
		disk, err := ReadResult(filepath.Join(out, "runs", r.RunID, "result.json"))
		if err != nil || disk.Outcome != r.Outcome {
			t.Errorf("%s: result.json: %v, %+v", name, err, disk)
		}
		if r.Sandbox == "" || r.StartedAt == "" || r.FinishedAt == "" || len(r.PatchSHA256) != 64 || r.Seed != 1 || r.Repeat != 1 {
			t.Errorf("%s: incomplete result %+v", name, r)
		}
	}
	if r := res["correct.diff"]; r.Metrics["accuracy"] != 0.8125 || r.ApplyMethod != ApplyGo ||
		r.ExitCode == nil || *r.ExitCode != 0 || strings.Join(r.FilesEdited, ",") != "model.py" || r.LinesAdded != 1 || r.LinesDeleted != 1 {
		t.Errorf("correct: %+v", r)
	}
	if r := res["wrong.diff"]; r.Metrics["accuracy"] != 0.75 {
		t.Errorf("wrong: metrics %v", r.Metrics)
	}
	if r := res["crash.diff"]; r.ExitCode == nil || *r.ExitCode != 1 {
		t.Errorf("crash: exit code %v", r.ExitCode)
	}
	if r := res["offset.diff"]; r.ApplyMethod != ApplyGit3Way && r.ApplyMethod != ApplyPatchCLI {
		t.Errorf("offset patch applied by %q, want a CLI fallback", r.ApplyMethod)
	}
	if r := res["noapply.diff"]; r.FailedFile != "model.py" || r.ApplyMethod != "" {
		t.Errorf("noapply: failed file %q, method %q", r.FailedFile, r.ApplyMethod)
	}
	// The escaping patch is rejected before any work tree exists.
	esc := res["escape.diff"]
	if esc.FailedFile != "../evil.py" {
		t.Errorf("escape: failed file %q (%s)", esc.FailedFile, esc.Reason)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", esc.RunID, "work")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("escape: a work tree was created (%v)", err)
	}
	for _, p := range []string{filepath.Join(out, "runs", "evil.py"), filepath.Join(out, "runs", esc.RunID, "evil.py")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written", p)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Error(err)
	}
}

// TestTimeout runs a patch that leaves a background process and sleeps
// past the timeout, under the machine's sandbox and without one.
func TestTimeout(t *testing.T) {
	t.Parallel()
	needPython(t)
	spec := toyTask(t, strings.Replace(minimalSpec, "timeout: 20s", "timeout: 1200ms", 1))
	dir := writePatches(t, map[string]string{"sleep.diff": patchSleep})
	for _, sb := range []string{testSandbox(t), SandboxNone} {
		_, res := runBatch(t, spec, []string{dir}, t.TempDir(), func(o *Options) { o.Sandbox = sb })
		r := res["sleep.diff"]
		if r.Outcome != OutcomeTimeout || r.WallS > 1.2+float64(killGrace/time.Second)+1 {
			t.Errorf("%s: outcome %s after %.1f s", sb, r.Outcome, r.WallS)
		}
		if l := leftoversAfter(sleepMarker, 2*time.Second); len(l) > 0 {
			t.Errorf("%s: processes left after the timeout: %v", sb, l)
		}
	}
}

func TestMinimalSpecAndResume(t *testing.T) {
	t.Parallel()
	needPython(t)
	spec := toyTask(t, minimalSpec)
	dir := writePatches(t, map[string]string{"correct.diff": patchCorrect, "empty.diff": "\n"})
	out := filepath.Join(t.TempDir(), "rundir")
	sum, res := runBatch(t, spec, []string{dir}, out, nil)
	if sum.Ran != 2 || res["correct.diff"].Outcome != OutcomeSuccess || res["empty.diff"].Outcome != OutcomeNoPatch {
		t.Fatalf("first run: %+v", sum)
	}
	before := map[string][]byte{}
	for _, r := range sum.Results {
		b, err := os.ReadFile(filepath.Join(out, "runs", r.RunID, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		before[r.RunID] = b
	}
	// An unfinished run (work tree, no result.json) is redone.
	stale := filepath.Join(out, "runs", "toy-000000000000-s1-r1", "work")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	sum2, _ := runBatch(t, spec, []string{dir}, out, nil)
	if sum2.Ran != 0 || sum2.Skipped != 2 {
		t.Fatalf("second run ran %d, skipped %d; want 0 and 2", sum2.Ran, sum2.Skipped)
	}
	for id, b := range before {
		after, err := os.ReadFile(filepath.Join(out, "runs", id, "result.json"))
		if err != nil || string(after) != string(b) {
			t.Errorf("%s: result.json changed on resume", id)
		}
	}
	// Remove one result and leave its work tree: only that run is redone.
	r := res["correct.diff"]
	if err := os.Remove(filepath.Join(out, "runs", r.RunID, "result.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "runs", r.RunID, "work", "junk"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum3, res3 := runBatch(t, spec, []string{dir}, out, nil)
	if sum3.Ran != 1 || sum3.Skipped != 1 || res3["correct.diff"].Outcome != OutcomeSuccess {
		t.Fatalf("third run: ran %d skipped %d", sum3.Ran, sum3.Skipped)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", r.RunID, "work")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work tree left after the redone run")
	}
}

func TestRepeatsSeedsAndApplyOps(t *testing.T) {
	t.Parallel()
	needPython(t)
	spec := toyTask(t, `id: toy
repo: repo
base_commit: main
setup: test -f helper.py && test -x helper.py && test ! -e README.md
run: python3 -c 'import toy_model, os; print("ACC:", toy_model.predict(), os.environ["RDEVAL_SEED"], os.environ["GREETING"])'
env: {GREETING: hello}
timeout: 20s
gpus: 0
seeds: [1, 2]
metrics:
  accuracy: {stdout_regex: 'ACC: ([0-9.]+)'}
  seed: {stdout_regex: 'ACC: [0-9.]+ ([0-9]+) hello'}
success:
  range: {accuracy: {mean: 0.5, sd: 0.01}}
`)
	dir := writePatches(t, map[string]string{"ops.diff": patchAddRename})
	out := filepath.Join(t.TempDir(), "rundir")
	sum, _ := runBatch(t, spec, []string{dir}, out, func(o *Options) { o.Repeats = 2; o.Jobs = 2 })
	if len(sum.Results) != 4 {
		t.Fatalf("%d results, want 4", len(sum.Results))
	}
	for _, r := range sum.Results {
		if r.Outcome != OutcomeSuccess || r.Metrics["seed"] != float64(r.Seed) {
			t.Errorf("%s: %s (%s) metrics %v", r.RunID, r.Outcome, r.Reason, r.Metrics)
		}
	}
}

// bashTask is a spec whose run is a bash script and whose metric RESULT
// must be 0.
func bashTask(t *testing.T, script string, extra string) string {
	return toyTask(t, fmt.Sprintf(`id: sb
repo: repo
base_commit: main
run: %q
timeout: 20s
gpus: 0
seeds: [1]
%smetrics:
  result: {stdout_regex: 'RESULT: ([0-9]+)'}
success:
  exact: {result: 0}
`, script, extra))
}

func TestMetricFilesAndKeep(t *testing.T) {
	t.Parallel()
	spec := toyTask(t, `id: files
repo: repo
base_commit: main
run: |
  mkdir -p out
  printf '{"a": {"b": [0.1, 0.25]}}' > out/metrics.json
  printf 'epoch,test_acc\n1,0.5\n2,0.88211\n' > out/log.csv
timeout: 20s
gpus: 0
seeds: [3]
keep: [out/*.json]
metrics:
  j: {json_file: out/metrics.json, path: a.b.1}
  c: {csv_file: out/log.csv, row: -1, column: test_acc}
success:
  all: [{metric: j, value: 0.25, tol: 0}, {metric: c, value: 0.882, tol: 0.002}]
`)
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	out := t.TempDir()
	_, res := runBatch(t, spec, []string{dir}, out, nil)
	r := res["p.diff"]
	if r.Outcome != OutcomeSuccess || r.Metrics["c"] != 0.88211 || strings.Join(r.Kept, ",") != "out/metrics.json" {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", r.RunID, "keep", "out", "metrics.json")); err != nil {
		t.Error(err)
	}
}

func TestNoOutputIsNeverSuccess(t *testing.T) {
	t.Parallel()
	spec := bashTask(t, "true", "")
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	_, res := runBatch(t, spec, []string{dir}, t.TempDir(), nil)
	if r := res["p.diff"]; r.Outcome != OutcomeExecError || r.MetricErrors["result"] == "" {
		t.Fatalf("%+v", r)
	}
}

func TestSandboxNoNetwork(t *testing.T) {
	t.Parallel()
	sb, err := DetectSandbox(false)
	if err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.1: %v", err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	// The control: without a sandbox the same script connects.
	script := fmt.Sprintf("if (exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null; then echo RESULT: 1; else echo RESULT: 0; fi", port)
	spec := bashTask(t, script, "")
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	_, res := runBatch(t, spec, []string{dir}, t.TempDir(), func(o *Options) { o.Sandbox = sb })
	if r := res["p.diff"]; r.Outcome != OutcomeSuccess {
		t.Errorf("%s: the run reached 127.0.0.1:%d (outcome %s, %v)", sb, port, r.Outcome, r.Metrics)
	}
	select {
	case <-accepted:
		t.Errorf("%s: the server accepted a connection from the run", sb)
	default:
	}
	_, res = runBatch(t, spec, []string{dir}, t.TempDir(), func(o *Options) { o.Sandbox = SandboxNone })
	if r := res["p.diff"]; r.Outcome != OutcomeWrongResult {
		t.Errorf("control without sandbox: %s %v (the test server is not reachable at all?)", r.Outcome, r.Metrics)
	}
}

func TestSandboxWritesConfined(t *testing.T) {
	t.Parallel()
	sb, err := DetectSandbox(false)
	if err != nil {
		t.Skipf("no sandbox on this machine: %v", err)
	}
	if sb != SandboxBwrap {
		t.Skipf("sandbox is %s: the unshare fallback does not confine writes (only network and PIDs)", sb)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	hostDir := t.TempDir()
	name := fmt.Sprintf("rdeval-escape-%d", time.Now().UnixNano())
	targets := []string{filepath.Join("/tmp", name), filepath.Join(home, name), filepath.Join(hostDir, name), filepath.Join("/etc", name)}
	var script strings.Builder
	for _, p := range targets {
		fmt.Fprintf(&script, "echo x > %q 2>/dev/null; ", p)
	}
	script.WriteString("echo inside > ok.txt && cat ok.txt && echo RESULT: 0")
	spec := bashTask(t, script.String(), "")
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	_, res := runBatch(t, spec, []string{dir}, t.TempDir(), func(o *Options) { o.Sandbox = sb })
	if r := res["p.diff"]; r.Outcome != OutcomeSuccess {
		t.Errorf("the run could not write its own work tree: %s (%s)", r.Outcome, r.Reason)
	}
	for _, p := range targets {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("the sandboxed run wrote %s", p)
		}
	}
}

func TestGPUTaskWithoutGPUs(t *testing.T) {
	t.Parallel()
	spec := toyTask(t, strings.Replace(minimalSpec, "gpus: 0", "gpus: 1", 1))
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Spec: s, Patches: []string{spec}, Out: t.TempDir(), Sandbox: SandboxNone})
	if err == nil || !strings.Contains(err.Error(), "GPU") {
		t.Fatalf("err = %v", err)
	}
}

// TestZeroContextInsertionNotMisplaced: a patch made with git diff -U0 that
// only inserts a line must land after line N (git's reading), not one line
// early as go-gitdiff v0.9.0 would put it: the Go step declines it and the
// cascade's git apply (when git exists) places it.
func TestZeroContextInsertionNotMisplaced(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := []byte("diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -2,0 +3 @@\n+X\n")
	p, err := ParsePatch(bytes.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	if err := applyGo(dir, patch, p); err == nil {
		got, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
		if string(got) != "a\nb\nX\nc\n" {
			t.Fatalf("Go apply placed the insertion wrongly: %q", got)
		}
	}
}

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/execute"
)

// The end-to-end task of issue #7: a seeded Python-stdlib experiment that
// prints its accuracy, and agent patches that succeed, give a wrong number,
// crash with a traceback, time out, do not apply, are empty, or try to
// escape the tree. The timeout is 10 s, though a run takes a tenth of a
// second: with 5 s, a correct run timed out on a loaded 2-core machine
// (the test suite's packages plus two busy loops).
const (
	e2eSpec = `id: toy
repo: ./repo
base_commit: main
run: python3 experiment.py --seed $RDEVAL_SEED
timeout: 10s
gpus: 0
seeds: [1, 2]
metrics:
  accuracy: {stdout_regex: 'ACC: ([0-9.]+)'}
success:
  exact: {accuracy: 0.8125}
`
	e2eExperiment = `import argparse, random
p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, required=True)
a = p.parse_args()
random.seed(a.seed)
from model import predict
print("ACC: %.4f" % predict(random.random()))
`
	e2eModel = "def predict(noise):\n    return 0.5\n"
)

func e2ePatch(body string) string {
	return "diff --git a/model.py b/model.py\n--- a/model.py\n+++ b/model.py\n@@ -1,2 +1,2 @@\n def predict(noise):\n-    return 0.5\n" + body
}

// TestExecuteIngestSuccessErrors runs `rdeval execute run` over two agents'
// patches, then `rdeval ingest` on the run folder, `rdeval success` on the
// tables and `rdeval errors` on the crashed run's folder, each through
// Main as a user would.
func TestExecuteIngestSuccessErrors(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: the toy experiment needs it")
	}
	patches := map[string]string{
		// agent-a: succeeds, wrong number, crash with a traceback, time out.
		"agent-a/correct.diff": e2ePatch("+    return 0.8125\n"),
		"agent-a/wrong.diff":   e2ePatch("+    return 0.75\n"),
		"agent-a/crash.diff":   e2ePatch("+    raise ValueError('bad config: noise %.3f' % noise)\n"),
		"agent-a/slow.diff":    e2ePatch("+    import time; time.sleep(60)\n"),
		// agent-b: succeeds, does not apply, empty, escapes the tree.
		"agent-b/correct.diff": e2ePatch("+    return 0.8125 + 0 * noise\n"),
		"agent-b/noapply.diff": "diff --git a/model.py b/model.py\n--- a/model.py\n+++ b/model.py\n@@ -1,2 +1,2 @@\n def forecast():\n-    return 0.25\n+    return 0.8125\n",
		"agent-b/empty.diff":   "",
		"agent-b/escape.diff":  "diff --git a/../evil.py b/../evil.py\nnew file mode 100644\n--- /dev/null\n+++ b/../evil.py\n@@ -0,0 +1 @@\n+print(\"escaped\")\n",
	}
	specPath, _ := cmdtest.TaskRepo(t, map[string]string{"experiment.py": e2eExperiment, "model.py": e2eModel}, e2eSpec, patches)
	dir := filepath.Dir(specPath)
	rd := filepath.Join(t.TempDir(), "rd")
	args := []string{"execute", "run", "--task", specPath, "--patches", filepath.Join(dir, "agent-a") + "," + filepath.Join(dir, "agent-b"), "--out", rd, "--jobs", "2", "--format", "json"}
	if _, err := execute.DetectSandbox(false); err != nil {
		t.Logf("no sandbox here (%v): --unsafe-no-sandbox", err)
		args = append(args, "--unsafe-no-sandbox")
	}
	code, out, stderr := run(t, args...)
	if code > 1 {
		t.Fatalf("execute run: exit %d\n%s", code, stderr)
	}
	var results []execute.Result
	if err := json.Unmarshal([]byte(out), &results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{
		"agent-a/correct.diff": "success", "agent-a/wrong.diff": "wrong_result", "agent-a/crash.diff": "exec_error", "agent-a/slow.diff": "timeout",
		"agent-b/correct.diff": "success", "agent-b/noapply.diff": "patch_failed", "agent-b/empty.diff": "no_patch", "agent-b/escape.diff": "patch_failed",
	}
	var crashRun string
	got := map[string]int{}
	for _, r := range results {
		name := filepath.Base(filepath.Dir(r.PatchFile)) + "/" + filepath.Base(r.PatchFile)
		got[name+" "+r.Outcome]++
		if name == "agent-a/crash.diff" {
			crashRun = r.RunID
		}
		if name == "agent-b/escape.diff" && !strings.Contains(r.Reason, "..") {
			t.Errorf("escape.diff: reason %q does not name the escaping path", r.Reason)
		}
	}
	for name, outcome := range want {
		if got[name+" "+outcome] != 2 {
			t.Errorf("%s: outcomes %v, want %s for both seeds", name, got, outcome)
		}
	}
	if len(results) != 16 {
		t.Fatalf("%d results, want 16 (8 patches × 2 seeds)", len(results))
	}
	if _, err := os.Stat(filepath.Join(dir, "evil.py")); err == nil {
		t.Error("the escaping patch wrote outside the tree")
	}

	// ingest → success: agent-a and agent-b each succeed in 2 of 8 runs.
	study := filepath.Join(t.TempDir(), "study")
	if code, _, stderr := run(t, "ingest", rd, "-o", study); code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, stderr)
	}
	code, out, stderr = run(t, "success", study, "--format", "json")
	if code != 0 {
		t.Fatalf("success: exit %d\n%s", code, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	agents := map[string]bool{}
	for _, r := range rows {
		if r["task_id"] != "toy" {
			continue
		}
		a, _ := r["agent"].(string)
		if a == "" {
			a, _ = r["framework"].(string)
		}
		agents[a] = true
		if fs, ok := r["final_success"].(float64); !ok || fs != 0.25 {
			t.Errorf("success row %v: final_success %v, want 0.25 (2 of 8 runs)", r, r["final_success"])
		}
	}
	if len(agents) != 2 {
		t.Errorf("success: agents %v, want agent-a and agent-b\n%s", agents, out)
	}

	// errors: the crashed run's log ends in the ValueError traceback.
	code, out, stderr = run(t, "errors", filepath.Join(rd, "runs", crashRun), "--format", "json")
	if code != 0 || !strings.Contains(out, "ValueError") {
		t.Errorf("errors on %s: exit %d, output %s\n%s", crashRun, code, out, stderr)
	}
}

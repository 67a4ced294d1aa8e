package executecmd

import (
	"encoding/json"
	"errors"
	"math"

	"github.com/rdeval/rdeval/ingest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/execute"
)

// spec is the toy task's spec (cmdtest.ToyTaskSpec: bash experiment,
// seeds 1 and 2, success when the accuracy is 0.8125).
const spec = cmdtest.ToyTaskSpec

// toy builds the toy task: good.diff succeeds, empty.diff is empty.
func toy(t *testing.T) (specPath, patches string) { return cmdtest.ToyExecuteTask(t) }

func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	io, out, errOut := iostreams.Test()
	cmd := NewCmd(io, nil)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestExecuteRun(t *testing.T) {
	specPath, patches := toy(t)
	args := []string{"run", "--task", specPath, "--patches", patches, "--out", filepath.Join(t.TempDir(), "rd"), "--format", "json"}
	if _, err := execute.DetectSandbox(false); err != nil {
		t.Logf("no sandbox here (%v): running with --unsafe-no-sandbox", err)
		args = append(args, "--unsafe-no-sandbox")
	}
	out, errOut, err := run(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var res []execute.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]int{}
	for _, r := range res {
		got[filepath.Base(r.PatchFile)+" "+r.Outcome]++
	}
	if got["good.diff success"] != 2 || got["empty.diff no_patch"] != 2 || len(res) != 4 {
		t.Fatalf("%v\n%s", got, errOut)
	}
	// ingest reads the run folder: the same runs and outcomes, so every
	// analysis (success, errors, …) works on execute's output.
	rd := args[6] // the value of --out
	ds, err := ingest.Load([]string{rd}, ingest.Options{})
	if err != nil || ds.Err() != nil {
		t.Fatalf("ingest of the run folder: %v %v", err, ds.Err())
	}
	ing := map[string]int{}
	for _, r := range ds.Runs {
		ing[r.Outcome.V]++
		if r.Outcome.V == "success" && (!r.FinalSuccess.V || r.ResultValue.V != 0.8125) {
			t.Errorf("ingested success run %+v", r)
		}
	}
	if len(ds.Runs) != 4 || ing["success"] != 2 || ing["no_patch"] != 2 {
		t.Errorf("ingested %d runs, outcomes %v", len(ds.Runs), ing)
	}
	// Re-running skips everything.
	_, errOut, err = run(t, args...)
	if err != nil || !strings.Contains(errOut, "(0 now, 4 done before)") {
		t.Fatalf("rerun: %v\n%s", err, errOut)
	}
	// --worktree checkout: every applied patch gets a full checkout.
	args[6] = filepath.Join(t.TempDir(), "rd2")
	out, errOut, err = run(t, append(args, "--worktree", "checkout")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	res = nil
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, r := range res {
		if r.Outcome == execute.OutcomeSuccess && r.Worktree != execute.WorktreeCheckout {
			t.Errorf("--worktree checkout: %s made a %q work tree", r.RunID, r.Worktree)
		}
	}
}

func TestExecuteRunUsage(t *testing.T) {
	specPath, patches := toy(t)
	base := []string{"run", "--task", specPath, "--patches", patches, "--out", t.TempDir()}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--gpus", "0,x"}, "--gpus"},
		{[]string{"--backend", "lsf"}, "want local, docker, podman or slurm"},
		{[]string{"--jobs", "0"}, "--jobs"},
		{[]string{"--worktree", "overlay"}, "want auto or checkout"},
	} {
		_, _, err := run(t, append(base, tc.extra...)...)
		var ue *cmdutil.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v", tc.extra, err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte(spec+"gpu_type: a100\n"), 0o644)
	_, _, err := run(t, "run", "--task", bad, "--patches", patches, "--out", t.TempDir())
	var be *cmdutil.BadInputError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "unknown field gpu_type") {
		t.Errorf("bad spec: err = %v", err)
	}
}

// TestExecuteGoldStatusMeta: `execute gold` calibrates a range the spec
// leaves open and writes it next to the spec; `execute run` then judges
// against it, labels patches from flags and sidecars; `execute status`
// counts the outcomes.
func TestExecuteGoldStatusMeta(t *testing.T) {
	specPath, patches := toy(t)
	calSpec := strings.Replace(spec, "run: bash experiment.sh", `run: 'echo "ACC: 0.8$RDEVAL_SEED"'`, 1)
	calSpec = strings.Replace(calSpec, "exact: {accuracy: 0.8125}", "range: {accuracy: {}}", 1)
	os.WriteFile(specPath, []byte(calSpec), 0o644)
	os.WriteFile(filepath.Join(patches, "good.diff.meta.json"), []byte(`{"agent": "aider o4", "hint": "hints"}`), 0o644)
	sb := []string{}
	if _, err := execute.DetectSandbox(false); err != nil {
		sb = append(sb, "--unsafe-no-sandbox")
	}
	runDir := filepath.Join(t.TempDir(), "rd")
	args := append([]string{"run", "--task", specPath, "--patches", patches, "--out", runDir, "--model", "o4-mini", "--format", "json"}, sb...)
	if _, _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), "run rdeval execute gold first") {
		t.Fatalf("uncalibrated: %v", err)
	}
	gold := filepath.Join(patches, "good.diff")
	out, errOut, err := run(t, append([]string{"gold", "--task", specPath, "--gold", gold, "--seeds", "3", "--out", filepath.Join(t.TempDir(), "gold"), "--format", "json"}, sb...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var ranges []map[string]any
	if err := json.Unmarshal([]byte(out), &ranges); err != nil || len(ranges) != 1 {
		t.Fatalf("%v %s", err, out)
	}
	// R: mean(c(.81, .82, .83)) = 0.82, sd = 0.01.
	if r := ranges[0]; r["metric"] != "accuracy" || math.Abs(r["mean"].(float64)-0.82) > 1e-12 || math.Abs(r["sd"].(float64)-0.01) > 1e-12 || r["n"].(float64) != 3 {
		t.Errorf("%v", r)
	}
	g, err := execute.ReadGold(filepath.Join(filepath.Dir(specPath), "toy.gold.yaml"))
	if err != nil || g.TaskID != "toy" || len(g.Seeds) != 3 || len(g.GoldPatchSHA256) != 64 {
		t.Fatalf("%+v %v", g, err)
	}
	if b, _ := os.ReadFile(specPath); string(b) != calSpec {
		t.Error("the task spec was rewritten")
	}
	out, errOut, err = run(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var res []execute.Result
	json.Unmarshal([]byte(out), &res)
	for _, r := range res {
		want := execute.PatchMeta{Model: "o4-mini"}
		if filepath.Base(r.PatchFile) == "good.diff" {
			want = execute.PatchMeta{Agent: "aider o4", Model: "o4-mini", Hint: "hints"}
			if r.Outcome != "success" {
				t.Errorf("%s: %s %s", r.RunID, r.Outcome, r.Reason)
			}
		}
		if r.ExecutePatchMeta != want {
			t.Errorf("%s: meta %+v, want %+v", r.RunID, r.ExecutePatchMeta, want)
		}
	}
	out, _, err = run(t, "status", runDir, "--format", "json", "--all")
	var st execute.StatusReport
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || st.Counts["success"] != 2 || st.Counts["no_patch"] != 2 || len(st.Runs) != 4 || st.DriverRunning {
		t.Errorf("status: %v %s", err, out)
	}
	out, errOut, err = run(t, "status", runDir)
	if err != nil || !strings.Contains(errOut, "no_patch 2, success 2; no driver running") || !strings.Contains(out, "no_patch") || strings.Contains(out, "success") {
		t.Errorf("status table: %v\n%s\n%s", err, out, errOut)
	}
	// The summary line quotes the manifest's task id: escaped on a terminal
	// (iostreams.Infof), and dropped under --quiet.
	mpath := filepath.Join(runDir, "manifest.json")
	m, _ := os.ReadFile(mpath)
	if hostile := strings.Replace(string(m), `"task_id": "toy"`, `"task_id": "toy\u001b[2J"`, 1); hostile == string(m) {
		t.Errorf("manifest has no task_id toy:\n%s", m)
	} else {
		os.WriteFile(mpath, []byte(hostile), 0o644)
	}
	for _, quiet := range []bool{false, true} {
		io, _, errOut := iostreams.TestErrTerminal()
		io.Quiet = quiet
		if err := status(&StatusOptions{IO: io, RunDir: runDir}); err != nil {
			t.Fatal(err)
		}
		want := `task toy\x1b[2J: 4 runs: no_patch 2, success 2; no driver running` + "\n"
		if quiet {
			want = ""
		}
		if got := errOut.String(); got != want {
			t.Errorf("status on a terminal, quiet %v: stderr %q, want %q", quiet, got, want)
		}
	}
	if _, _, err := run(t, "status", t.TempDir()); err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		t.Errorf("status of an empty folder: %v", err)
	}
	bad := append([]string{}, args...)
	if _, _, err := run(t, append(bad, "--hint", "lots")...); err == nil || !strings.Contains(err.Error(), "want one of no_hints") {
		t.Errorf("--hint lots: %v", err)
	}
}

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		done, total, jobs int
		el                time.Duration
		want              string
	}{
		{1, 10, 2, 3 * time.Second, "[1/10 done, 2 running, 7 queued, ETA 27s]"},
		{9, 10, 4, 90 * time.Second, "[9/10 done, 1 running, 0 queued, ETA 10s]"},
		{10, 10, 2, time.Minute, "[10/10 done, 0 running, 0 queued]"},
	} {
		if got := progress(tc.done, tc.total, tc.jobs, tc.el); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

package executecmd

import (
	"encoding/json"
	"errors"
	"github.com/rdeval/rdeval/ingest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/execute"
)

const spec = `id: toy
repo: ./repo
base_commit: main
run: bash experiment.sh
timeout: 20s
gpus: 0
seeds: [1, 2]
metrics:
  accuracy: {stdout_regex: 'ACC: ([0-9.]+)'}
success:
  exact: {accuracy: 0.8125}
`

const goodPatch = `diff --git a/acc.txt b/acc.txt
--- a/acc.txt
+++ b/acc.txt
@@ -1 +1 @@
-0.5
+0.8125
`

func toy(t *testing.T) (specPath, patches string) {
	t.Helper()
	dir := t.TempDir()
	repoDir := filepath.Join(dir, "repo")
	repo, err := git.PlainInitWithOptions(repoDir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"acc.txt": "0.5\n", "experiment.sh": `echo "seed $RDEVAL_SEED"; echo "ACC: $(cat acc.txt)"` + "\n"} {
		if err := os.WriteFile(filepath.Join(repoDir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wt, _ := repo.Worktree()
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "a", Email: "a@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("toy", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	specPath = filepath.Join(dir, "toy.yaml")
	patches = filepath.Join(dir, "patches")
	os.Mkdir(patches, 0o755)
	for name, data := range map[string]string{"good.diff": goodPatch, "empty.diff": ""} {
		if err := os.WriteFile(filepath.Join(patches, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return specPath, patches
}

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
		t.Logf("no sandbox here (%v): running with --no-sandbox", err)
		args = append(args, "--no-sandbox")
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
}

func TestExecuteRunUsage(t *testing.T) {
	specPath, patches := toy(t)
	base := []string{"run", "--task", specPath, "--patches", patches, "--out", t.TempDir()}
	for _, tc := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--gpus", "0,x"}, "--gpus"},
		{[]string{"--backend", "slurm"}, "only local"},
		{[]string{"--jobs", "0"}, "--jobs"},
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

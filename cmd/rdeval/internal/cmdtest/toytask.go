package cmdtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ToyTaskSpec is the task spec ToyExecuteTask writes: the minimal
// form, with a bash experiment that prints the accuracy in acc.txt.
const ToyTaskSpec = `id: toy
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

// ToyGoodPatch makes the toy experiment succeed (accuracy 0.8125).
const ToyGoodPatch = `diff --git a/acc.txt b/acc.txt
--- a/acc.txt
+++ b/acc.txt
@@ -1 +1 @@
-0.5
+0.8125
`

// ToyExecuteTask writes a toy execute task into a temporary folder: a git
// repository (acc.txt, experiment.sh; one commit on main), toy.yaml
// (ToyTaskSpec) and patches/ with good.diff (ToyGoodPatch) and an empty
// empty.diff. It returns the spec's path and the patches folder.
func ToyExecuteTask(t testing.TB) (specPath, patches string) {
	t.Helper()
	files := map[string]string{"acc.txt": "0.5\n", "experiment.sh": `echo "seed $RDEVAL_SEED"; echo "ACC: $(cat acc.txt)"` + "\n"}
	return TaskRepo(t, files, ToyTaskSpec, map[string]string{"patches/good.diff": ToyGoodPatch, "patches/empty.diff": ""})
}

// TaskRepo writes an execute task into a temporary folder: repo/ a git
// repository of files (one commit on main), toy.yaml holding spec, and each
// patch at its path relative to the folder (e.g. "agentA/p.diff"). It
// returns the spec's path and the path of the folder "patches" (which may
// not exist when the patches live elsewhere).
func TaskRepo(t testing.TB, files map[string]string, spec string, patches map[string]string) (specPath, patchesDir string) {
	t.Helper()
	dir := t.TempDir()
	repoDir := filepath.Join(dir, "repo")
	repo, err := git.PlainInitWithOptions(repoDir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
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
	for name, data := range patches {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	specPath = filepath.Join(dir, "toy.yaml")
	if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	return specPath, filepath.Join(dir, "patches")
}

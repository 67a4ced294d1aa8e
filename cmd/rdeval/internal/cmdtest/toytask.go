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
	if err := os.Mkdir(patches, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"good.diff": ToyGoodPatch, "empty.diff": ""} {
		if err := os.WriteFile(filepath.Join(patches, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(specPath, []byte(ToyTaskSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	return specPath, patches
}

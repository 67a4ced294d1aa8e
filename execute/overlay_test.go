package execute

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdeval/rdeval/ingest"
)

// needOverlay skips the test where overlay work trees do not work (no
// bwrap, no overlayfs, or a kernel refusing the mount).
func needOverlay(t *testing.T) {
	t.Helper()
	if os.Getenv(WorktreeEnv) == WorktreeCheckout {
		t.Skip(WorktreeEnv + "=checkout turns overlay work trees off")
	}
	dir, err := absDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if testSandbox(t) != SandboxBwrap {
		t.Skip("no bwrap sandbox here: overlay work trees need it")
	}
	if _, err := overlayProbe(dir); err != nil {
		t.Skipf("overlay work trees do not work here: %v", err)
	}
}

// treeHash hashes every path, mode, link target and content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00" + fi.Mode().String() + "\x00"))
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			h.Write([]byte(l))
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkBase checks that RUNDIR/.base holds exactly one tree, no partial
// checkout, and that it is byte-identical to a fresh checkout of the
// task's repository.
func checkBase(t *testing.T, specPath, out string) string {
	t.Helper()
	s, err := LoadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(out, ".base"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("RUNDIR/.base: %v %v, want one tree", ents, err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	commit, err := Checkout(s.Repo, s.BaseCommit, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if ents[0].Name() != commit {
		t.Fatalf("RUNDIR/.base/%s, want %s", ents[0].Name(), commit)
	}
	base := filepath.Join(out, ".base", commit)
	if treeHash(t, base) != treeHash(t, fresh) {
		t.Errorf("the base tree %s differs from a fresh checkout", base)
	}
	return base
}

const patchOverlayOps = `diff --git a/README.md b/README.md
deleted file mode 100644
--- a/README.md
+++ /dev/null
@@ -1 +0,0 @@
-toy
diff --git a/model.py b/toy_model.py
similarity index 100%
rename from model.py
rename to toy_model.py
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/newpkg/sub/x.py b/newpkg/sub/x.py
new file mode 100644
--- /dev/null
+++ b/newpkg/sub/x.py
@@ -0,0 +1 @@
+X = 42
`

// TestWorktreeModesOps: a deletion, a rename, a mode change and a new file
// in a new folder, seen by the run, which runs as the driver's user; the run writes a JSON metric file and
// a file a keep glob collects, renames a folder of the repository (read
// by a csv_file metric and a keep glob under its new name), and locks a folder of its own (chmod 000),
// which the driver must still remove. Both work tree modes must give the same
// results; overlay mode must leave the base tree as checked out.
func TestWorktreeModesOps(t *testing.T) {
	t.Parallel()
	needOverlay(t)
	spec := toyTask(t, `id: ops
repo: repo
base_commit: main
setup: test ! -e README.md && test ! -e model.py
env: {SANDBOX_UID: "`+strconv.Itoa(sandboxUID)+`"}
run: |
  test "$(id -u)" = "$SANDBOX_UID" || exit 5
  test ! -e README.md && test ! -e model.py && test -f toy_model.py && test -x run.sh &&
  test "$(cat newpkg/sub/x.py)" = "X = 42" && test -f experiment.py || exit 3
  mkdir -p locked/in && touch locked/in/f && chmod 000 locked/in locked
  mv data moved && test ! -e data || exit 6
  mkdir -p out && printf '{"v": [1, 7]}' > out/m.json && echo note > out/note.txt && echo RESULT: 0
timeout: 20s
gpus: 0
seeds: [1]
keep: ["out/*.json", "*.md", "newpkg/*/*.py", "moved/*.csv", "data/*"]
metrics:
  result: {stdout_regex: 'RESULT: ([0-9]+)'}
  v: {json_file: out/m.json, path: v.-1}
  y: {csv_file: moved/train.csv, row: -1, column: y}
success:
  exact: {result: 0, v: 7, y: 2}
`)
	dir := writePatches(t, map[string]string{"ops.diff": patchOverlayOps, "offset.diff": patchOffset})
	var got [2]*Result
	for i, mode := range []string{"", WorktreeCheckout} {
		out := filepath.Join(t.TempDir(), "rd")
		_, res := runBatch(t, spec, []string{dir}, out, func(o *Options) { o.Worktree = mode })
		r := res["ops.diff"]
		wantMode := WorktreeOverlay
		if mode != "" {
			wantMode = WorktreeCheckout
		}
		if r.Outcome != OutcomeSuccess || r.Worktree != wantMode || r.ApplyMethod != ApplyGo || r.Metrics["v"] != 7 {
			t.Errorf("%s: %s (%s) worktree %s apply %s metrics %v", wantMode, r.Outcome, r.Reason, r.Worktree, r.ApplyMethod, r.Metrics)
		}
		if want := []string{"moved/train.csv", "newpkg/sub/x.py", "out/m.json"}; !reflect.DeepEqual(r.Kept, want) {
			t.Errorf("%s: kept %v, want %v", wantMode, r.Kept, want)
		}
		if b, err := os.ReadFile(filepath.Join(out, "runs", r.RunID, "keep", "out", "m.json")); err != nil || string(b) != `{"v": [1, 7]}` {
			t.Errorf("%s: kept file: %q %v", wantMode, b, err)
		}
		// A patch go-gitdiff cannot apply falls back to a checkout and
		// the CLI cascade in both modes.
		if o := res["offset.diff"]; o.ApplyMethod == ApplyGo || o.ApplyMethod == "" || o.Worktree != WorktreeCheckout {
			t.Errorf("%s: offset patch: %s via %q in %s", wantMode, o.Outcome, o.ApplyMethod, o.Worktree)
		}
		for _, n := range []string{"work", "upper", "overlay-work"} {
			if _, err := os.Lstat(filepath.Join(out, "runs", r.RunID, n)); err == nil {
				t.Errorf("%s: %s left behind", wantMode, n)
			}
		}
		var m Manifest
		if b, err := os.ReadFile(filepath.Join(out, "manifest.json")); err != nil || json.Unmarshal(b, &m) != nil || m.Worktree != wantMode {
			t.Errorf("%s: manifest worktree %q (%s) %v", wantMode, m.Worktree, m.WorktreeReason, err)
		}
		// ingest reads the run folder's results only, not the base
		// tree's or the kept folders' files (the repository has a CSV).
		if ds, err := ingest.Load([]string{out}, ingest.Options{}); err != nil {
			t.Errorf("%s: ingest of the run folder: %v", wantMode, err)
		} else if ds.Err() != nil || len(ds.Runs) != 2 {
			t.Errorf("%s: ingest of the run folder: %v, %d runs", wantMode, ds.Err(), len(ds.Runs))
		}
		if mode == "" {
			checkBase(t, spec, out)
		} else if _, err := os.Stat(filepath.Join(out, ".base")); err == nil {
			t.Errorf("checkout mode made a base tree")
		}
		got[i] = r
	}
	if got[0].Outcome != got[1].Outcome || !reflect.DeepEqual(got[0].Metrics, got[1].Metrics) || !reflect.DeepEqual(got[0].Kept, got[1].Kept) {
		t.Errorf("modes disagree: %+v vs %+v", got[0], got[1])
	}
}

// TestOverlayHostileRunsLeaveBase: runs that overwrite, chmod and delete
// everything they can (rm -rf of the whole tree) change only their own
// upper folders: every run still finds the pristine patched tree, and the
// base tree stays byte-identical to a fresh checkout.
func TestOverlayHostileRunsLeaveBase(t *testing.T) {
	t.Parallel()
	needOverlay(t)
	spec := bashTask(t, `grep -q 0.8125 model.py && test "$(cat README.md)" = toy || { echo RESULT: 9; exit 0; }
echo x > experiment.py; echo y >> model.py; chmod 000 run.sh; touch new; mkdir -p d/e
rm -rf -- * .[!.]* 2>/dev/null; test -z "$(ls -A)" || exit 4
mkdir README.md; echo RESULT: 0`, "")
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	out := filepath.Join(t.TempDir(), "rd")
	s.Seeds = []int64{1, 2, 3, 4}
	sum, err := Run(t.Context(), Options{Spec: s, Patches: []string{dir}, Out: out, Sandbox: SandboxBwrap, Jobs: 2, KeepWork: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		if r.Outcome != OutcomeSuccess || r.Worktree != WorktreeOverlay {
			t.Errorf("%s: %s (%s) in %s", r.RunID, r.Outcome, r.Reason, r.Worktree)
		}
		// KeepWork keeps the upper folder: the run's changes only.
		up := filepath.Join(out, "runs", r.RunID, "upper")
		fi, err := os.Lstat(filepath.Join(up, "experiment.py"))
		if err != nil || !isWhiteout(fi) {
			t.Errorf("%s: upper/experiment.py is not a whiteout (%v)", r.RunID, err)
		}
		if _, err := os.Lstat(filepath.Join(out, "runs", r.RunID, "overlay-work")); err == nil {
			t.Errorf("%s: overlay-work kept", r.RunID)
		}
	}
	checkBase(t, spec, out)
}

// symlinkTask is a task repository with a folder link lnk -> sub.
func symlinkTask(t *testing.T, run string) string {
	t.Helper()
	dir := t.TempDir()
	repoDir := filepath.Join(dir, "repo")
	os.MkdirAll(filepath.Join(repoDir, "sub"), 0o755)
	os.WriteFile(filepath.Join(repoDir, "sub", "f.txt"), []byte("one\n"), 0o644)
	if err := os.Symlink("sub", filepath.Join(repoDir, "lnk")); err != nil {
		t.Fatal(err)
	}
	commitAll(t, repoDir, "links")
	path := filepath.Join(dir, "t.yaml")
	os.WriteFile(path, []byte("id: ln\nrepo: repo\nbase_commit: main\nrun: "+run+"\ntimeout: 20s\ngpus: 0\nseeds: [1]\nmetrics:\n  result: {stdout_regex: 'RESULT: ([0-9]+)'}\nsuccess:\n  exact: {result: 0}\n"), 0o644)
	return path
}

// TestOverlaySymlinks: a patch through a folder link of the repository is
// declined by the overlay step and applied on a full checkout; a run that
// writes through the link writes its upper folder, never the base tree.
func TestOverlaySymlinks(t *testing.T) {
	t.Parallel()
	needOverlay(t)
	spec := symlinkTask(t, `"grep -q two sub/f.txt && echo evil > lnk/f.txt && echo new > lnk/new && grep -q evil sub/f.txt && echo RESULT: 0"`)
	viaSub := "diff --git a/sub/f.txt b/sub/f.txt\n--- a/sub/f.txt\n+++ b/sub/f.txt\n@@ -1 +1 @@\n-one\n+two\n"
	viaLink := strings.ReplaceAll(viaSub, "sub/", "lnk/")
	dir := writePatches(t, map[string]string{"sub.diff": viaSub, "lnk.diff": viaLink})
	out := filepath.Join(t.TempDir(), "rd")
	_, res := runBatch(t, spec, []string{dir}, out, func(o *Options) { o.KeepWork = true })
	if r := res["sub.diff"]; r.Outcome != OutcomeSuccess || r.Worktree != WorktreeOverlay {
		t.Errorf("sub.diff: %s (%s) in %s", r.Outcome, r.Reason, r.Worktree)
	} else {
		// The run's writes through the link are in its upper folder.
		up := filepath.Join(out, "runs", r.RunID, "upper", "sub")
		if b, err := os.ReadFile(filepath.Join(up, "f.txt")); err != nil || string(b) != "evil\n" {
			t.Errorf("upper/sub/f.txt: %q %v", b, err)
		}
		if _, err := os.Stat(filepath.Join(up, "new")); err != nil {
			t.Errorf("upper/sub/new: %v", err)
		}
	}
	if r := res["lnk.diff"]; r.Worktree != WorktreeCheckout || r.ApplyMethod == "" {
		t.Errorf("lnk.diff: %s (%s) in %s via %q; want a full checkout", r.Outcome, r.Reason, r.Worktree, r.ApplyMethod)
	}
	base := checkBase(t, spec, out)
	if b, _ := os.ReadFile(filepath.Join(base, "sub", "f.txt")); string(b) != "one\n" {
		t.Errorf("base sub/f.txt = %q", b)
	}
}

// TestApplyOverlayWritesOnlyUpper: the overlay apply step writes new and
// changed files and whiteouts into upper only, declines paths through a
// base link and patches of link files, and leaves upper empty when it
// fails.
func TestApplyOverlayWritesOnlyUpper(t *testing.T) {
	tmp := t.TempDir()
	base, upper := filepath.Join(tmp, "base"), filepath.Join(tmp, "upper")
	outside := filepath.Join(tmp, "outside")
	for _, d := range []string{filepath.Join(base, "sub"), upper, outside} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(base, "sub", "f.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(base, "g.txt"), []byte("one\n"), 0o644)
	os.Symlink("sub", filepath.Join(base, "lnk"))
	os.Symlink("g.txt", filepath.Join(base, "flink"))
	os.Symlink(outside, filepath.Join(base, "abs")) // not a tree Checkout writes; the step must still not follow it
	before := treeHash(t, base)
	apply := func(patch string) error {
		p, err := ParsePatch(bytes.NewReader([]byte(patch)))
		if err != nil {
			t.Fatal(err)
		}
		return applyOverlay(base, upper, []byte(patch), p)
	}
	empty := func() bool { e, _ := os.ReadDir(upper); return len(e) == 0 }
	mod := func(p string) string {
		return "diff --git a/" + p + " b/" + p + "\n--- a/" + p + "\n+++ b/" + p + "\n@@ -1 +1 @@\n-one\n+two\n"
	}
	add := func(p string) string {
		return "diff --git a/" + p + " b/" + p + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + p + "\n@@ -0,0 +1 @@\n+x\n"
	}
	for _, bad := range []string{mod("lnk/f.txt"), add("lnk/new.txt"), mod("flink"), add("abs/evil.txt")} {
		if err := apply(bad); err == nil || !empty() {
			t.Errorf("applied %q (upper empty: %v)", bad, empty())
		}
	}
	if e, _ := os.ReadDir(outside); len(e) != 0 {
		t.Fatalf("wrote outside: %v", e)
	}
	del := "diff --git a/g.txt b/g.txt\ndeleted file mode 100644\n--- a/g.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n"
	if err := apply(mod("sub/f.txt") + del + add("n/m/new.txt")); err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(upper, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(upper, p)
		fi, _ := d.Info()
		kind := "file"
		if d.IsDir() {
			kind = "dir"
		} else if isWhiteout(fi) {
			kind = "whiteout"
		}
		got = append(got, rel+":"+kind)
		return nil
	})
	sort.Strings(got)
	want := []string{".:dir", "g.txt:whiteout", "n/m/new.txt:file", "n/m:dir", "n:dir", "sub/f.txt:file", "sub:dir"}
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("upper holds %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(upper, "sub", "f.txt")); string(b) != "two\n" {
		t.Errorf("upper sub/f.txt = %q", b)
	}
	if treeHash(t, base) != before {
		t.Error("applyOverlay changed the base tree")
	}
}

// TestOverlayConcurrentRunsShareBase: eight runs, four at a time, share
// one base tree made once.
func TestOverlayConcurrentRunsShareBase(t *testing.T) {
	t.Parallel()
	needOverlay(t)
	needPython(t)
	spec := toyTask(t, minimalSpec)
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	s.Seeds = []int64{1, 2, 3, 4, 5, 6, 7, 8}
	out := filepath.Join(t.TempDir(), "rd")
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	sum, err := Run(t.Context(), Options{Spec: s, Patches: []string{dir}, Out: out, Sandbox: SandboxBwrap, Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sum.Results {
		if r.Outcome != OutcomeSuccess || r.Worktree != WorktreeOverlay {
			t.Errorf("%s: %s (%s) in %s", r.RunID, r.Outcome, r.Reason, r.Worktree)
		}
	}
	checkBase(t, spec, out)
}

// TestOverlayInterruptedBaseCheckout: a partial base checkout a killed
// driver left (a .tmp- folder) is removed and redone; a complete one is
// reused by the next invocation.
func TestOverlayInterruptedBaseCheckout(t *testing.T) {
	t.Parallel()
	needOverlay(t)
	needPython(t)
	spec := toyTask(t, minimalSpec)
	out := filepath.Join(t.TempDir(), "rd")
	partial := filepath.Join(out, ".base", ".tmp-0123456789ab-42")
	if err := os.MkdirAll(filepath.Join(partial, "half"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	_, res := runBatch(t, spec, []string{dir}, out, nil)
	if r := res["p.diff"]; r.Outcome != OutcomeSuccess || r.Worktree != WorktreeOverlay {
		t.Fatalf("%s (%s) in %s", r.Outcome, r.Reason, r.Worktree)
	}
	if _, err := os.Stat(partial); err == nil {
		t.Error("the partial base checkout was left")
	}
	base := checkBase(t, spec, out)
	fi1, err := os.Stat(base)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := writePatches(t, map[string]string{"w.diff": patchWrong})
	_, res = runBatch(t, spec, []string{dir2}, out, nil)
	if r := res["w.diff"]; r.Outcome != OutcomeWrongResult || r.Worktree != WorktreeOverlay {
		t.Fatalf("%s (%s) in %s", r.Outcome, r.Reason, r.Worktree)
	}
	if fi2, err := os.Stat(base); err != nil || !os.SameFile(fi1, fi2) {
		t.Errorf("the base tree was made again (%v)", err)
	}
}

// TestWorktreeEnvForcesCheckout: RDEVAL_WORKTREE=checkout turns overlay
// work trees off (not parallel: it sets the environment).
func TestWorktreeEnvForcesCheckout(t *testing.T) {
	needPython(t)
	t.Setenv(WorktreeEnv, WorktreeCheckout)
	spec := toyTask(t, minimalSpec)
	out := filepath.Join(t.TempDir(), "rd")
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	_, res := runBatch(t, spec, []string{dir}, out, nil)
	if r := res["p.diff"]; r.Outcome != OutcomeSuccess || r.Worktree != WorktreeCheckout {
		t.Fatalf("%s (%s) in %s", r.Outcome, r.Reason, r.Worktree)
	}
	var m Manifest
	b, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	if json.Unmarshal(b, &m) != nil || m.Worktree != WorktreeCheckout || !strings.Contains(m.WorktreeReason, "forced") {
		t.Errorf("manifest: %q %q", m.Worktree, m.WorktreeReason)
	}
}

// TestRunSymlinkOutputsNotFollowed: links a run makes to host files are
// neither read as metric files nor copied by keep globs, in both work tree
// modes.
func TestRunSymlinkOutputsNotFollowed(t *testing.T) {
	t.Parallel()
	spec := bashTask(t, "mkdir -p out && ln -s /etc/passwd out/abs.json && ln -s ../../../../../../../../etc/passwd out/rel.json && ln -s ../.. out/up && echo RESULT: 0",
		"keep: [\"out/*\", \"out/up/*\"]\n")
	spec2 := strings.Replace(spec, ".yaml", "2.yaml", 1)
	b, _ := os.ReadFile(spec)
	b = []byte(strings.Replace(string(b), "metrics:\n", "metrics:\n  a: {json_file: out/abs.json, path: x}\n  r: {json_file: out/rel.json, path: x}\n", 1))
	if err := os.WriteFile(spec2, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	for _, mode := range []string{"", WorktreeCheckout} {
		_, res := runBatch(t, spec2, []string{dir}, filepath.Join(t.TempDir(), "rd"), func(o *Options) { o.Worktree = mode })
		r := res["p.diff"]
		if r.Outcome != OutcomeExecError || r.MetricErrors["a"] == "" || r.MetricErrors["r"] == "" || len(r.Kept) != 0 {
			t.Errorf("worktree %s: %s (%s), metrics %v, errors %v, kept %v", r.Worktree, r.Outcome, r.Reason, r.Metrics, r.MetricErrors, r.Kept)
		}
	}
}

// TestWorktreeModeValues: an unknown Options.Worktree or RDEVAL_WORKTREE is
// an error, not silently auto (not parallel: it sets the environment).
func TestWorktreeModeValues(t *testing.T) {
	spec := toyTask(t, minimalSpec)
	s, err := LoadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := writePatches(t, map[string]string{"p.diff": patchCorrect})
	_, err = Run(t.Context(), Options{Spec: s, Patches: []string{dir}, Out: t.TempDir(), Sandbox: SandboxNone, Worktree: "overlay"})
	if err == nil || !strings.Contains(err.Error(), "unknown worktree mode") {
		t.Errorf("Worktree overlay: err %v", err)
	}
	t.Setenv(WorktreeEnv, "chekout")
	_, err = Run(t.Context(), Options{Spec: s, Patches: []string{dir}, Out: t.TempDir(), Sandbox: SandboxNone})
	if err == nil || !strings.Contains(err.Error(), WorktreeEnv) {
		t.Errorf("%s=chekout: err %v", WorktreeEnv, err)
	}
}

// TestOverlayMountVariants: each mount variant that works here (a plain
// mount namespace needs root; a user namespace works for anyone on Linux
// 5.11+) runs a sandboxed command whose writes land in upper, as the
// driver's uid.
func TestOverlayMountVariants(t *testing.T) {
	needOverlay(t)
	worked := 0
	for _, userNS := range []bool{false, true} {
		dir, err := absDir(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := probeVariant(dir, userNS); err != nil {
			t.Logf("userNS=%v does not work here: %v", userNS, err)
			continue
		}
		worked++
		o := &overlayMount{Lower: filepath.Join(dir, "lower"), Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "ovl"), Dest: filepath.Join(dir, "work"), UserNS: userNS}
		for _, d := range []string{o.Lower, o.Upper, o.Work, o.Dest} {
			os.Mkdir(d, 0o755)
		}
		os.WriteFile(filepath.Join(o.Lower, "base.txt"), []byte("base\n"), 0o644)
		if dropsPrivileges() {
			chownTree(o.Lower)
		}
		if err := prepareWorkTree(o.Dest, o); err != nil {
			t.Fatal(err)
		}
		logf := filepath.Join(dir, "log")
		c := &command{Sandbox: SandboxBwrap, Script: `cat base.txt && echo hi > f && rm base.txt && id -u`, Dir: o.Dest,
			Env: []string{"PATH=" + os.Getenv("PATH")}, Stdout: logf, Stderr: logf, Deadline: time.Now().Add(20 * time.Second),
			Hide: []string{dir}, Overlay: o}
		res, err := c.run(t.Context())
		out, _ := os.ReadFile(logf)
		if err != nil || res.ExitCode != 0 || string(out) != "base\n"+strconv.Itoa(sandboxUID)+"\n" {
			t.Errorf("userNS=%v: %v exit %d, output %q", userNS, err, res.ExitCode, out)
		}
		if b, err := os.ReadFile(filepath.Join(o.Upper, "f")); err != nil || string(b) != "hi\n" {
			t.Errorf("userNS=%v: upper/f %q %v", userNS, b, err)
		}
		if fi, err := os.Lstat(filepath.Join(o.Upper, "base.txt")); err != nil || !isWhiteout(fi) {
			t.Errorf("userNS=%v: no whiteout for base.txt (%v)", userNS, err)
		}
		if b, _ := os.ReadFile(filepath.Join(o.Lower, "base.txt")); string(b) != "base\n" {
			t.Errorf("userNS=%v: lower changed", userNS)
		}
		removeOverlayDirs(dir)
	}
	if worked == 0 {
		t.Fatal("no variant worked, though the probe did")
	}
}

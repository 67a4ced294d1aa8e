package cli

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/ingest"
)

// killPoints are the points of ingest.WriteDataset's write phase where a
// kill leaves a distinct state (ingest.WritePhaseHook), for a new set of
// runs, tasks and rejected.jsonl written over an old one of runs,
// score_log and tasks, with what a kill there must leave: the old set
// whole ("old"), a mix that every reader refuses, with a message
// containing the text given ("refused"), or the new set whole ("new").
var killPoints = []struct{ point, after, refusal string }{
	{"written runs.parquet", "old", ""},
	{"written tasks.parquet", "old", ""},
	{"written rejected.jsonl", "old", ""},
	{"written manifest.json", "old", ""}, // every temporary file whole, nothing renamed
	{"remove score_log.parquet", "old", ""},
	{"rename manifest.json", "refused", "score_log.parquet: listed in out/manifest.json but missing"},
	{"rename rejected.jsonl", "refused", "runs.parquet: does not match out/manifest.json"},
	{"rename runs.parquet", "refused", "runs.parquet: does not match out/manifest.json"},
	{"rename tasks.parquet", "refused", "tasks.parquet: does not match out/manifest.json"},
	{"done", "new", ""},
}

// TestKillDuringWrite is issue 26's kill -9 test. `rdeval ingest` runs as
// its own process (this test binary again, as TestBigFields does, with
// RDEVAL_KILL_AT), writing into a folder that holds the output set of an
// earlier ingest; it stops at one point of its write phase (where
// ingest.WritePhaseHook blocks, so that the timing is exact) and gets
// SIGKILL there. Then the folder is checked: before the first step that
// puts the new set in place, the old set is there byte for byte, with no
// new file beside it but temporary ones, its checksums agree with its
// manifest and `rdeval export` reads it; between two steps, every reader
// refuses the mix with a message naming the table; after the last, the
// new set is whole. Each time the next `rdeval ingest` into the folder
// removes the temporary files and writes a whole set.
func TestKillDuringWrite(t *testing.T) {
	if at := os.Getenv("RDEVAL_KILL_AT"); at != "" {
		ingest.WritePhaseHook = func(point string) {
			if point == at {
				fmt.Fprintf(os.Stderr, "paused at %s\n", point)
				time.Sleep(time.Hour) // until killed
			}
		}
		Main(strings.Split(os.Getenv("RDEVAL_KILL_ARGS"), "\n"), iostreams.System())
		return
	}
	dir := t.TempDir()
	t.Chdir(dir)
	const n = 4000 // runs per set: a write phase of a few MB
	var old, oldScores, fresh strings.Builder
	for i := range n {
		fmt.Fprintf(&old, `{"run_id":"o%d","task_id":"t%d","agent":"old","score":0.5}`+"\n", i, i%40)
		fmt.Fprintf(&oldScores, `{"run_id":"o%d","elapsed_s":60,"score":0.25}`+"\n", i)
		fmt.Fprintf(&fresh, `{"run_id":"n%d","task_id":"t%d","agent":"new","score":0.75}`+"\n", i, i%30)
	}
	fresh.WriteString(`{"run_id":"bad","task_id":"t1","agent":"new","score":"n/a"}` + "\n")
	os.Mkdir("old", 0o755)
	os.Mkdir("new", 0o755)
	os.WriteFile(filepath.Join("old", "runs.jsonl"), []byte(old.String()), 0o644)
	os.WriteFile(filepath.Join("old", "scores.jsonl"), []byte(oldScores.String()), 0o644)
	os.WriteFile(filepath.Join("new", "runs.jsonl"), []byte(fresh.String()), 0o644)
	oldArgs := []string{"ingest", "old", "-o", "out", "--benchmark", "demo"}
	newArgs := []string{"ingest", "new", "-o", "out", "--benchmark", "demo", "--skip-bad"}
	run := func(args ...string) string {
		t.Helper()
		io, _, stderr := iostreams.Test()
		if code := Main(args, io); code != 0 {
			t.Fatalf("rdeval %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return stderr.String()
	}
	run(oldArgs...)
	oldSet := folderBytes(t, "out")
	if len(oldSet) != 4 || oldSet["score_log.parquet"] == nil {
		t.Fatalf("old set: %v", sortedNames(oldSet))
	}
	start := time.Now()
	for _, kp := range killPoints {
		// The folder holds the old set (written again after each point:
		// the same bytes).
		if got := folderBytes(t, "out"); !sameFiles(got, oldSet) {
			t.Fatalf("%s: the old set was not restored: %v", kp.point, sortedNames(got))
		}
		killAt(t, dir, kp.point, newArgs)
		got := folderBytes(t, "out")
		temps := 0
		for name := range got {
			if strings.Contains(name, ".tmp-") {
				temps++
				delete(got, name)
			}
		}
		switch kp.after {
		case "old":
			if !sameFiles(got, oldSet) {
				t.Errorf("%s: the old set changed: %v (had %v)", kp.point, sortedNames(got), sortedNames(oldSet))
			}
			if temps == 0 {
				t.Errorf("%s: no temporary file left by the killed write", kp.point)
			}
			checkManifestSums(t, kp.point, got)
			io, _, stderr := iostreams.Test()
			if code := Main([]string{"export", "out", "--to", "csv", "-o", "exported"}, io); code != 0 {
				t.Errorf("%s: export of the old set: exit %d\n%s", kp.point, code, stderr)
			} else if b, _ := os.ReadFile(filepath.Join("exported", "runs.csv")); strings.Count(string(b), ",old,") != n {
				t.Errorf("%s: export holds %d old runs, want %d", kp.point, strings.Count(string(b), ",old,"), n)
			}
			os.RemoveAll("exported")
		case "refused":
			io, _, stderr := iostreams.Test()
			code := Main([]string{"export", "out", "--to", "csv", "-o", "exported"}, io)
			if code != 2 || !strings.Contains(stderr.String(), kp.refusal) {
				t.Errorf("%s: export of the mixed folder: exit %d, want 2 and %q:\n%s", kp.point, code, kp.refusal, stderr)
			}
			if _, err := os.Stat("exported"); err == nil {
				t.Errorf("%s: export wrote output from a mixed folder", kp.point)
				os.RemoveAll("exported")
			}
		case "new":
			if temps != 0 || got["rejected.jsonl"] == nil || got["score_log.parquet"] != nil {
				t.Errorf("%s: not the whole new set: %v (%d temporary)", kp.point, sortedNames(got), temps)
			}
			checkManifestSums(t, kp.point, got)
		}
		// The next ingest removes what the killed one left and writes a
		// whole set.
		run(newArgs...)
		healed := folderBytes(t, "out")
		for name := range healed {
			if strings.Contains(name, ".tmp-") {
				t.Errorf("%s: the next ingest left %s", kp.point, name)
			}
		}
		checkManifestSums(t, kp.point+", then ingest", healed)
		if s := run("export", "out", "--to", "csv", "-o", "exported"); !strings.Contains(s, "runs.csv") {
			t.Errorf("%s, then ingest: export: %s", kp.point, s)
		}
		os.RemoveAll("exported")
		run(oldArgs...)
	}
	t.Logf("%d kill points in %.1f s", len(killPoints), time.Since(start).Seconds())
}

// killAt runs `rdeval ARGS` in dir as a child process that blocks at the
// write phase's point, and kills it there with SIGKILL.
func killAt(t *testing.T, dir, point string, args []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringWrite$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RDEVAL_KILL_AT="+point, "RDEVAL_KILL_ARGS="+strings.Join(args, "\n"))
	stderr, err := cmd.StdoutPipe() // the test binary's output, the child's stderr with it
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	paused := make(chan bool, 1)
	var lines []string
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if sc.Text() == "paused at "+point {
				paused <- true
				return
			}
		}
		paused <- false
	}()
	select {
	case ok := <-paused:
		if !ok {
			cmd.Wait()
			t.Fatalf("%s: the child never paused there:\n%s", point, strings.Join(lines, "\n"))
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%s: the child did not pause within 60 s", point)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	if st := cmd.ProcessState; st.Exited() || st.String() != "signal: killed" {
		t.Fatalf("%s: child ended with %v, want killed", point, st)
	}
}

// folderBytes returns every file in dir by name, with its bytes.
func folderBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || string(v) != string(w) {
			return false
		}
	}
	return true
}

func sortedNames(m map[string][]byte) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// checkManifestSums checks, apart from Load, that every table the
// manifest lists is in files with the SHA-256 the manifest gives.
func checkManifestSums(t *testing.T, what string, files map[string][]byte) {
	t.Helper()
	var m ingest.Manifest
	if err := json.Unmarshal(files["manifest.json"], &m); err != nil {
		t.Errorf("%s: manifest: %v", what, err)
		return
	}
	for _, o := range m.Outputs {
		sum := sha256.Sum256(files[o.Path])
		if files[o.Path] == nil || hex.EncodeToString(sum[:]) != o.SHA256 {
			t.Errorf("%s: %s does not match the manifest", what, o.Path)
		}
	}
}

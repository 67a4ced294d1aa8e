package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

// hostileLine is a good METR runs record (testdata/bad/gen_hostile.py's METR).
const hostileLine = `{"run_id":"%s","task_id":"ai_rd_fix_embedding/main","task_family":"ai_rd_fix_embedding","alias":"Agent A","model":"m-a","score":0.5,"score_binarized":0,"time_limit":1800,"started_at":1734070031112,"completed_at":1734071923976,"fatal_error_from":"usageLimits","human_minutes":556.6,"human_score":1.045,"human_source":"baseline","dollar_equivalent":null,"total_tokens":null,"equal_task_weight":0.5,"invsqrt_task_weight":0.5}` + "\n"

// runIngest runs `rdeval ARGS` in dir and returns the golden text and exit
// code; it fails the test when the command takes more than 20 s (a FIFO
// read blocks forever).
func runIngest(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	t.Chdir(dir)
	io, _, stderr := iostreams.Test()
	done := make(chan int, 1)
	go func() { done <- Main(args, io) }()
	select {
	case code := <-done:
		return fmt.Sprintf("$ rdeval %s\nexit %d\n%s", strings.Join(args, " "), code, stderr.String()), code
	case <-time.After(20 * time.Second):
		t.Fatalf("rdeval %s: still running after 20 s", strings.Join(args, " "))
		return "", 0
	}
}

// TestHostileFolder: an input folder holding a FIFO, a link out of the
// folder (to a "secret") and a link to a folder is read without blocking;
// each of those is skipped with a warning, and the secret's content
// appears nowhere.
func TestHostileFolder(t *testing.T) {
	corpus, _ := filepath.Abs(badDir)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	os.WriteFile(filepath.Join(in, "good.jsonl"), []byte(fmt.Sprintf(hostileLine, "r1")), 0o644)
	os.WriteFile(filepath.Join(in, "inner.jsonl"), []byte(fmt.Sprintf(hostileLine, "r2")), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("TOPSECRET-KEY-MATERIAL\n"), 0o600)
	if err := syscall.Mkfifo(filepath.Join(in, "pipe.jsonl"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for link, target := range map[string]string{
		"secret.jsonl": "../secret.txt", // out of the folder
		"abs.jsonl":    filepath.Join(dir, "secret.txt"),
		"same.jsonl":   "inner.jsonl",      // inside: read (a duplicate of r2, dropped as identical)
		"sub.jsonl":    ".",                // a folder
		"dangling.csv": "nothing-here.csv", // missing
	} {
		if err := os.Symlink(target, filepath.Join(in, link)); err != nil {
			t.Fatal(err)
		}
	}
	got, code := runIngest(t, dir, "ingest", "in", "-o", "out")
	checkGolden(t, filepath.Join(corpus, "hostile_folder.golden"), got)
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	if strings.Contains(got, "TOPSECRET") {
		t.Errorf("the secret's content was printed")
	}
	man, _ := os.ReadFile(filepath.Join(dir, "out", "manifest.json"))
	if strings.Contains(string(man), "secret.txt") || strings.Contains(string(man), "TOPSECRET") {
		t.Errorf("manifest names the secret: %s", man)
	}
}

// TestSkipBadWholeFiles: with --skip-bad, inputs lost as a whole (a
// truncated .eval, a .gz whose checksum fails, a CSV whose header names a
// column twice) are in rejected.jsonl, in the manifest (inputs_rejected,
// and the input's error) and in the summary line, beside the good file's
// records; the record of the .gz before its bad checksum is not written.
func TestSkipBadWholeFiles(t *testing.T) {
	corpus, _ := filepath.Abs(badDir)
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	ents, _ := os.ReadDir(filepath.Join(corpus, "skip_bad_files"))
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(corpus, "skip_bad_files", e.Name()))
		os.WriteFile(filepath.Join(in, e.Name()), b, 0o644)
	}
	got, code := runIngest(t, dir, "ingest", "in", "-o", "out", "--skip-bad")
	checkGolden(t, filepath.Join(corpus, "skip_bad_files.golden"), got)
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	rej, _ := os.ReadFile(filepath.Join(dir, "out", "rejected.jsonl"))
	for _, f := range []string{"truncated.eval", "corrupt.jsonl.gz", "bad_header.csv"} {
		if !strings.Contains(string(rej), `"file":"in/`+f+`"`) {
			t.Errorf("rejected.jsonl has no entry for %s:\n%s", f, rej)
		}
	}
	man, _ := os.ReadFile(filepath.Join(dir, "out", "manifest.json"))
	if !strings.Contains(string(man), `"inputs_rejected": 3`) || !strings.Contains(string(man), `"rows_rejected": 0`) || strings.Count(string(man), `"error": `) != 3 {
		t.Errorf("manifest:\n%s", man)
	}
	if !strings.Contains(string(man), `"rows": 2`) || strings.Contains(string(man), `"rows": 3`) {
		t.Errorf("runs.parquet should hold good.jsonl's 2 runs only:\n%s", man)
	}
}

// TestTerminalEscapes: an agent name (and a task id, and a file name)
// holding ANSI escapes and a bidi override is escaped in what is printed
// to a terminal: the table and inspect's warnings below it on stdout, and
// the warnings, the read lines and the errors on stderr (iostreams); a
// pipe gets them as they are.
func TestTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	const evil = `\u001b[2J\u001b[31mevil\u202e` // JSON escapes
	const escaped = `\x1b[2J\x1b[31mevil\u202e`
	raw := "\x1b[2J\x1b[31mevil\u202e"
	os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(`{"run_id":"r1","task_id":"t1","agent":"`+evil+`","score":0.5}`+"\n"), 0o644)
	// A file whose name holds the escapes, with a bad record: the read
	// line and the error name it.
	os.WriteFile(filepath.Join(dir, "bad"+raw+".jsonl"), []byte(`{"run_id":"r1","task_id":"t1","agent":"a","score":0.5}`+"\n"+`{"run_id":"r2","task_id":"t1","agent":"a","score":"x"}`+"\n"), 0o644)
	t.Chdir(dir)
	for _, args := range [][]string{
		{"inspect", "in.jsonl", "--benchmark", "demo"},
		{"ingest", "bad" + raw + ".jsonl", "-o", "out", "--benchmark", "demo"},
	} {
		out, errOut := iostreams.NewTerminalBuffer(), iostreams.NewTerminalBuffer()
		Main(args, &iostreams.IO{In: strings.NewReader(""), Out: out, ErrOut: errOut})
		all := out.String() + errOut.String()
		if !strings.Contains(all, escaped) || strings.ContainsAny(all, "\x1b\u202e") {
			t.Errorf("%s: terminal output not escaped:\nstdout %q\nstderr %q", args[0], out, errOut)
		}
		if args[0] == "inspect" && strings.Count(out.String(), escaped) < 2 {
			t.Errorf("inspect: the table and the warnings should both show the escaped name:\n%q", out)
		}
		if args[0] == "ingest" && strings.Count(errOut.String(), escaped) < 2 {
			t.Errorf("ingest: the read line and the error should both show the escaped name:\n%q", errOut)
		}
		pio, pipe, pipeErr := iostreams.Test()
		Main(args, pio)
		if all := pipe.String() + pipeErr.String(); !strings.Contains(all, raw) || strings.Contains(all, escaped) {
			t.Errorf("%s: pipe output changed:\n%q", args[0], all)
		}
	}
}

// TestBigFields: a 100 MB JSON string and a 100 MB quoted CSV field are
// read whole within 3.5 bytes of peak memory (RSS) per input byte, plus
// 64 MiB for the process (docs/performance.md, "Memory"). Before issue 26
// they took 7.5 and 6.6 bytes (770 and 672 MB). Each ingest runs in a child
// process (this test binary again), whose peak RSS getrusage reports
// (ProcessState.SysUsage), so that the test's own memory does not count.
func TestBigFields(t *testing.T) {
	if args := os.Getenv("RDEVAL_BIGFIELD_ARGS"); args != "" {
		io, _, stderr := iostreams.Test()
		if code := Main(strings.Split(args, "\n"), io); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return
	}
	if testing.Short() {
		t.Skip("writes and reads 200 MB")
	}
	dir := t.TempDir()
	const size = 100 << 20
	chunk := strings.Repeat("x", 1<<20)
	write := func(name, head, tail string) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(head)
		for range size >> 20 {
			f.WriteString(chunk)
		}
		f.WriteString(tail)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, in := range []string{
		write("big.jsonl", `{"run_id":"r1","task_id":"t1","agent":"a","score":0.5,"note":"`, "\"}\n"+`{"run_id":"r2","task_id":"t1","agent":"a","score":0.25}`+"\n"),
		write("big.csv", "run_id,task_id,agent,score,note\nr1,t1,a,0.5,\"", "\"\nr2,t1,a,0.25,x\n"),
	} {
		out := filepath.Join(dir, "out-"+filepath.Base(in))
		cmd := exec.Command(os.Args[0], "-test.run=^TestBigFields$", "-test.count=1")
		cmd.Env = append(os.Environ(), "RDEVAL_BIGFIELD_ARGS="+strings.Join([]string{"ingest", in, "-o", out, "--benchmark", "demo"}, "\n"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", in, err, b)
		}
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
		limit := int64(3.5*size) + 64<<20
		t.Logf("%s: peak RSS %d MiB (%.2f bytes per input byte; limit %d MiB)", filepath.Base(in), peak>>20, float64(peak)/size, limit>>20)
		if peak > limit {
			t.Errorf("%s: peak RSS %d MiB, want at most %d MiB", filepath.Base(in), peak>>20, limit>>20)
		}
		if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

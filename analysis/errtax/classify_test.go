package errtax

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

const fixtures = "../../testdata/logs"

// TestFixtures classifies every hand-written log in testdata/logs and
// compares it with testdata/logs/expected.csv, whose labels were decided
// by reading the logs (see testdata/logs/README.md).
func TestFixtures(t *testing.T) {
	f, err := os.Open(filepath.Join(fixtures, "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "file,group,type,line" {
		t.Fatalf("expected.csv header %v", recs[0])
	}
	labelled := map[string]bool{}
	for _, rec := range recs[1:] {
		file, group, typ := rec[0], rec[1], rec[2]
		line := 0
		if rec[3] != "" {
			line, _ = strconv.Atoi(rec[3])
		}
		labelled[file] = true
		t.Run(strings.TrimSuffix(file, ".log"), func(t *testing.T) {
			got := classifyFile(t, filepath.Join(fixtures, file))
			if got.Group != group || got.Type != typ || got.Line != line {
				t.Errorf("got %s/%s line %d (%q), want %s/%s line %d", got.Group, got.Type, got.Line, got.Evidence, group, typ, line)
			}
			if line != 0 && got.File != file {
				t.Errorf("File %q, want %q", got.File, file)
			}
			if (line == 0) != (got.Evidence == "") {
				t.Errorf("evidence %q with line %d", got.Evidence, line)
			}
		})
	}
	logs, _ := filepath.Glob(filepath.Join(fixtures, "*.log"))
	if len(logs) < 20 {
		t.Errorf("only %d fixtures", len(logs))
	}
	for _, p := range logs {
		if !labelled[filepath.Base(p)] {
			t.Errorf("%s has no row in expected.csv", p)
		}
	}
}

func classifyFile(t *testing.T, path string) Label {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := DefaultRules().Classify(filepath.Base(path), f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func classify(t *testing.T, log string) Label {
	t.Helper()
	l, err := DefaultRules().Classify("x.log", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestFixtureDetails checks fields beyond group, type and line.
func TestFixtureDetails(t *testing.T) {
	oom := classifyFile(t, filepath.Join(fixtures, "cuda_oom.log"))
	if oom.Exception != "torch.cuda.OutOfMemoryError" || oom.Kind != KindTraceback {
		t.Errorf("cuda_oom: %+v", oom)
	}
	if n := utf8.RuneCountInString(oom.Evidence); n != MaxEvidenceRunes || !strings.HasPrefix(oom.Evidence, "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB.") {
		t.Errorf("cuda_oom evidence (%d runes): %q", n, oom.Evidence)
	}
	crlf := classifyFile(t, filepath.Join(fixtures, "crlf.log"))
	if crlf.Evidence != "IndexError: list index out of range" {
		t.Errorf("crlf evidence %q (a CR left?)", crlf.Evidence)
	}
	tr := classifyFile(t, filepath.Join(fixtures, "torchrun_childfailed.log"))
	if !strings.HasPrefix(tr.Evidence, "[rank0]: TypeError: full()") {
		t.Errorf("torchrun evidence %q", tr.Evidence)
	}
	pf := classifyFile(t, filepath.Join(fixtures, "patch_failed.log"))
	if pf.Evidence != "error: patch failed: src/model.py:41" || pf.Kind != KindLine {
		t.Errorf("patch_failed: %+v", pf)
	}
}

// TestCases are small logs, one per rule of the documented behaviour.
func TestCases(t *testing.T) {
	tb := func(exc string) string {
		return "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    f()\n" + exc + "\n"
	}
	for _, c := range []struct {
		name, log   string
		group, typ  string
		line        int
		description string
	}{
		{"nothing", "", GroupNone, TypeNone, 0, "empty log"},
		{"mentions", "0 errors\nerror_rate=0.1\nx.py:3: UserWarning: careful\n  warnings.warn(\nValueError count: 0\nErrors: none\n", GroupNone, TypeNone, 0, "lines that mention errors outside a traceback"},
		{"bare exception", tb("KeyboardInterrupt"), GroupPythonUnlisted, "KeyboardInterrupt", 4, "no message, not in the taxonomy"},
		{"unlisted", tb("PermissionError: [Errno 13] Permission denied: '/out'"), GroupPythonUnlisted, "PermissionError", 4, "OSError subclasses keep their name; not the bash rule"},
		{"qualified", tb("datasets.exceptions.DatasetNotFoundError: Dataset 'x' doesn't exist on the Hub"), GroupPythonLibrary, "DatasetNotFoundError", 4, "last component"},
		{"yaml scanner", tb("yaml.scanner.ScannerError: mapping values are not allowed here"), GroupPythonLibrary, "ScannerError", 4, ""},
		{"cuda error oom", tb("RuntimeError: CUDA error: out of memory"), GroupPythonLibrary, "OutOfMemory", 4, ""},
		{"plain runtime", tb("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)"), GroupPython, "RuntimeError", 4, ""},
		{"tab error", tb("TabError: inconsistent use of tabs and spaces in indentation"), GroupPython, "IndentationError", 4, "TabError is an IndentationError"},
		{"last traceback wins", tb("KeyError: 'a'") + "retrying\n" + tb("ValueError: b"), GroupPython, "ValueError", 9, ""},
		{"traceback beats bash", "bash: line 1: foo: command not found\n" + tb("NameError: name 'x' is not defined"), GroupPython, "NameError", 5, ""},
		{"traceback beats earlier bash and later bash", "mkdir: cannot create directory '/x': Permission denied\n" + tb("EOFError") + "cp: cannot access 'y'\n", GroupPython, "EOFError", 5, ""},
		{"first bash error wins", "cd: /data: Permission denied\nls: cannot access 'y': No such file or directory\n", GroupBash, "Permission denied", 1, ""},
		{"cannot create directory before Permission denied", "mkdir: cannot create directory '/x': Permission denied\n", GroupBash, "cannot create directory", 1, "rule order"},
		{"timeout beats traceback", tb("ValueError: x") + "TIMEOUT\n", GroupTimeout, "Execution Timeout", 5, ""},
		{"timeout markers", "x\n[TIMEOUT] run exceeded 43200 s\n", GroupTimeout, "Execution Timeout", 2, ""},
		{"exit status 124", "Exit status: 124\n", GroupTimeout, "Execution Timeout", 1, ""},
		{"exit status 1240 is not", "exit code 1240\n", GroupNone, TypeNone, 0, ""},
		{"TIMEOUT settings are not", "TIMEOUT: 3600\nTIMEOUT = 30\nTIMEOUT_S=43200\n", GroupNone, TypeNone, 0, "printed configuration"},
		{"TIMEOUT sentence", "TIMEOUT: run exceeded the 12h limit\n", GroupTimeout, "Execution Timeout", 1, ""},
		{"lowercase timeout word is not", "timeout=30s for the data loader\nsocket timeout, retrying\n", GroupNone, TypeNone, 0, ""},
		{"execution timeout marker", "[harness] Execution Timeout (12h)\n", GroupTimeout, "Execution Timeout", 1, ""},
		{"slurm", "slurmstepd: error: *** JOB 81 ON gpu7 CANCELLED AT 2026-01-02T03:04:05 DUE TO TIME LIMIT ***\n", GroupTimeout, "Execution Timeout", 1, ""},
		{"bash syntax error", "run_final.sh: line 7: syntax error near unexpected token `fi'\n", GroupBash, "syntax error", 1, ""},
		{"dash syntax error", "sh: 3: Syntax error: \"fi\" unexpected\n", GroupBash, "syntax error", 1, ""},
		{"dash not found", "sh: 1: python3.8: not found\n", GroupBash, "command not found", 1, ""},
		{"dash run_final not found", "sh: 1: run_final.sh: not found\n", GroupBash, "empty or missing", 1, ""},
		{"git empty", "error: No valid patches in input (allow with \"--allow-empty\")\n", GroupBash, "empty patch", 1, ""},
		{"empty patch tag", "[harness] ERROR: empty patch, nothing to apply\n", GroupBash, "empty patch", 1, ""},
		{"empty patch mid-sentence is not", "skipping the empty patch check\n", GroupNone, TypeNone, 0, ""},
		{"unable to write", "error: unable to write file src/x.py\n", GroupBash, "unable to write file", 1, ""},
		{"hunk failed", "patching file src/model.py\nHunk #2 FAILED at 88.\n", GroupBash, "patch failed", 2, ""},
		{"wrapper alone", tb("subprocess.CalledProcessError: Command 'x' returned non-zero exit status 2."), GroupPythonUnlisted, "CalledProcessError", 4, "no child traceback to defer to"},
		{"wrapper after wrapper", tb("ValueError: child") + tb("CalledProcessError: a") + tb("CalledProcessError: b"), GroupPython, "ValueError", 4, "defers past both wrappers"},
		{"child after wrapper", tb("CalledProcessError: a") + tb("IndexError: later"), GroupPython, "IndexError", 8, "a later ordinary traceback wins"},
		{"interleaved line", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nEpoch 3: 100%|██████| 10/10\n    f()\nZeroDivisionError: division by zero\n", GroupPython, "ZeroDivisionError", 5, "up to 3 junk lines"},
		{"abandoned block", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nlots of\nunrelated lines\nwith spaces\nand more\nValueError: too late\n", GroupNone, TypeNone, 0, "the block ends after 3 junk lines"},
		{"header in text", "he said Traceback (most recent call last): is common\nNotAnException: happens\n", GroupPythonUnlisted, "NotAnException", 2, "a header anywhere starts a block"},
		{"headerless needs syntax", "  File \"a.py\", line 3\n    x\nValueError: no\n", GroupNone, TypeNone, 0, "only SyntaxError-family ends a headerless block"},
		{"no final newline", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nUnboundLocalError: x", GroupPython, "UnboundLocalError", 3, ""},
		{"bom", "\ufeffbash: x.sh: Permission denied\n", GroupBash, "Permission denied", 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := classify(t, c.log)
			if got.Group != c.group || got.Type != c.typ || got.Line != c.line {
				t.Errorf("%s: got %s/%s line %d (%q), want %s/%s line %d", c.description, got.Group, got.Type, got.Line, got.Evidence, c.group, c.typ, c.line)
			}
		})
	}
}

// TestScanSeveralFiles: a run folder's logs are one run; the wrapper in the
// second log defers to the child's traceback in the first.
func TestScanSeveralFiles(t *testing.T) {
	c := DefaultRules().NewClassifier()
	c.Scan("stderr", strings.NewReader("x\nTraceback (most recent call last):\n  File \"c.py\", line 2, in <module>\nAssertionError: shapes\n"))
	c.Scan("launcher.log", strings.NewReader("Traceback (most recent call last):\n  File \"l.py\", line 2, in <module>\nsubprocess.CalledProcessError: Command 'x' returned non-zero exit status 1.\n"))
	got := c.Result()
	if got.File != "stderr" || got.Type != "AssertionError" || got.Line != 4 {
		t.Errorf("%+v", got)
	}
	// Line numbers restart per file and stale prefilter hits do not leak.
	c = DefaultRules().NewClassifier()
	c.Scan("a", strings.NewReader("fine\nbash: x: command not found\n"))
	c.Scan("b", strings.NewReader("TIMEOUT\n"))
	if got := c.Result(); got.File != "b" || got.Line != 1 || got.Group != GroupTimeout {
		t.Errorf("%+v", got)
	}
}

// TestLargeLog: a 5 MB log of training output with the traceback at the
// end (generated here, not committed).
func TestLargeLog(t *testing.T) {
	var b bytes.Buffer
	n := 0
	for b.Len() < 5<<20 {
		n++
		fmt.Fprintf(&b, "epoch %d step %d/1500 loss %.4f lr 3.0e-04 grad_norm 1.23 error_rate=0.1\n", n/1500, n%1500, 2.5-float64(n%1000)/1000)
	}
	b.WriteString("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    step()\nValueError: nan loss\n")
	got := classify(t, b.String())
	if got.Type != "ValueError" || got.Line != n+4 {
		t.Errorf("%+v, want ValueError at line %d", got, n+4)
	}
}

// TestLongLine: a line over MaxLineBytes is truncated for matching, not
// an error, and the lines after it keep their numbers.
func TestLongLine(t *testing.T) {
	long := strings.Repeat("x", 3*MaxLineBytes) + " bash: y: command not found"
	log := "a\n" + long + "\nTraceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nLookupError: z\n"
	got := classify(t, log)
	if got.Type != "LookupError" || got.Line != 5 {
		t.Errorf("%+v", got)
	}
	// The tail of the long line is not matched.
	got = classify(t, long+"\n")
	if !got.None() {
		t.Errorf("tail matched: %+v", got)
	}
	// The head is, and the evidence is bounded.
	got = classify(t, "bash: y: Permission denied"+strings.Repeat(" ", 2*MaxLineBytes)+"\n")
	if got.Type != "Permission denied" || got.Line != 1 {
		t.Errorf("head: %+v", got)
	}
	got = classify(t, "cannot create directory "+strings.Repeat("é", 1000)+"\n")
	if utf8.RuneCountInString(got.Evidence) != MaxEvidenceRunes || !utf8.ValidString(got.Evidence) {
		t.Errorf("evidence %d runes", utf8.RuneCountInString(got.Evidence))
	}
}

func TestParseExceptionLine(t *testing.T) {
	for _, c := range []struct {
		in, name, msg string
		ok            bool
	}{
		{"ValueError: x: y", "ValueError", "x: y", true},
		{"KeyboardInterrupt", "KeyboardInterrupt", "", true},
		{"KeyboardInterrupt  ", "KeyboardInterrupt", "", true},
		{"torch.cuda.OutOfMemoryError: CUDA", "torch.cuda.OutOfMemoryError", "CUDA", true},
		{"torch._C._LinAlgError: singular", "torch._C._LinAlgError", "singular", true},
		{"Name:", "Name", "", true},
		{"a.: x", "", "", false},
		{".a: x", "", "", false},
		{"1Error: x", "", "", false},
		{"Epoch 3: 100%", "", "", false},
		{"", "", "", false},
	} {
		name, msg, ok := parseExceptionLine([]byte(c.in))
		if name != c.name || msg != c.msg || ok != c.ok {
			t.Errorf("%q: %q %q %v", c.in, name, msg, ok)
		}
	}
}

// TestCarriageReturn: a lone CR ends a line as LF does (pytest and tqdm
// redraw their progress line with CR, so a log holds "[ 50%]\rValueError:
// b" on one LF line). Before issue 22 the CR segment stayed part of the
// line: the second traceback's exception line was not recognised and the
// first traceback's KeyError was reported. The line number stays the LF
// line's (what grep -n and sed -n count), here 9 for ValueError.
func TestCarriageReturn(t *testing.T) {
	tb := "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    f()\n"
	log := tb + "KeyError: 'a'\n" + "tests/test_x.py ....\r" + tb + "[ 50%]\rValueError: b\rtests/test_y.py ..\n"
	got := classify(t, log)
	if got.Type != "ValueError" || got.Line != 8 || got.Evidence != "ValueError: b" {
		t.Errorf("got %s line %d %q, want ValueError line 8 %q", got.Type, got.Line, got.Evidence, "ValueError: b")
	}
	// CRLF stays one line ending, and a line rule sees the CR segment
	// alone: "progress\rsh: 1: run_final.sh: not found" is empty or missing.
	got = classify(t, "ok\r\n10%\r100%\rsh: 1: run_final.sh: not found\r\n")
	if got.Type != "empty or missing" || got.Line != 2 || got.Evidence != "sh: 1: run_final.sh: not found" {
		t.Errorf("got %s line %d %q", got.Type, got.Line, got.Evidence)
	}
}

package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
)

var update = flag.Bool("update", false, "rewrite the .golden files under testdata/")

// badDir is the shared bad-input corpus (see testdata/bad/README.md).
const badDir = "../../../../testdata/bad"

// TestBadInput runs `rdeval ingest` on each file of the bad-input corpus
// and compares the exit code and stderr with testdata/bad/<case>.golden.
// Failing cases must leave no output at all. Each case runs in a fresh
// folder holding only its input, so messages show short, stable paths.
func TestBadInput(t *testing.T) {
	corpus, err := filepath.Abs(badDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		args []string
		exit int
	}{
		{"truncated_last_line.jsonl", nil, 2},
		{"invalid_utf8.jsonl", nil, 2},
		{"wrong_type.jsonl", nil, 2},
		{"missing_field.jsonl", nil, 2},
		{"nan_text.jsonl", nil, 2},
		{"inf_text.csv", []string{"--benchmark", "demo"}, 2},
		{"duplicate_run_id.jsonl", nil, 2},
		{"empty.jsonl", nil, 2},
		{"gzip_ok.jsonl.gz", nil, 0},
		{"truncated.jsonl.gz", nil, 2},
		{"ragged.csv", []string{"--benchmark", "demo"}, 2},
		{"bom_crlf.csv", []string{"--benchmark", "demo"}, 0},
		{"crlf.jsonl", nil, 0},
		{"unknown_task_strict.jsonl", []string{"--strict"}, 2},
		// Silent guesses (issue 26; made by gen_hostile.py).
		{"dup_header.csv", []string{"--benchmark", "demo"}, 2},
		{"cr_only.csv", []string{"--benchmark", "demo"}, 2},
		{"ts_1e30.jsonl", nil, 2},
		{"bad_first_line.jsonl", nil, 2},
		{"dup_key.jsonl", nil, 2},
		{"dup_key_scorelog.jsonl", nil, 2},
		{"nul.csv", []string{"--benchmark", "demo"}, 2},
		{"time_limit_neg.jsonl", nil, 2},
		// A corrupt .gz keeps no records (issue 26).
		{"gzip_bad_crc.jsonl.gz", nil, 2},
		{"gzip_bad_length.jsonl.gz", nil, 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := t.TempDir()
			data, err := os.ReadFile(filepath.Join(corpus, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), data, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			io, _, stderr := iostreams.Test()
			args := append([]string{"ingest", tc.file, "-o", "out"}, tc.args...)
			code := Main(args, io)
			got := fmt.Sprintf("$ rdeval %s\nexit %d\n%s", strings.Join(args, " "), code, stderr.String())
			checkGolden(t, filepath.Join(corpus, strings.TrimSuffix(tc.file, filepath.Ext(tc.file))+".golden"), got)
			if code != tc.exit {
				t.Errorf("exit %d, want %d", code, tc.exit)
			}
			entries, _ := os.ReadDir("out")
			if tc.exit != 0 && len(entries) > 0 {
				t.Errorf("failed ingest left output: %v", entries)
			}
			if tc.exit == 0 && len(entries) == 0 {
				t.Errorf("successful ingest wrote nothing")
			}
		})
	}
}

// TestLongLine: a record of 10 MB on one line (a transcript in a field) is
// read whole, not cut or refused.
func TestLongLine(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 10<<20)
	line := `{"run_id":"r1","task_id":"t1","agent":"a","score":0.5,"note":"` + big + "\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "long.jsonl"), []byte(line+`{"run_id":"r2","task_id":"t1","agent":"a","score":0.25}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	io, _, stderr := iostreams.Test()
	if code := Main([]string{"ingest", "long.jsonl", "-o", "out", "--benchmark", "demo"}, io); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "2 records, 2 kept, 0 rejected") {
		t.Errorf("stderr: %s", stderr)
	}
}

// checkGolden compares got with the golden file, rewriting it with -update.
// On a mismatch it writes <golden>.got (gitignored) for inspection.
func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, []byte(got)) {
		os.WriteFile(golden+".got", []byte(got), 0o644)
		t.Errorf("output differs from %s (see %s.got):\n--- want\n%s\n--- got\n%s", golden, golden, want, got)
	}
}

// TestSkipBad: --skip-bad writes the good records and rejected.jsonl with
// each bad line and its error, and exits 0.
func TestSkipBad(t *testing.T) {
	corpus, _ := filepath.Abs(badDir)
	data, err := os.ReadFile(filepath.Join(corpus, "wrong_type.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "in.jsonl"), data, 0o644)
	t.Chdir(dir)
	io, _, stderr := iostreams.Test()
	if code := Main([]string{"ingest", "in.jsonl", "-o", "out", "--skip-bad"}, io); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rej, err := os.ReadFile(filepath.Join("out", "rejected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rej), `"line":3`) || !strings.Contains(string(rej), `want number, got string \"n/a\"`) || !strings.Contains(string(rej), `"run_id\":\"r3\"`) {
		t.Errorf("rejected.jsonl: %s", rej)
	}
	man, _ := os.ReadFile(filepath.Join("out", "manifest.json"))
	if !strings.Contains(string(man), `"rows_rejected": 1`) || !strings.Contains(string(man), `"rows_kept": 2`) {
		t.Errorf("manifest: %s", man)
	}
}

package errorscmd

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

const fixtures = "../../../../testdata/logs"

var paperErrorCounts = filepath.Join("..", "..", "..", "..", "..", "shared", "anchors", "rexbench-paper-2506.22598v3", "error_counts.csv")

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return cmdtest.Run(t, func(io *iostreams.IO) *cobra.Command {
		c := NewCmd(io, nil)
		c.SetFlagErrorFunc(cmdutil.FlagError) // a bad flag is a usage error, as in rdeval
		return c
	}, args...)
}

func jsonRows(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err, out)
	}
	return rows
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFixtures runs the command on every log of testdata/logs at once and
// checks each row against testdata/logs/expected.csv.
func TestFixtures(t *testing.T) {
	f, err := os.Open(filepath.Join(fixtures, "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	want := map[string][]string{}
	for _, r := range recs[1:] {
		args = append(args, filepath.Join(fixtures, r[0]))
		want[strings.TrimSuffix(r[0], ".log")] = r[1:]
	}
	out, stderr, err := runCmd(t, append(args, "--format", "json")...)
	if err != nil {
		t.Fatal(err, stderr)
	}
	rows := jsonRows(t, out)
	if len(rows) != len(args) {
		t.Fatalf("%d rows for %d files", len(rows), len(args))
	}
	for _, r := range rows {
		id := r["run_id"].(string)
		w := want[id]
		line := ""
		if r["line"] != nil {
			line = fmt.Sprint(r["line"]) // a float64 such as 21 prints as "21"
		}
		if r["group"] != w[0] || r["type"] != w[1] || line != w[2] || r["agent"] != "logs" {
			t.Errorf("%s: %v, want %v", id, r, w)
		}
		if (r["line"] == nil) != (r["evidence"] == nil) || (r["line"] == nil) != (r["file"] == nil) {
			t.Errorf("%s: line, evidence and file should be null together: %v", id, r)
		}
	}
}

// TestRunFolders: a run folder's logs make one run; agent is the folder
// above the run; --counts counts runs per agent × group × type.
func TestRunFolders(t *testing.T) {
	dir := t.TempDir()
	a1 := filepath.Join(dir, "runs", "agentA", "run01")
	write(t, filepath.Join(a1, "stderr"), "Traceback (most recent call last):\n  File \"c.py\", line 2, in <module>\nKeyError: 'x'\n")
	write(t, filepath.Join(a1, "launcher.log"), "Traceback (most recent call last):\n  File \"l.py\", line 2, in <module>\nsubprocess.CalledProcessError: Command 'x' returned non-zero exit status 1.\n")
	write(t, filepath.Join(a1, "notes.md"), "TIMEOUT\n") // not a log
	a2 := filepath.Join(dir, "runs", "agentA", "run02.log")
	write(t, a2, "all good, 0 errors\n")
	b3 := filepath.Join(dir, "runs", "agentB", "run03")
	write(t, filepath.Join(b3, "stdout"), "ERROR: empty patch\n")
	b4 := filepath.Join(dir, "runs", "agentB", "run04")
	write(t, filepath.Join(b4, "harness.txt"), "[TIMEOUT] 12h\n")

	out, stderr, err := runCmd(t, a1, a2, b3, b4, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	rows := jsonRows(t, out)
	want := [][5]any{
		// agent, run_id, type, line, file (launcher.log is read first; the
		// CalledProcessError defers to the KeyError in stderr)
		{"agentA", "run01", "KeyError", 3.0, filepath.Join(a1, "stderr")},
		{"agentA", "run02", "none", nil, nil},
		{"agentB", "run03", "empty patch", 1.0, filepath.Join(b3, "stdout")},
		{"agentB", "run04", "Execution Timeout", 1.0, filepath.Join(b4, "harness.txt")},
	}
	for i, w := range want {
		r := rows[i]
		if r["agent"] != w[0] || r["run_id"] != w[1] || r["type"] != w[2] || r["line"] != w[3] || r["file"] != w[4] {
			t.Errorf("row %d: %v, want %v", i, r, w)
		}
	}
	if rows[0]["exception"] != "KeyError" || rows[2]["exception"] != nil {
		t.Errorf("exception: %v %v", rows[0]["exception"], rows[2]["exception"])
	}

	out, _, err = runCmd(t, a1, a2, b3, b4, "--counts", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	wantCSV := "agent,group,type,count\nagentA,python,KeyError,1\nagentA,none,none,1\nagentB,timeout,Execution Timeout,1\nagentB,bash,empty patch,1\n"
	if out != wantCSV {
		t.Errorf("counts:\n%s\nwant\n%s", out, wantCSV)
	}
	out, _, _ = runCmd(t, a1, b4, "--counts", "--format", "json", "--agent-from", "grandparent")
	rows = jsonRows(t, out)
	if len(rows) != 2 || rows[0]["agent"] != "runs" || rows[0]["group"] != "timeout" || rows[0]["count"] != 1.0 {
		t.Errorf("grandparent: %v", rows)
	}
	out, _, _ = runCmd(t, a1, b4, "--counts", "--format", "json", "--agent", "X")
	if rows = jsonRows(t, out); len(rows) != 2 || rows[0]["agent"] != "X" {
		t.Errorf("--agent: %v", rows)
	}
	out, _, _ = runCmd(t, a2, "--agent-from", "none")
	if !strings.Contains(out, "run02") || strings.Contains(out, "agentA") {
		t.Errorf("none: %s", out)
	}
	out, _, _ = runCmd(t, a1)
	if !strings.HasPrefix(out, "agent ") || !strings.Contains(out, "KeyError: 'x'") {
		t.Errorf("table:\n%s", out)
	}
}

// TestRulesFlag: --rules adds rules before the defaults; a bad rule is an
// input error naming the rule.
func TestRulesFlag(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "r.log")
	write(t, log, "cp: error writing 'out.bin': No space left on device\nbash: x: command not found\n")
	rules := filepath.Join(dir, "rules.yaml")
	write(t, rules, "- {group: bash, type: disk full, kind: line, pattern: 'No space left on device'}\n")
	out, _, err := runCmd(t, log, "--rules", rules, "--format", "csv")
	if err != nil || !strings.Contains(out, ",bash,disk full,,1,") {
		t.Errorf("%v\n%s", err, out)
	}
	write(t, log, "bash: x: command not found\n")
	out, _, _ = runCmd(t, log, "--rules", rules, "--no-default-rules", "--format", "csv")
	if !strings.Contains(out, ",none,none,") {
		t.Errorf("--no-default-rules:\n%s", out)
	}
	write(t, rules, "- {group: bash, type: disk full, kind: line, pattern: 'x'}\n- {group: bash, type: y, kind: line, pattern: '[a-'}\n")
	_, _, err = runCmd(t, log, "--rules", rules)
	var be *cmdutil.BadInputError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "rule 2 (line 2): pattern") {
		t.Errorf("bad rule: %v", err)
	}
}

// TestAnnotationsFlag: the implicit-error summary, per agent and over all.
func TestAnnotationsFlag(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "A", "r1.log"), "ok\n")
	write(t, filepath.Join(dir, "A", "r2.log"), "ok\n")
	write(t, filepath.Join(dir, "B", "r3.log"), "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x\n")
	ann := filepath.Join(dir, "implicit.csv")
	write(t, ann, "run_id,category,difficulty,note\nr1,logic,easy,wrong loss\nr1,logic,hard,\nr2,value,medium,lr 1e-3 not 1e-4\nr3,logic,,\nr9,other,,\n")
	out, stderr, err := runCmd(t, filepath.Join(dir, "A", "r1.log"), filepath.Join(dir, "A", "r2.log"), filepath.Join(dir, "B", "r3.log"),
		"--annotations", ann, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	rows := jsonRows(t, out)
	// By hand: A has r1 (logic, logic) and r2 (value): 3 annotations, 2
	// runs, ratio 2; B has r3 (logic); r9 is unmatched; all: 5.
	if len(rows) != 4 {
		t.Fatalf("%d rows: %s", len(rows), out)
	}
	a, b, un, all := rows[0], rows[1], rows[2], rows[3]
	if a["agent"] != "A" || a["n_annotations"] != 3.0 || a["n_runs"] != 2.0 || a["logic"] != 2.0 || a["value"] != 1.0 || a["logic_value_ratio"] != 2.0 || a["hard"] != 1.0 {
		t.Errorf("A: %v", a)
	}
	if b["agent"] != "B" || b["logic_value_ratio"] != nil || b["unrated"] != 1.0 {
		t.Errorf("B: %v", b)
	}
	if un["agent"] != unmatchedAgent || un["other"] != 1.0 || all["agent"] != allAgents || all["n_annotations"] != 5.0 || all["logic_value_ratio"] != 3.0 {
		t.Errorf("unmatched/all: %v %v", un, all)
	}
	if !strings.Contains(stderr, "run r3 has an implicit-error annotation but its logs show an explicit error (python/ValueError") || !strings.Contains(stderr, "1 annotations name runs that are not among the PATHs") {
		t.Errorf("stderr: %s", stderr)
	}
	// Without PATHs: one row over all annotations.
	out, _, err = runCmd(t, "--annotations", ann)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 2 || strings.Join(strings.Fields(lines[1]), " ") != "(all) 5 4 3 1 1 3.00 1 1 1 2" {
		t.Errorf("%v\n%s", err, out)
	}
	write(t, ann, "run_id,category\nr1,logic\nr2,bug\n")
	_, _, err = runCmd(t, "--annotations", ann)
	var be *cmdutil.BadInputError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), `line 3: category "bug"`) {
		t.Errorf("bad category: %v", err)
	}
}

// TestPaperTable prints the paper's Tables 9/10 from the transcription in
// ../shared (SOURCE.md) and checks the sums SOURCE.md quotes: Claude 4.5
// Opus summed over aider and OpenHands reproduces Figure 10
// (FileNotFoundError 42, ValueError 39, empty patch 17, KeyError 10,
// Execution Timeout 5); empty patch summed over the other models is 257
// (Figure 6); aider + DeepSeek-R1's column sums to 178.
func TestPaperTable(t *testing.T) {
	if _, err := os.Stat(paperErrorCounts); err != nil {
		t.Skipf("skipping: %s not found (../shared sits beside the checkout)", paperErrorCounts)
	}
	out, stderr, err := runCmd(t, "--paper-table", paperErrorCounts, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	var tabs []struct {
		Framework   string   `json:"framework"`
		SourceTable *string  `json:"source_table"`
		Models      []string `json:"models"`
		Rows        []struct {
			Group  string         `json:"error_group"`
			Type   string         `json:"error_type"`
			Counts map[string]int `json:"counts"`
		} `json:"rows"`
		Totals map[string]int `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &tabs); err != nil {
		t.Fatal(err)
	}
	if len(tabs) != 3 || tabs[0].Framework != "aider" || *tabs[0].SourceTable != "9" || tabs[1].Framework != "OpenHands" || *tabs[1].SourceTable != "10" || tabs[2].Framework != "all" {
		t.Fatalf("tables: %s", out[:200])
	}
	for _, tb := range tabs {
		if len(tb.Rows) != 37 || len(tb.Models) != 7 {
			t.Errorf("%s: %d rows × %d models, want 37 × 7 (518 = 2 × 37 × 7)", tb.Framework, len(tb.Rows), len(tb.Models))
		}
	}
	all := map[string]map[string]int{}
	for _, r := range tabs[2].Rows {
		all[r.Type] = r.Counts
	}
	for typ, want := range map[string]int{"FileNotFoundError": 42, "ValueError": 39, "empty patch": 17, "KeyError": 10, "Execution Timeout": 5} {
		if got := all[typ]["Claude 4.5 Opus"]; got != want {
			t.Errorf("Opus %s: %d, Figure 10 says %d", typ, got, want)
		}
	}
	others := 0
	for m, n := range all["empty patch"] {
		if m != "Claude 4.5 Opus" {
			others += n
		}
	}
	if others != 257 {
		t.Errorf("empty patch without Opus: %d, Figure 6 says 257", others)
	}
	if got := tabs[0].Totals["DeepSeek-R1"]; got != 178 {
		t.Errorf("aider DeepSeek-R1 total %d, SOURCE.md says 178", got)
	}
	out, _, err = runCmd(t, "--paper-table", paperErrorCounts)
	if err != nil || !strings.HasPrefix(out, "framework: aider (Table 9)\nerror_group") || !strings.Contains(out, "framework: all (sum over frameworks)") {
		t.Errorf("table: %v\n%.300s", err, out)
	}
	out, _, err = runCmd(t, "--paper-table", paperErrorCounts, "--format", "csv")
	if err != nil || !strings.HasPrefix(out, "framework,error_group,error_type,Claude 4.5 Opus,") || strings.Count(out, "\n") != 1+3*38 {
		t.Errorf("csv: %v\n%.300s", err, out)
	}
}

func TestPaperTableErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "e.csv")
	for _, c := range []struct{ csv, want string }{
		{"framework,model,error_group,error_type\n", `missing column "count"`},
		{"framework,model,error_group,error_type,count\naider,m,G,T,1\naider,m,G,T,2\n", "line 3: a second count"},
		{"framework,model,error_group,error_type,count\naider,m,G,T,-1\n", `line 2: count "-1"`},
		{"framework,model,error_group,error_type,count\n", "no rows"},
	} {
		write(t, p, c.csv)
		_, _, err := runCmd(t, "--paper-table", p)
		var be *cmdutil.BadInputError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.csv, err, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	log := filepath.Join(fixtures, "timeout.log")
	for _, c := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{}, true, "want at least one PATH"},
		{[]string{log, "--format", "xml"}, true, `--format "xml"`},
		{[]string{log, "--agent-from", "dir"}, true, "want parent, grandparent or none"},
		{[]string{log, "--counts", "--annotations", "a.csv"}, true, "give one"},
		{[]string{log, "--paper-table", "p.csv"}, true, "give no PATH"},
		{[]string{log, "--no-default-rules"}, true, "needs --rules"},
		{[]string{log, "--rules", filepath.Join(dir, "nope.yaml")}, true, "--rules: open"},
		{[]string{filepath.Join(dir, "nope.log")}, false, "no such file or directory"},
		{[]string{empty}, false, "no log files"},
	} {
		_, _, err := runCmd(t, c.args...)
		var ue *cmdutil.UsageError
		var be *cmdutil.BadInputError
		ok := err != nil && strings.Contains(err.Error(), c.want)
		if c.usage {
			ok = ok && errors.As(err, &ue)
		} else {
			ok = ok && errors.As(err, &be)
		}
		if !ok {
			t.Errorf("%v: %T %v, want %q", c.args, err, err, c.want)
		}
	}
}

// TestNewCmdOptions: flags land in Options (runF captures them).
func TestNewCmdOptions(t *testing.T) {
	io, _, _ := iostreams.Test()
	var got *Options
	cmd := NewCmd(io, func(o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"a", "b", "--counts", "--agent-from", "grandparent", "--rules", "r.yaml", "--format", "csv"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Paths, ",") != "a,b" || !got.Counts || got.AgentFrom != "grandparent" || got.RulesFile != "r.yaml" || got.Format != "csv" {
		t.Errorf("%+v", got)
	}
}

// TestIssue22EmptyFolder: a run folder without logs among others is
// skipped with a note on stderr; before issue 22 it aborted the batch.
// Only when no PATH gives a run is it an error (TestErrors).
func TestIssue22EmptyFolder(t *testing.T) {
	dir := t.TempDir()
	a1 := filepath.Join(dir, "runs", "agentA", "run01")
	write(t, filepath.Join(a1, "stderr"), "Traceback (most recent call last):\n  File \"c.py\", line 2, in <module>\nKeyError: 'x'\n")
	empty := filepath.Join(dir, "runs", "agentA", "run02")
	write(t, filepath.Join(empty, "notes.md"), "not a log\n")
	out, stderr, err := runCmd(t, a1, empty, "--format", "csv")
	if err != nil {
		t.Fatal(err, stderr)
	}
	if want := "agent,run_id,group,type,exception,line,file,evidence\nagentA,run01,python,KeyError,KeyError,3," + filepath.Join(a1, "stderr") + ",KeyError: 'x'\n"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(stderr, "note: "+empty+": no log files") || !strings.Contains(stderr, "skipped") {
		t.Errorf("stderr: %q", stderr)
	}
}

// TestIssue22Nested: a folder without logs of its own is searched for run
// folders below it (runs/<agent>/<trial>/, two levels deep), and a
// terminal-bench trial folder (<task>/<trial>/sessions/agent.log,
// panes/post-agent.txt) is one run named after the trial folder; before
// issue 22 the folder was "no log files" and agent.log was run "agent".
func TestIssue22Nested(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	write(t, filepath.Join(runs, "agentA", "run01", "stdout"), "ERROR: empty patch\n")
	write(t, filepath.Join(runs, "agentA", "run02", "harness.txt"), "[TIMEOUT] 12h\n")
	write(t, filepath.Join(runs, "agentB", "run03", "notes.md"), "no logs here\n")
	trial := filepath.Join(runs, "agentB", "task-a.1-of-1")
	write(t, filepath.Join(trial, "sessions", "agent.log"), "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nNameError: name 'x' is not defined\n")
	write(t, filepath.Join(trial, "panes", "post-agent.txt"), "$ ls\nls: cannot access 'y': No such file or directory\n")
	write(t, filepath.Join(trial, "results.json"), "{}\n")

	out, stderr, err := runCmd(t, runs, "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	rows := jsonRows(t, out)
	want := [][4]any{
		{"agentA", "run01", "empty patch", filepath.Join(runs, "agentA", "run01", "stdout")},
		{"agentA", "run02", "Execution Timeout", filepath.Join(runs, "agentA", "run02", "harness.txt")},
		// panes/ is read before sessions/ (name order); the traceback beats the bash error.
		{"agentB", "task-a.1-of-1", "NameError", filepath.Join(trial, "sessions", "agent.log")},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %v", len(rows), len(want), rows)
	}
	for i, w := range want {
		r := rows[i]
		if r["agent"] != w[0] || r["run_id"] != w[1] || r["type"] != w[2] || r["file"] != w[3] {
			t.Errorf("row %d: %v, want %v", i, r, w)
		}
	}
	if !strings.Contains(stderr, filepath.Join(runs, "agentB", "run03")+": no log files") {
		t.Errorf("stderr: %q", stderr)
	}

	// The log file itself: the run is its trial folder, the agent the folder above.
	out, stderr, err = runCmd(t, filepath.Join(trial, "sessions", "agent.log"), "--format", "json")
	if err != nil {
		t.Fatal(err, stderr)
	}
	rows = jsonRows(t, out)
	if len(rows) != 1 || rows[0]["run_id"] != "task-a.1-of-1" || rows[0]["agent"] != "agentB" || rows[0]["type"] != "NameError" {
		t.Errorf("agent.log: %v", rows)
	}
	// Two logs of one trial folder are one run.
	out, _, _ = runCmd(t, filepath.Join(trial, "panes", "post-agent.txt"), filepath.Join(trial, "sessions", "agent.log"), "--format", "json")
	if rows = jsonRows(t, out); len(rows) != 1 || rows[0]["type"] != "NameError" {
		t.Errorf("two logs of a trial: %v", rows)
	}
	// A folder named agent is a harness folder only beside Harbor's
	// result.json/config.json or a verifier/ folder: runs/agent/run9.log stays run9.
	plain := filepath.Join(dir, "other", "agent", "run9.log")
	write(t, plain, "fine\n")
	out, _, _ = runCmd(t, plain, "--format", "json")
	if rows = jsonRows(t, out); len(rows) != 1 || rows[0]["run_id"] != "run9" || rows[0]["agent"] != "agent" {
		t.Errorf("plain agent folder: %v", rows)
	}
}

// Package errorscmd implements `rdeval errors`.
package errorscmd

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rdeval/rdeval/analysis/errtax"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

// Values of --agent-from.
const (
	agentFromParent      = "parent"
	agentFromGrandparent = "grandparent"
	agentFromNone        = "none"
)

// allAgents names the summary row over every agent in --annotations output.
const allAgents = "(all)"

// unmatchedAgent collects annotations whose run id is not among the runs.
const unmatchedAgent = "(unmatched)"

// Options are the parsed flags of `rdeval errors`.
type Options struct {
	IO             *iostreams.IO
	Paths          []string
	RulesFile      string
	NoDefaultRules bool
	Annotations    string
	Counts         bool
	Format         string
	AgentFrom      string
	Agent          string
	PaperTable     string
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "errors PATH... | --annotations CSV | --paper-table CSV",
		Short: "Classify the explicit error of each run from its logs (RExBench taxonomy)",
		Long: `Classify each run's explicit error (the one that stopped its code) from its
logs, in the RExBench taxonomy (arXiv 2506.22598v3 Tables 9/10): groups
python, python_library, python_other, bash and timeout, plus python_unlisted
(an exception the taxonomy does not name) and none (no error found).

PATH is a log file (one run; run_id is its name without extension) or a run
folder (one run; run_id is the folder's name) whose *.log, *.txt, stdout
and stderr files are read together, in name order, with those in a
harness's log subfolders (terminal-bench sessions/, panes/, agent-logs/;
Harbor verifier/, and agent/ beside result.json or config.json). A log in
such a subfolder belongs to its trial folder: run_id is the trial folder's
name (task/trial.1-of-1/sessions/agent.log is run trial.1-of-1). A folder
without logs is searched up to 4 levels down for run folders (runs/ finds
runs/o1/run3/ and runs/o1/task/trial/); folders with no logs are skipped
with a note on stderr (an error only when no PATH gives a run).

The primary error of a run: a timeout marker (first one) beats the last
Python traceback, which beats the first bash error. The last traceback is
the exception printed last, so for chained exceptions the last of the
chain. A launcher's wrapper exception (subprocess.CalledProcessError,
torchrun's ChildFailedError) defers to the child's traceback printed
before it. Lines that only mention errors ("0 errors", "error_rate=0.1", a
UserWarning) count for nothing. Timeout markers: "rdeval: timeout after
12h0m0s", GNU timeout's "timeout: sending signal …", exit status 124, the
words "Execution Timeout", a harness line "TIMEOUT", "[TIMEOUT] …" or
"TIMEOUT: <words>", Slurm's "DUE TO TIME LIMIT". The full rules: rdeval's analysis/errtax package
documentation and default_rules.yaml.

--rules FILE adds rules (a YAML list of {group, type, pattern, kind:
traceback|line, defer}) tried before the built-in ones; --no-default-rules
uses only FILE.

Output, one row per run: agent, run_id, group, type, exception, line
(1-based, of the evidence), file and evidence (the deciding line, trimmed,
at most 200 characters; cut to 80 in the table). The agent is the name of
the folder that holds the run (--agent-from parent: for runs/o1/run3/ or
runs/o1/run3.log it is o1), or the one above it (grandparent: for
runs/o1/task/run3/), or --agent NAME.

--counts prints runs per agent × group × type instead (group none counts
runs without an explicit error).

--annotations CSV summarises hand-annotated implicit errors (code ran,
result wrong): a CSV with header run_id,category,difficulty,note, category
logic, value or other, difficulty easy, medium, hard or empty. One row per
agent (agents from the PATHs given, matched by run_id; "(unmatched)" for
run ids not among them) and a row "(all)": annotations, distinct runs,
counts per category and difficulty, and logic_value_ratio = logic/value
(empty, null in JSON, when value is 0). Annotated runs whose logs show an
explicit error are named on stderr.

--paper-table CSV prints the paper's explicit-error counts (the long-format
error_counts.csv: framework, model, error_group, error_type, count) as
Tables 9/10: one table per framework, rows error types, columns models,
then a table "all" summed over frameworks and a "(total)" row per table.`,
		Example: `  rdeval errors examples/logs/run-1.log examples/logs/run-2.log                 # shipped example logs
  rdeval errors runs/*/*/                       # one row per run folder
  rdeval errors runs/*/*/ --counts --format csv
  rdeval errors logs/run3.log --format json
  rdeval errors runs/*/*/ --rules my_rules.yaml
  rdeval errors runs/*/*/ --annotations implicit.csv
  rdeval errors --paper-table ../shared/anchors/rexbench-paper-2506.22598v3/error_counts.csv`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if opts.PaperTable != "" {
				if len(args) > 0 || opts.Counts || opts.Annotations != "" || opts.RulesFile != "" {
					return cmdutil.Usagef("--paper-table prints the paper's table: give no PATH, --counts, --annotations or --rules with it")
				}
			} else if len(args) == 0 && opts.Annotations == "" {
				return cmdutil.Usagef("want at least one PATH (a log file or run folder), or --annotations or --paper-table")
			}
			if opts.Counts && opts.Annotations != "" {
				return cmdutil.Usagef("--counts and --annotations are two different outputs: give one")
			}
			if opts.NoDefaultRules && opts.RulesFile == "" {
				return cmdutil.Usagef("--no-default-rules needs --rules FILE")
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, csv or latex")
	fl.StringVar(&opts.RulesFile, "rules", "", "YAML rules tried before the built-in ones")
	fl.BoolVar(&opts.NoDefaultRules, "no-default-rules", false, "use only the --rules file")
	fl.StringVar(&opts.Annotations, "annotations", "", "CSV of implicit-error annotations (run_id,category,difficulty,note): print their summary")
	fl.BoolVar(&opts.Counts, "counts", false, "print counts per agent × group × type instead of one row per run")
	cmdutil.EnumVar(cmd, &opts.AgentFrom, "agent-from", agentFromParent, "agent of a run: name of its parent folder (parent), the folder above (grandparent) or none", agentFromParent, agentFromGrandparent, agentFromNone)
	fl.StringVar(&opts.Agent, "agent", "", "agent of every run (overrides --agent-from)")
	fl.StringVar(&opts.PaperTable, "paper-table", "", "print the paper's error counts (long-format error_counts.csv) as Tables 9/10")
	return cmd
}

// classifiedRun is one run and its label.
type classifiedRun struct {
	Agent string
	ID    string
	Files []string
	Label errtax.Label
}

// run classifies the runs (or summarises annotations, or prints the paper
// table) and writes the output to opts.IO.Out.
func run(opts *Options) error {
	if opts.PaperTable != "" {
		return paperTable(opts)
	}
	rules, err := loadRules(opts)
	if err != nil {
		return err
	}
	runs, skipped, err := findRuns(opts.Paths, opts.AgentFrom, opts.Agent)
	if err != nil {
		return err
	}
	for _, d := range skipped {
		opts.IO.Notef("%s: no log files, skipped", d)
	}
	for i := range runs {
		if runs[i].Label, err = classify(rules, runs[i].Files); err != nil {
			return err
		}
	}
	switch {
	case opts.Annotations != "":
		return writeImplicit(opts, runs)
	case opts.Counts:
		return writeCounts(opts, runs)
	}
	return writeRuns(opts, runs)
}

func loadRules(opts *Options) (errtax.Rules, error) {
	if opts.RulesFile == "" {
		return errtax.DefaultRules(), nil
	}
	f, err := os.Open(opts.RulesFile)
	if err != nil {
		return errtax.Rules{}, cmdutil.Usagef("--rules: %v", err)
	}
	defer f.Close()
	user, err := errtax.LoadRules(f)
	if err != nil {
		return errtax.Rules{}, &cmdutil.BadInputError{Err: fmt.Errorf("--rules %s: %w", opts.RulesFile, err)}
	}
	if opts.NoDefaultRules {
		return user, nil
	}
	return errtax.Combine(user, errtax.DefaultRules()), nil
}

// isLogName reports whether a file in a run folder is one of its logs:
// *.log, *.txt, stdout or stderr.
func isLogName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".log", ".txt":
		return true
	}
	return name == "stdout" || name == "stderr"
}

// maxSearchDepth is how many folder levels below a PATH are searched for
// run folders.
const maxSearchDepth = 4

// harnessDirs are the log subfolders of a harness's trial folder:
// terminal-bench's sessions/, panes/ and agent-logs/, Harbor's verifier/
// and agent/ (agent/ only beside Harbor's result.json, config.json or
// verifier/, since "agent" is also a common name for a folder of runs).
var harnessDirs = map[string]bool{"sessions": true, "panes": true, "agent-logs": true, "verifier": true, "agent": true}

// isHarnessDir reports whether the folder dir is a harness log subfolder
// of a trial folder (harnessDirs).
func isHarnessDir(dir string) bool {
	name := filepath.Base(dir)
	if !harnessDirs[name] {
		return false
	}
	if name != "agent" {
		return true
	}
	parent := filepath.Dir(dir)
	for _, s := range []string{"result.json", "config.json", "verifier"} {
		if _, err := os.Stat(filepath.Join(parent, s)); err == nil {
			return true
		}
	}
	return false
}

// trialOf returns the trial folder of a log file that lies in a harness
// log subfolder or one level below it (Harbor's agent/command-0/stdout.txt),
// or "" for any other file.
func trialOf(file string) string {
	d := filepath.Dir(file)
	for i := 0; i < 2; i++ {
		if isHarnessDir(d) {
			return filepath.Dir(d)
		}
		d = filepath.Dir(d)
	}
	return ""
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// runLogs returns the log files of a run folder: its own (IsLogName) and
// those in its harness log subfolders, up to two levels down, in name
// order of their paths below dir.
func runLogs(dir string) ([]string, error) {
	var files []string
	var walk func(d string, depth int, top bool) error
	walk = func(d string, depth int, top bool) error {
		entries, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			if e.IsDir() {
				if (top && isHarnessDir(p)) || (!top && depth < 2) {
					if err := walk(p, depth+1, false); err != nil {
						return err
					}
				}
				continue
			}
			if isLogName(e.Name()) && isRegular(p) {
				files = append(files, p)
			}
		}
		return nil
	}
	return files, walk(dir, 0, true)
}

// findRuns turns PATH arguments into runs.
//
// A file is a run named after the file (runs/o1/run3.log is run3), unless
// it lies in a harness log subfolder (harnessDirs) of a trial folder: then
// the run is the trial folder, named after it, and the logs given from
// one trial folder are one run (task/trial.1-of-1/sessions/agent.log is run
// trial.1-of-1).
//
// A folder that holds logs (its own *.log, *.txt, stdout, stderr, or those
// in its harness log subfolders: runLogs) is a run named after the folder.
// A folder without logs is searched, up to maxSearchDepth levels down,
// for such run folders (runs/ finds runs/o1/run3/ and
// runs/o1/task/trial/); the search does not enter a run folder, so a folder
// of log files found this way is one run (give runs/o1/*.log for one run
// per file). Folders without logs anywhere below them are returned in
// skipped (the deepest such folder under a folder that gave runs), not an
// error; findRuns fails only when no PATH gives a run.
//
// The agent of a run is the name of the folder above the run's file or
// folder (AgentFromParent) or the one above that (AgentFromGrandparent),
// or agent when not empty.
func findRuns(paths []string, agentFrom, agent string) (runs []classifiedRun, skipped []string, err error) {
	index := map[string]int{} // run folder or file (absolute) -> runs index
	seen := map[string]bool{} // log files already in a run
	add := func(at, id string, files []string) {
		i, ok := index[at]
		if !ok {
			r := classifiedRun{Agent: agent, ID: id}
			if r.Agent == "" {
				switch agentFrom {
				case agentFromParent:
					r.Agent = filepath.Base(filepath.Dir(at))
				case agentFromGrandparent:
					r.Agent = filepath.Base(filepath.Dir(filepath.Dir(at)))
				}
			}
			i = len(runs)
			index[at] = i
			runs = append(runs, r)
		}
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				runs[i].Files = append(runs[i].Files, f)
			}
		}
	}
	var search func(dir string, depth int) (int, []string, error)
	search = func(dir string, depth int) (int, []string, error) {
		files, err := runLogs(dir)
		if err != nil {
			return 0, nil, &cmdutil.BadInputError{Err: err}
		}
		if len(files) > 0 {
			add(dir, filepath.Base(dir), files)
			return 1, nil, nil
		}
		if depth == maxSearchDepth {
			return 0, []string{dir}, nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return 0, nil, &cmdutil.BadInputError{Err: err}
		}
		n, below := 0, []string(nil)
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue // .git, .cache: not run folders
			}
			k, s, err := search(filepath.Join(dir, e.Name()), depth+1)
			if err != nil {
				return 0, nil, err
			}
			n += k
			below = append(below, s...)
		}
		if n == 0 {
			return 0, []string{dir}, nil
		}
		return n, below, nil
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, &cmdutil.BadInputError{Err: err}
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			if trial := trialOf(abs); trial != "" {
				add(trial, filepath.Base(trial), []string{p})
				continue
			}
			base := filepath.Base(abs)
			add(abs, strings.TrimSuffix(base, filepath.Ext(base)), []string{p})
			continue
		}
		if isHarnessDir(abs) {
			abs = filepath.Dir(abs) // trial/sessions/ is its trial folder
		}
		_, s, err := search(abs, 0)
		if err != nil {
			return nil, nil, err
		}
		for _, d := range s {
			skipped = append(skipped, displayPath(p, abs, d))
		}
	}
	if len(runs) == 0 && len(paths) > 0 {
		return nil, nil, &cmdutil.BadInputError{Err: fmt.Errorf("%s: no log files (a run folder holds *.log, *.txt, stdout or stderr files, or run folders below it; give a log file or a run folder)", strings.Join(skipped, ", "))}
	}
	return runs, skipped, nil
}

// displayPath writes folder d, found below PATH p (absolute: abs), the way
// the PATH was given.
func displayPath(p, abs, d string) string {
	rel, err := filepath.Rel(abs, d)
	if err != nil {
		return d
	}
	if rel == "." {
		return p
	}
	return filepath.Join(p, rel)
}

func classify(rules errtax.Rules, files []string) (errtax.Label, error) {
	c := rules.NewClassifier()
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return errtax.Label{}, err
		}
		err = c.Scan(p, f)
		f.Close()
		if err != nil {
			return errtax.Label{}, fmt.Errorf("%s: %w", p, err)
		}
	}
	return c.Result(), nil
}

// orNull is nil for "" (JSON null).
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func writeRuns(opts *Options, runs []classifiedRun) error {
	if opts.Format == cmdutil.FormatJSON {
		out := make([]map[string]any, len(runs))
		for i, r := range runs {
			l := r.Label
			var line any
			if l.Line > 0 {
				line = l.Line
			}
			out[i] = map[string]any{"agent": r.Agent, "run_id": r.ID, "group": l.Group, "type": l.Type,
				"exception": orNull(l.Exception), "line": line, "evidence": orNull(l.Evidence), "file": orNull(l.File)}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	t := cmdutil.Table{Header: []string{"agent", "run_id", "group", "type", "exception", "line", "file", "evidence"}}
	for _, r := range runs {
		l := r.Label
		line, ev := "", l.Evidence
		if l.Line > 0 {
			line = strconv.Itoa(l.Line)
		}
		if opts.Format == cmdutil.FormatTable || opts.Format == cmdutil.FormatLaTeX {
			ev = cut(ev, 80)
		}
		t.Rows = append(t.Rows, []string{r.Agent, r.ID, l.Group, l.Type, l.Exception, line, l.File, ev})
	}
	t.Cite(opts.IO, "Primary error of each run from its logs (RExBench taxonomy).")
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, nil)
}

// groupRank orders groups in counts: timeout first (it outranks the
// rest), then the paper's order, unknown groups by name, none last.
func groupRank(g string) int {
	for i, x := range []string{errtax.GroupTimeout, errtax.GroupPython, errtax.GroupPythonLibrary,
		errtax.GroupPythonOther, errtax.GroupPythonUnlisted, errtax.GroupBash} {
		if g == x {
			return i
		}
	}
	if g == errtax.GroupNone {
		return 100
	}
	return 50
}

func writeCounts(opts *Options, runs []classifiedRun) error {
	type key struct{ agent, group, typ string }
	counts := map[key]int{}
	for _, r := range runs {
		counts[key{r.Agent, r.Label.Group, r.Label.Type}]++
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.agent != b.agent {
			return a.agent < b.agent
		}
		if ra, rb := groupRank(a.group), groupRank(b.group); ra != rb {
			return ra < rb
		}
		if a.group != b.group {
			return a.group < b.group
		}
		return a.typ < b.typ
	})
	if opts.Format == cmdutil.FormatJSON {
		out := make([]map[string]any, len(keys))
		for i, k := range keys {
			out[i] = map[string]any{"agent": k.agent, "group": k.group, "type": k.typ, "count": counts[k]}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	t := cmdutil.Table{Header: []string{"agent", "group", "type", "count"}}
	for _, k := range keys {
		t.Rows = append(t.Rows, []string{k.agent, k.group, k.typ, strconv.Itoa(counts[k])})
	}
	t.Cite(opts.IO, "Runs per agent and primary error type (RExBench taxonomy).")
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, nil)
}

func writeImplicit(opts *Options, runs []classifiedRun) error {
	data, err := os.ReadFile(opts.Annotations)
	if err != nil {
		return cmdutil.Usagef("--annotations: %v", err)
	}
	as, err := errtax.LoadAnnotations(bytes.NewReader(data))
	if err != nil {
		return &cmdutil.BadInputError{Err: fmt.Errorf("--annotations %s: %w", opts.Annotations, err)}
	}
	byID := map[string]*classifiedRun{}
	for i := range runs {
		if prev, dup := byID[runs[i].ID]; dup && prev.Agent != runs[i].Agent {
			opts.IO.Warnf("run id %q belongs to agents %q and %q; annotations for it count under %q", runs[i].ID, prev.Agent, runs[i].Agent, prev.Agent)
			continue
		}
		byID[runs[i].ID] = &runs[i]
	}
	var agents []string
	per := map[string][]errtax.Annotation{}
	for _, a := range as {
		agent := allAgents
		if len(runs) > 0 {
			r, ok := byID[a.RunID]
			switch {
			case !ok:
				agent = unmatchedAgent
			default:
				agent = r.Agent
				if !r.Label.None() {
					opts.IO.Warnf("%s:%d: run %s has an implicit-error annotation but its logs show an explicit error (%s/%s, %s:%d)",
						opts.Annotations, a.Line, a.RunID, r.Label.Group, r.Label.Type, r.Label.File, r.Label.Line)
				}
			}
		}
		if _, seen := per[agent]; !seen {
			agents = append(agents, agent)
		}
		per[agent] = append(per[agent], a)
	}
	if n := len(per[unmatchedAgent]); n > 0 {
		opts.IO.Warnf("%d annotations name runs that are not among the PATHs given (agent %q)", n, unmatchedAgent)
	}
	sort.Slice(agents, func(i, j int) bool {
		if (agents[i] == unmatchedAgent) != (agents[j] == unmatchedAgent) {
			return agents[j] == unmatchedAgent
		}
		return agents[i] < agents[j]
	})
	if len(runs) > 0 {
		agents = append(agents, allAgents)
	}
	per[allAgents] = as
	type row struct {
		agent string
		s     errtax.ImplicitSummary
	}
	var rows []row
	for _, a := range agents {
		rows = append(rows, row{a, errtax.SummarizeAnnotations(per[a])})
	}
	if opts.Format == cmdutil.FormatJSON {
		out := make([]map[string]any, len(rows))
		for i, r := range rows {
			var ratio any
			if v := r.s.LogicValueRatio(); !math.IsNaN(v) {
				ratio = v
			}
			out[i] = map[string]any{"agent": r.agent, "n_annotations": r.s.Annotations, "n_runs": r.s.Runs,
				"logic": r.s.Logic, "value": r.s.Value, "other": r.s.Other, "logic_value_ratio": ratio,
				"easy": r.s.Easy, "medium": r.s.Medium, "hard": r.s.Hard, "unrated": r.s.Unrated}
		}
		return cmdutil.WriteJSON(opts.IO.Out, out)
	}
	t := cmdutil.Table{Header: []string{"agent", "n_annotations", "n_runs", "logic", "value", "other", "logic_value_ratio", "easy", "medium", "hard", "unrated"}}
	for _, r := range rows {
		ratio := ""
		if v := r.s.LogicValueRatio(); !math.IsNaN(v) {
			ratio = strconv.FormatFloat(v, 'f', 2, 64)
		}
		s := r.s
		t.Rows = append(t.Rows, []string{r.agent, strconv.Itoa(s.Annotations), strconv.Itoa(s.Runs), strconv.Itoa(s.Logic),
			strconv.Itoa(s.Value), strconv.Itoa(s.Other), ratio, strconv.Itoa(s.Easy), strconv.Itoa(s.Medium), strconv.Itoa(s.Hard), strconv.Itoa(s.Unrated)})
	}
	t.Cite(opts.IO, "Implicit errors per agent from the annotations: logic and value errors, their ratio, and difficulty.")
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, nil)
}

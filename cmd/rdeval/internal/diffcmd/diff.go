// Package diffcmd implements `rdeval diff`: an agent's patch against the
// gold patch, file by file and line by line (metrics in
// analysis/patchdiff), for one pair, a batch of runs, or the gold patches'
// sizes per task.
package diffcmd

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis/patchdiff"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/spf13/cobra"
)

// Layout of a run folder for --run. Provisional: rdeval execute will
// define the run folder; until it lands, these are the names read.
const (
	runAgentPatch = "patch.diff" // the agent's patch
	runGoldPatch  = "gold.patch" // the task's gold patch (optional)
)

// Options are the parsed flags of `rdeval diff`.
type Options struct {
	Benchmark string // --task-stats Parquet/Arrow output: benchmark of the rdeval tasks table
	IO        *iostreams.IO
	// Gold and Agent are patch files, or revisions with Repo.
	Gold, Agent string
	// Repo and Base: diff each revision against Base in this git repository.
	Repo, Base string
	// Run is a run folder (RunAgentPatch, optionally RunGoldPatch).
	Run string
	// GoldDir holds <task>.patch files; AgentDir the runs' patches (batch).
	GoldDir, AgentDir string
	// GoldFile is a SWE-bench dataset or predictions file whose records
	// give the gold patch of each instance (goldfile.go), instead of Gold
	// (--run) or GoldDir.
	GoldFile string
	// TaskStats writes the gold patches' sizes per task instead.
	TaskStats bool
	// Output is the batch or task-stats output file (.parquet, .arrow,
	// .csv or .json); "" prints to standard output in Format.
	Output  string
	Format  string
	HTML    string // one pair: write the side-by-side page here
	Window  int    // lines of slack for the line metrics
	SkipBad bool   // batch: leave out bad or unmatched agent patches
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "diff {--gold G.patch --agent A.patch | --repo DIR --base REV --gold REV --agent REV | --run DIR [--gold-file F] | (--gold-dir GDIR | --gold-file F) (--agent-dir ADIR | --task-stats)}",
		Short: "Compare an agent's patch with the gold patch: file recall, precision, line overlap, side-by-side HTML",
		Long: `Compare an agent's patch with the gold patch (RExBench judges the patch an agent
writes against the task's base commit, arXiv 2506.22598).

Inputs, one pair:
  --gold G.patch --agent A.patch          two patch files (git diff output; CRLF,
                                          a byte-order mark and a missing final
                                          newline are accepted)
  --repo DIR --base REV --gold REV --agent REV
                                          the patches from BASE to each revision
                                          of a git repository, made with go-git
  --run DIR                               a run folder: DIR/patch.diff is the
                                          agent's patch, DIR/gold.patch the gold
                                          one (or --gold FILE). This layout is
                                          provisional until rdeval execute lands.
  --run logs/<instance>/ --gold-file F    a SWE-bench instance's log folder: its
                                          patch.diff against the instance's gold
                                          patch in F (see --gold-file below)
Every patch is vetted as rdeval's execute stage vets patches before applying
them: a malformed patch, a path with "..", an absolute path or one inside .git,
a symbolic link or a setuid bit is an error naming the file (exit 2).

Per file (sorted by path): the kind of change (added, modified, deleted,
renamed, copied, mode, binary; "gold/agent" such as "modified/deleted" when
the two differ), the lines each patch adds and deletes, and whether each
touches it. Several sections for one path in one patch are merged.

File metrics, on the sets A and G of paths each patch touches (a rename or copy
by its new path, a deletion by its path, new and binary files included):
  file_recall    = |A ∩ G| / |G|          (RExBench's file recall; null if G is empty)
  file_precision = |A ∩ G| / |A|          (null for an empty agent patch)
  f1             = 2|A ∩ G| / (|A| + |G|) (= 2PR/(P+R); 0 for an empty agent patch,
                                           null if both are empty)
  jaccard        = |A ∩ G| / |A ∪ G|      (null if both are empty)
Line metrics, on the base (old-side) lines each patch changes: a deleted or
replaced line counts as itself; a pure insertion as the base line it follows (0
at the top); a created file has no base, so its lines are numbered on the new
side (1…n); a deleted file changes all its lines; binary and mode-only changes
change no lines. Lines match within one path, give or take --window lines:
  line_recall     = share of gold-changed lines with an agent-changed line within
                    ±window (null if the gold changes no line)
  over_edit_share = share of agent-changed lines with no gold-changed line within
                    ±window, i.e. outside every gold region widened by the window
                    (null if the agent changes no line)

--html OUT.html writes a self-contained page (no scripts, no external files):
the summary, then each file's gold and agent hunks side by side.

Batch: --gold-dir GDIR --agent-dir ADIR. GDIR holds <task>.patch files. Every
*.patch file under ADIR (folders and files starting with "." are skipped) is
one run: run_id is its path relative to ADIR without ".patch", slash-separated
(ADIR/cogs/run1.patch → cogs/run1). Its task is the deepest folder on that path
named like a gold task (ADIR/openhands/cogs/default/run1.patch → cogs); else the
longest task that the file name equals or starts with followed by _ - . or @
(ADIR/cogs_run3.patch → cogs). SWE-bench's patch.diff files count too, named
after their folder without "logs" folders, as ingest's swe-bench reader names
runs (ADIR/<submission>/logs/<instance>/patch.diff → <submission>/<instance>;
--agent-dir logs/run_evaluation: <run_id>/<model>/<instance>); the instance
folder is the task. One row per run, sorted by run_id: run_id,
task_id, the six metrics, agent_files, gold_files (counts) and
agent_lines_changed (added + deleted); join it with the runs table on run_id. A
run without a task or with a bad patch is an error; --skip-bad lists them on
stderr and leaves them out.

SWE-bench gold patches: --gold-file F instead of --gold-dir GDIR takes each
instance's gold patch from a SWE-bench dataset file (princeton-nlp/SWE-bench,
_Lite or _Verified rows as JSON Lines or a JSON array: instance_id and patch)
or a predictions file (all_preds.jsonl: instance_id and model_patch, another
model's patches as the reference). The task of a patch.diff is its instance
folder; an instance the file lacks (or whose patch is null) is an error naming
it and the file, and --skip-bad leaves such runs out.

Gold sizes: --gold-dir GDIR (or --gold-file F) --task-stats gives per task: task_id, gold_files
(list), gold_lines_added, gold_lines_deleted, gold_lines_changed (added +
deleted), gold_file_count.

Batch and task-stats rows print as --format table, json or csv, or go to -o FILE
(written atomically; .parquet, .arrow, .csv or .json by extension).`,
		Example: `  rdeval diff --gold examples/diff/gold.patch --agent examples/diff/agent.patch   # shipped example patches
  rdeval diff --gold gold/cogs.patch --agent runs/cogs/run1.patch
  rdeval diff --gold gold.patch --agent agent.patch --format json --html review.html
  rdeval diff --repo task-repo/ --base main --gold gold-solution --agent agent-run-3 --window 5
  rdeval diff --run runs/cogs-run1/ --gold gold/cogs.patch
  rdeval diff --gold-dir gold/ --agent-dir patches/ --format csv > diffs.csv
  rdeval diff --gold-dir gold/ --agent-dir patches/ -o diffs.parquet
  rdeval diff --gold-dir gold/ --task-stats -o tasks.parquet
  rdeval diff --gold-file cmd/rdeval/internal/diffcmd/testdata/swebench/gold.jsonl --agent-dir cmd/rdeval/internal/diffcmd/testdata/swebench/evaluation/lite   # shipped fixture
  rdeval diff --gold-file swe-bench-verified.jsonl --agent-dir evaluation/verified/20240620_sweagent_claude3.5sonnet/ -o diffs.csv
  rdeval diff --run logs/astropy__astropy-12907/ --gold-file swe-bench-verified.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Gold, "gold", "", "gold patch file (with --repo: the gold revision)")
	fl.StringVar(&opts.Agent, "agent", "", "agent patch file (with --repo: the agent revision)")
	fl.StringVar(&opts.Repo, "repo", "", "git repository: compare the patches from --base to --gold and to --agent")
	fl.StringVar(&opts.Base, "base", "", "with --repo: the base revision both patches start from")
	fl.StringVar(&opts.Run, "run", "", "run folder with "+runAgentPatch+" (agent) and optionally "+runGoldPatch+" (provisional layout)")
	fl.StringVar(&opts.GoldDir, "gold-dir", "", "folder of <task>.patch gold patches (batch and --task-stats)")
	fl.StringVar(&opts.GoldFile, "gold-file", "", "SWE-bench dataset (instance_id, patch) or predictions (instance_id, model_patch) file, JSON Lines or JSON: the gold patch of each instance")
	fl.StringVar(&opts.AgentDir, "agent-dir", "", "folder of agent patches, <run_id>.patch at any depth (batch)")
	fl.BoolVar(&opts.TaskStats, "task-stats", false, "with --gold-dir: the gold patches' sizes per task")
	fl.StringVarP(&opts.Output, "output", "o", "", "batch or --task-stats: write the rows to FILE (.parquet, .arrow, .csv, .json)")
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table or json (batch and --task-stats: also csv)")
	fl.StringVar(&opts.HTML, "html", "", "one pair: also write a side-by-side HTML page to this file")
	fl.IntVar(&opts.Window, "window", 3, "line metrics: lines count as matching within ±window lines (≥ 0)")
	fl.StringVar(&opts.Benchmark, "benchmark", "rexbench", "--task-stats to .parquet/.arrow: the benchmark of the tasks table written")
	fl.BoolVar(&opts.SkipBad, "skip-bad", false, "batch: report bad or unmatched agent patches on stderr and leave them out")
	return cmd
}

// Modes of the command.
const (
	modePair = iota
	modeRepo
	modeRun
	modeBatch
	modeTaskStats
)

// mode returns the mode the flags select (validate has checked them).
func (o *Options) mode() int {
	switch {
	case o.TaskStats:
		return modeTaskStats
	case o.AgentDir != "" || o.GoldDir != "":
		return modeBatch
	case o.GoldFile != "" && o.Run == "":
		return modeBatch
	case o.Repo != "":
		return modeRepo
	case o.Run != "":
		return modeRun
	}
	return modePair
}

// validate checks the flag combinations.
func (o *Options) validate() error {
	if err := cmdutil.CheckFormat(o.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV); err != nil {
		return err
	}
	if o.Window < 0 {
		return cmdutil.Usagef("--window %d: want 0 or more lines", o.Window)
	}
	if o.Output != "" {
		if _, err := outputExt(o.Output); err != nil {
			return err
		}
	}
	set := map[string]bool{"--gold": o.Gold != "", "--agent": o.Agent != "", "--repo": o.Repo != "",
		"--base": o.Base != "", "--run": o.Run != "", "--gold-dir": o.GoldDir != "", "--agent-dir": o.AgentDir != "",
		"--task-stats": o.TaskStats, "--output": o.Output != "", "--html": o.HTML != "", "--skip-bad": o.SkipBad,
		"--gold-file": o.GoldFile != ""}
	only := func(what string, allowed ...string) error {
		ok := map[string]bool{}
		for _, a := range allowed {
			ok[a] = true
		}
		for _, f := range []string{"--gold", "--agent", "--repo", "--base", "--run", "--gold-dir", "--gold-file", "--agent-dir", "--task-stats", "--output", "--html", "--skip-bad"} {
			if set[f] && !ok[f] {
				return cmdutil.Usagef("%s cannot be used with %s", f, what)
			}
		}
		return nil
	}
	switch o.mode() {
	case modeTaskStats:
		if (o.GoldDir == "") == (o.GoldFile == "") {
			return cmdutil.Usagef("--task-stats needs --gold-dir DIR or --gold-file FILE (one of them)")
		}
		return only("--task-stats", "--task-stats", "--gold-dir", "--gold-file", "--output")
	case modeBatch:
		if o.GoldDir != "" && o.GoldFile != "" {
			return cmdutil.Usagef("--gold-dir and --gold-file both give the gold patches: use one")
		}
		if o.AgentDir == "" || o.GoldDir == "" && o.GoldFile == "" {
			return cmdutil.Usagef("batch mode needs both --gold-dir and --agent-dir (or --gold-file with --agent-dir; either with --task-stats)")
		}
		return only("--gold-dir/--agent-dir", "--gold-dir", "--gold-file", "--agent-dir", "--output", "--skip-bad")
	}
	if o.Format == cmdutil.FormatCSV {
		return cmdutil.Usagef("--format csv is for batch and --task-stats rows; one pair prints as table or json")
	}
	switch o.mode() {
	case modeRepo:
		if o.Base == "" || o.Gold == "" || o.Agent == "" {
			return cmdutil.Usagef("--repo needs --base, --gold and --agent revisions")
		}
		return only("--repo", "--repo", "--base", "--gold", "--agent", "--html")
	case modeRun:
		if o.Gold != "" && o.GoldFile != "" {
			return cmdutil.Usagef("--gold and --gold-file both give the gold patch: use one")
		}
		return only("--run", "--run", "--gold", "--gold-file", "--html")
	}
	if o.Gold == "" || o.Agent == "" {
		return cmdutil.Usagef("give --gold and --agent patch files, --repo with revisions, --run DIR, or --gold-dir (see --help)")
	}
	return only("--gold/--agent", "--gold", "--agent", "--html")
}

// run compares and prints.
func run(opts *Options) error {
	switch opts.mode() {
	case modeTaskStats:
		return runTaskStats(opts)
	case modeBatch:
		return runBatch(opts)
	}
	gold, agent, err := loadPair(opts)
	if err != nil {
		return err
	}
	c := patchdiff.Compare(gold.stats, agent.stats, opts.Window)
	if opts.HTML != "" {
		if err := cmdutil.WriteAtomic(opts.HTML, func(w io.Writer) error { return writeHTML(w, gold, agent, &c) }); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
	}
	if opts.Format == cmdutil.FormatJSON {
		return cmdutil.WriteJSON(opts.IO.Out, pairJSON(&c))
	}
	return writePairText(opts.IO.Out, &c)
}

// loadPair reads the gold and agent patches of a one-pair mode.
func loadPair(opts *Options) (gold, agent *patch, err error) {
	switch opts.mode() {
	case modeRepo:
		if gold, err = revPatch(opts.Repo, opts.Base, opts.Gold, "gold"); err != nil {
			return nil, nil, err
		}
		agent, err = revPatch(opts.Repo, opts.Base, opts.Agent, "agent")
		return gold, agent, err
	case modeRun:
		goldPath := opts.Gold
		if opts.GoldFile != "" {
			gf, err := readGoldFile(opts.GoldFile)
			if err != nil {
				return nil, nil, err
			}
			id := runInstance(opts.Run)
			ref, ok := gf.gold[id]
			if !ok {
				return nil, nil, gf.missing(id, "--run "+opts.Run)
			}
			if gold, err = ref.read(id, true); err != nil {
				return nil, nil, err
			}
		} else if goldPath == "" {
			goldPath = filepath.Join(opts.Run, runGoldPatch)
			if !isFile(goldPath) {
				return nil, nil, cmdutil.Usagef("--run %s: no %s in the run folder; pass the gold patch with --gold FILE", opts.Run, runGoldPatch)
			}
		}
		if gold == nil {
			if gold, err = readPatchFile(goldPath, "gold", true); err != nil {
				return nil, nil, err
			}
		}
		agent, err = readPatchFile(filepath.Join(opts.Run, runAgentPatch), "agent", true)
		return gold, agent, err
	}
	if gold, err = readPatchFile(opts.Gold, "gold", true); err != nil {
		return nil, nil, err
	}
	agent, err = readPatchFile(opts.Agent, "agent", true)
	return gold, agent, err
}

// num is a JSON number that is null when NaN.
func num(f float64) *float64 {
	if math.IsNaN(f) {
		return nil
	}
	return &f
}

// text formats a metric for tables: 4 decimals, "" when undefined.
func text(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', 4, 64)
}

// fileJSON is one element of the pair output's "files".
type fileJSON struct {
	Path         string  `json:"path"`
	OldPath      *string `json:"old_path"`
	Change       string  `json:"change"`
	GoldAdded    int     `json:"gold_added"`
	GoldDeleted  int     `json:"gold_deleted"`
	AgentAdded   int     `json:"agent_added"`
	AgentDeleted int     `json:"agent_deleted"`
	InGold       bool    `json:"in_gold"`
	InAgent      bool    `json:"in_agent"`
}

// pairOutput is the pair output's JSON object.
type pairOutput struct {
	Files         []fileJSON `json:"files"`
	FileRecall    *float64   `json:"file_recall"`
	FilePrecision *float64   `json:"file_precision"`
	F1            *float64   `json:"f1"`
	Jaccard       *float64   `json:"jaccard"`
	LineRecall    *float64   `json:"line_recall"`
	OverEditShare *float64   `json:"over_edit_share"`
}

func pairJSON(c *patchdiff.Comparison) pairOutput {
	out := pairOutput{Files: make([]fileJSON, len(c.Files)),
		FileRecall: num(c.FileRecall), FilePrecision: num(c.FilePrecision), F1: num(c.F1),
		Jaccard: num(c.Jaccard), LineRecall: num(c.LineRecall), OverEditShare: num(c.OverEditShare)}
	for i, r := range c.Files {
		f := fileJSON{Path: r.Path, Change: r.Change, GoldAdded: r.GoldAdded, GoldDeleted: r.GoldDeleted,
			AgentAdded: r.AgentAdded, AgentDeleted: r.AgentDeleted, InGold: r.InGold, InAgent: r.InAgent}
		if r.OldPath != "" {
			f.OldPath = &r.OldPath
		}
		out.Files[i] = f
	}
	return out
}

// displayPath is a row's path for tables and pages: "old -> new" for
// renames and copies.
func displayPath(r patchdiff.FileRow) string {
	if r.OldPath != "" {
		return r.OldPath + " -> " + r.Path
	}
	return r.Path
}

// summaryLines are the metrics with their counts, as label, value, detail.
func summaryLines(c *patchdiff.Comparison) [][3]string {
	val := func(f float64) string {
		if math.IsNaN(f) {
			return "null"
		}
		return text(f)
	}
	w := strconv.Itoa(c.Window)
	return [][3]string{
		{"file_recall", val(c.FileRecall), fmt.Sprintf("%d of %d gold files", c.CommonFiles, c.GoldFiles)},
		{"file_precision", val(c.FilePrecision), fmt.Sprintf("%d of %d agent files", c.CommonFiles, c.AgentFiles)},
		{"f1", val(c.F1), fmt.Sprintf("2·%d / (%d + %d)", c.CommonFiles, c.AgentFiles, c.GoldFiles)},
		{"jaccard", val(c.Jaccard), fmt.Sprintf("%d of %d files in either", c.CommonFiles, c.GoldFiles+c.AgentFiles-c.CommonFiles)},
		{"line_recall", val(c.LineRecall), fmt.Sprintf("%d of %d gold-changed lines within ±%s of an agent change", c.GoldLinesCovered, c.GoldLines, w)},
		{"over_edit_share", val(c.OverEditShare), fmt.Sprintf("%d of %d agent-changed lines outside gold ±%s", c.AgentLinesOver, c.AgentLines, w)},
	}
}

func writePairText(w io.Writer, c *patchdiff.Comparison) error {
	t := cmdutil.Table{Header: []string{"path", "change", "gold_added", "gold_deleted", "agent_added", "agent_deleted", "in_gold", "in_agent"}}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	count := func(in bool, n int) string {
		if !in {
			return ""
		}
		return strconv.Itoa(n)
	}
	for _, r := range c.Files {
		t.Rows = append(t.Rows, []string{displayPath(r), r.Change,
			count(r.InGold, r.GoldAdded), count(r.InGold, r.GoldDeleted),
			count(r.InAgent, r.AgentAdded), count(r.InAgent, r.AgentDeleted), yes(r.InGold), yes(r.InAgent)})
	}
	if len(c.Files) == 0 {
		fmt.Fprintln(w, "(both patches are empty)")
	} else if err := t.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	s := cmdutil.Table{}
	for _, l := range summaryLines(c) {
		s.Rows = append(s.Rows, []string{l[0], l[1], strings.TrimSpace(l[2])})
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		return err
	}
	// Table.WriteText writes the (empty) header line first.
	_, err := io.WriteString(w, strings.TrimPrefix(b.String(), "\n"))
	return err
}

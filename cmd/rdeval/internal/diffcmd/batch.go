package diffcmd

import (
	"errors"
	"fmt"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/buildinfo"
	"github.com/rdeval/rdeval/ingest"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rdeval/rdeval/analysis/patchdiff"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
)

// patchExt is the extension of gold and agent patch files in batch mode.
const patchExt = ".patch"

// taskSeps may follow a task name at the start of an agent patch's file
// name (cogs_run3.patch).
const taskSeps = "_-.@"

// listShown is how many bad or unmatched runs an error lists.
const listShown = 10

// readGoldDir returns the gold patch of each task in dir: task → its file,
// for every regular file (links followed) dir/<task>.patch.
func readGoldDir(dir string) (map[string]goldRef, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &cmdutil.BadInputError{Err: fmt.Errorf("--gold-dir: %w", err)}
	}
	gold := map[string]goldRef{}
	for _, e := range entries {
		name := e.Name()
		task, ok := strings.CutSuffix(name, patchExt)
		if !ok || task == "" || strings.HasPrefix(name, ".") {
			continue
		}
		if p := filepath.Join(dir, name); isFile(p) {
			gold[task] = goldRef{path: p}
		}
	}
	if len(gold) == 0 {
		return nil, &cmdutil.BadInputError{Err: fmt.Errorf("--gold-dir %s: no <task>%s files", dir, patchExt)}
	}
	return gold, nil
}

// agentRun is one agent patch found under --agent-dir.
type agentRun struct {
	runID string // path relative to the agent folder, without .patch
	task  string // "" when no gold task matches
	path  string
}

// findRuns lists the *.patch files under dir (skipping names that start
// with ".") and matches each to a gold task (see taskOf).
func findRuns(dir string, gold map[string]goldRef, gf *goldFile) ([]agentRun, error) {
	var runs []agentRun
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		swe := d.Name() == sweAgentPatch
		if d.IsDir() || (!strings.HasSuffix(d.Name(), patchExt) && !swe) || !isFile(p) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		id := strings.TrimSuffix(filepath.ToSlash(rel), patchExt)
		task := ""
		if swe {
			id = sweRunID(filepath.ToSlash(filepath.Dir(rel)))
			if gf != nil { // the instance folder is the task, in the file or not
				task = path.Base(id)
			}
		}
		if task == "" {
			task = taskOf(id, gold)
		}
		runs = append(runs, agentRun{runID: id, task: task, path: p})
		return nil
	})
	if err != nil {
		return nil, &cmdutil.BadInputError{Err: fmt.Errorf("--agent-dir: %w", err)}
	}
	if len(runs) == 0 {
		return nil, &cmdutil.BadInputError{Err: fmt.Errorf("--agent-dir %s: no *%s files", dir, patchExt)}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].runID < runs[j].runID })
	return runs, nil
}

// sweAgentPatch is the agent patch of a SWE-bench instance's log folder.
const sweAgentPatch = "patch.diff"

// sweRunID is the run id of a SWE-bench patch.diff in folder rel (relative
// to --agent-dir): rel without its "logs" folders, so that it is the
// swe-bench reader's run id (<submission>/logs/<instance> →
// <submission>/<instance>; <run_id>/<model>/<instance> as it is).
func sweRunID(rel string) string {
	var keep []string
	for _, e := range strings.Split(rel, "/") {
		if e != "logs" {
			keep = append(keep, e)
		}
	}
	return strings.Join(keep, "/")
}

// taskOf returns the gold task of the run whose id (slash-separated path
// without extension) is runID: the deepest folder named like a task, else
// the longest task that the file name equals or starts with followed by
// one of taskSeps; "" when none matches.
func taskOf(runID string, gold map[string]goldRef) string {
	dir, base := path.Split(runID)
	elems := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	for i := len(elems) - 1; i >= 0; i-- {
		if _, ok := gold[elems[i]]; ok && elems[i] != "" {
			return elems[i]
		}
	}
	best := ""
	for task := range gold {
		rest, ok := strings.CutPrefix(base, task)
		if ok && (rest == "" || strings.IndexByte(taskSeps, rest[0]) >= 0) && len(task) > len(best) {
			best = task
		}
	}
	return best
}

// parallel runs f(0) … f(n−1) on GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// readGolds parses the gold patches of the given tasks, in parallel. A bad
// gold patch is an error.
func readGolds(gold map[string]goldRef, tasks []string) (map[string]*patch, error) {
	ps := make([]*patch, len(tasks))
	errs := make([]error, len(tasks))
	parallel(len(tasks), func(i int) {
		ps[i], errs[i] = gold[tasks[i]].read(tasks[i], false)
	})
	out := make(map[string]*patch, len(tasks))
	for i, t := range tasks {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out[t] = ps[i]
	}
	return out, nil
}

// listed returns up to listShown items joined, with a count of the rest.
func listed(items []string) string {
	s := strings.Join(items[:min(len(items), listShown)], ", ")
	if len(items) > listShown {
		s += fmt.Sprintf(" and %d more", len(items)-listShown)
	}
	return s
}

// batchRow is one run compared with its task's gold patch.
type batchRow struct {
	runID, task string
	c           patchdiff.Comparison
}

// compareRuns compares each run's patch with its task's gold patch, in
// parallel. Bad agent patches are returned as errors in run order; their
// rows are left out.
func compareRuns(runs []agentRun, golds map[string]*patch, window int) ([]batchRow, []error) {
	rows := make([]batchRow, len(runs))
	errs := make([]error, len(runs))
	parallel(len(runs), func(i int) {
		r := runs[i]
		agent, err := readPatchFile(r.path, "agent", false)
		if err != nil {
			errs[i] = err
			return
		}
		rows[i] = batchRow{runID: r.runID, task: r.task, c: patchdiff.Compare(golds[r.task].stats, agent.stats, window)}
	})
	out := rows[:0]
	var bad []error
	for i := range runs {
		if errs[i] != nil {
			bad = append(bad, errs[i])
			continue
		}
		out = append(out, rows[i])
	}
	return out, bad
}

// goldSource reads the gold patches' source: --gold-file (gf set) or
// --gold-dir.
func goldSource(opts *Options) (map[string]goldRef, *goldFile, error) {
	if opts.GoldFile != "" {
		gf, err := readGoldFile(opts.GoldFile)
		if err != nil {
			return nil, nil, err
		}
		return gf.gold, gf, nil
	}
	gold, err := readGoldDir(opts.GoldDir)
	return gold, nil, err
}

func runBatch(opts *Options) error {
	gold, gf, err := goldSource(opts)
	if err != nil {
		return err
	}
	runs, err := findRuns(opts.AgentDir, gold, gf)
	if err != nil {
		return err
	}
	var unmatched, missing []string
	matched := runs[:0]
	for _, r := range runs {
		switch _, ok := gold[r.task]; {
		case r.task == "":
			unmatched = append(unmatched, r.runID)
		case !ok:
			missing = append(missing, r.runID)
		default:
			matched = append(matched, r)
		}
	}
	if len(unmatched) > 0 {
		tasks := sortedKeys(gold)
		msg := fmt.Sprintf("%d agent patches match no gold task: %s (gold tasks: %s; see --help for the matching rule)",
			len(unmatched), listed(unmatched), listed(tasks))
		if !opts.SkipBad {
			return &cmdutil.BadInputError{Err: errors.New(msg + "; --skip-bad leaves them out")}
		}
		opts.IO.Warnf("left out %s", msg)
	}
	if len(missing) > 0 {
		var nulls []string
		for _, id := range missing {
			if at, ok := gf.noneAt[path.Base(id)]; ok {
				nulls = append(nulls, fmt.Sprintf("%s (line %d)", path.Base(id), at))
			}
		}
		msg := fmt.Sprintf("%d agent patches are of instances without a gold patch in --gold-file %s (%d instances with one): %s",
			len(missing), opts.GoldFile, len(gold), listed(missing))
		if len(nulls) > 0 {
			msg += fmt.Sprintf("; null patch: %s", listed(nulls))
		}
		if !opts.SkipBad {
			return &cmdutil.BadInputError{Err: errors.New(msg + "; --skip-bad leaves them out")}
		}
		opts.IO.Warnf("left out %s", msg)
	}
	need := map[string]bool{}
	for _, r := range matched {
		need[r.task] = true
	}
	golds, err := readGolds(gold, sortedKeys(need))
	if err != nil {
		return err
	}
	rows, bad := compareRuns(matched, golds, opts.Window)
	if len(bad) > 0 {
		for _, e := range bad[:min(len(bad), listShown)] {
			opts.IO.Errorf("%v", e)
		}
		if len(bad) > listShown {
			opts.IO.Errorf("… and %d more bad agent patches", len(bad)-listShown)
		}
		if !opts.SkipBad {
			return &cmdutil.BadInputError{Err: fmt.Errorf("%d bad agent patches (see above); --skip-bad leaves them out", len(bad))}
		}
		opts.IO.Warnf("left out %d bad agent patches", len(bad))
	}
	if len(rows) == 0 {
		return &cmdutil.BadInputError{Err: errors.New("no run left to compare")}
	}
	return batchRows(rows).write(opts)
}

// batchRows lays out the batch output's columns.
func batchRows(rs []batchRow) *rows {
	f := func(name string, get func(c *patchdiff.Comparison) float64) column {
		return column{name: name, kind: colFloat, flt: func(i int) float64 { return get(&rs[i].c) }}
	}
	n := func(name string, get func(c *patchdiff.Comparison) int) column {
		return column{name: name, kind: colInt, num: func(i int) int { return get(&rs[i].c) }}
	}
	return &rows{n: len(rs), cols: []column{
		{name: "run_id", str: func(i int) string { return rs[i].runID }},
		{name: "task_id", str: func(i int) string { return rs[i].task }},
		f("file_recall", func(c *patchdiff.Comparison) float64 { return c.FileRecall }),
		f("file_precision", func(c *patchdiff.Comparison) float64 { return c.FilePrecision }),
		f("f1", func(c *patchdiff.Comparison) float64 { return c.F1 }),
		f("jaccard", func(c *patchdiff.Comparison) float64 { return c.Jaccard }),
		f("line_recall", func(c *patchdiff.Comparison) float64 { return c.LineRecall }),
		f("over_edit_share", func(c *patchdiff.Comparison) float64 { return c.OverEditShare }),
		n("agent_files", func(c *patchdiff.Comparison) int { return c.AgentFiles }),
		n("gold_files", func(c *patchdiff.Comparison) int { return c.GoldFiles }),
		n("agent_lines_changed", func(c *patchdiff.Comparison) int { return c.AgentLinesChanged }),
	}}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// runTaskStats writes the gold patches' sizes per task.
func runTaskStats(opts *Options) error {
	gold, _, err := goldSource(opts)
	if err != nil {
		return err
	}
	tasks := sortedKeys(gold)
	golds, err := readGolds(gold, tasks)
	if err != nil {
		return err
	}
	stats := make([]patchdiff.PatchStats, len(tasks))
	for i, t := range tasks {
		stats[i] = golds[t].stats
	}
	added := func(i int) int {
		n := 0
		for _, f := range stats[i].Files {
			n += f.Added
		}
		return n
	}
	deleted := func(i int) int {
		n := 0
		for _, f := range stats[i].Files {
			n += f.Deleted
		}
		return n
	}
	r := &rows{n: len(tasks), cols: []column{
		{name: "task_id", str: func(i int) string { return tasks[i] }},
		{name: "gold_files", kind: colList, list: func(i int) []string { return stats[i].Paths() }},
		{name: "gold_lines_added", kind: colInt, num: added},
		{name: "gold_lines_deleted", kind: colInt, num: deleted},
		{name: "gold_lines_changed", kind: colInt, num: func(i int) int { return stats[i].LinesChanged() }},
		{name: "gold_file_count", kind: colInt, num: func(i int) int { return len(stats[i].Files) }},
	}}
	if ext, err := outputExt(opts.Output); err == nil && (ext == ".parquet" || ext == ".arrow") {
		// An rdeval tasks table, so that ingest, inspect and regress --join
		// read it (gold_lines_added/deleted and the file count are in the
		// CSV and JSON forms).
		ts := make([]ingest.Task, len(tasks))
		for i, t := range tasks {
			ts[i] = ingest.Task{TaskID: t, Benchmark: opts.Benchmark, Family: ingest.Some(t),
				GoldFiles: stats[i].Paths(), GoldLinesChanged: ingest.Some(int64(stats[i].LinesChanged()))}
		}
		format := ingest.FormatParquet
		if ext == ".arrow" {
			format = ingest.FormatArrow
		}
		rec := ingest.TasksRecord(ts, buildinfo.Version())
		defer rec.Release()
		if err := ingest.WriteTableFile(opts.Output, rec, format, buildinfo.Version()); err != nil {
			return fmt.Errorf("-o %s: %w", opts.Output, err)
		}
		opts.IO.Infof("wrote %s (rdeval tasks table, %d tasks)", opts.Output, len(ts))
		return nil
	}
	return r.write(opts)
}

package study

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// SuccessParams are the choices of the RExBench success rates.
type SuccessParams struct {
	Boot int
	Seed uint64
	CI   float64
}

// SuccessCell is the rates of one framework × model × hint level.
type SuccessCell struct {
	Key     CellKey
	Tasks   []analysis.TaskRate
	Summary analysis.RateSummary
}

// SuccessResult is the success rates per cell (SortedCells order).
type SuccessResult struct {
	Cells   []SuccessCell
	Skipped int // runs without success information
}

// ErrNoOutcomes: no run carries success information.
var ErrNoOutcomes error = &cmdutil.BadInputError{Err: errors.New("no run has final_success, exec_success or an outcome: success rates need RExBench-style records")}

// Success computes final and execution success and file recall per cell
// and task, and their means over tasks with bootstrap intervals.
func Success(ds *ingest.Dataset, p SuccessParams) (SuccessResult, error) {
	cells, _, skipped := OutcomeCells(ds)
	res := SuccessResult{Skipped: skipped}
	if len(cells) == 0 {
		return res, ErrNoOutcomes
	}
	for _, k := range SortedCells(cells) {
		rates, sum, err := analysis.SuccessRates(cells[k], p.Boot, p.Seed, p.CI)
		if err != nil {
			return res, err
		}
		res.Cells = append(res.Cells, SuccessCell{Key: k, Tasks: rates, Summary: sum})
	}
	return res, nil
}

// Table is the result as rdeval success prints it (--format table or csv;
// the report's success.csv): one row per task and one "all" row per cell.
func (r *SuccessResult) Table() *cmdutil.Table {
	t := &cmdutil.Table{Header: []string{"framework", "model", "hint_level", "task_id", "runs", "final_success", "execution_success", "file_recall", "final_ci_low", "final_ci_high", "final_sd_trials"},
		Intervals: []cmdutil.Interval{{Estimate: "final_success", Low: "final_ci_low", High: "final_ci_high"}}}
	for _, c := range r.Cells {
		k, sum := c.Key, c.Summary
		for _, r := range c.Tasks {
			t.Rows = append(t.Rows, []string{k.Framework, k.Model, k.Hint, r.Task, strconv.Itoa(r.Runs), cmdutil.Fixed4(r.Final), cmdutil.Fixed4(r.Exec), cmdutil.Fixed4(r.Recall), "", "", ""})
		}
		t.Rows = append(t.Rows, []string{k.Framework, k.Model, k.Hint, "all", strconv.Itoa(sum.Runs), cmdutil.Fixed4(sum.Final), cmdutil.Fixed4(sum.Exec), cmdutil.Fixed4(sum.Recall), cmdutil.Fixed4(sum.FinalLow), cmdutil.Fixed4(sum.FinalHigh), cmdutil.Fixed4(sum.FinalSD)})
	}
	return t
}

// Headline is RExBench's Table 5 (arXiv 2506.22598): one row per framework ×
// model × hint level, with the mean over tasks of the per-task final
// success, execution success and file recall, the first two with their
// bootstrap intervals, and the sd across trials of the final success.
func (r *SuccessResult) Headline() *cmdutil.Table {
	t := &cmdutil.Table{Header: []string{"framework", "model", "hint_level", "tasks", "runs", "final_success", "final_ci_low", "final_ci_high", "execution_success", "execution_ci_low", "execution_ci_high", "file_recall"},
		Intervals: []cmdutil.Interval{{Estimate: "final_success", Low: "final_ci_low", High: "final_ci_high"}, {Estimate: "execution_success", Low: "execution_ci_low", High: "execution_ci_high"}}}
	for _, c := range r.Cells {
		k, s := c.Key, c.Summary
		t.Rows = append(t.Rows, []string{k.Framework, k.Model, k.Hint, strconv.Itoa(s.Tasks), strconv.Itoa(s.Runs), cmdutil.Fixed4(s.Final), cmdutil.Fixed4(s.FinalLow), cmdutil.Fixed4(s.FinalHigh),
			cmdutil.Fixed4(s.Exec), cmdutil.Fixed4(s.ExecLow), cmdutil.Fixed4(s.ExecHigh), cmdutil.Fixed4(s.Recall)})
	}
	return t
}

// CellKey is a framework (scaffold, else agent) × model × hint level.
type CellKey struct{ Framework, Model, Hint string }

// OutcomeCells groups the runs that carry success information by framework ×
// model × hint level, in run order, each with its task named by the one
// task key (TaskNames, as GroupRuns) and its file recall resolved;
// index[k][j] is the index in ds.Runs of cells[k][j]. skipped counts the
// runs without success information.
func OutcomeCells(ds *ingest.Dataset) (cells map[CellKey][]analysis.OutcomeRun, index map[CellKey][]int, skipped int) {
	gold := map[[2]string][]string{}
	for _, t := range ds.Tasks {
		if t.GoldFiles != nil {
			gold[[2]string{t.Benchmark, t.TaskID}] = t.GoldFiles
		}
	}
	name := TaskNames(ds)
	cells, index = map[CellKey][]analysis.OutcomeRun{}, map[CellKey][]int{}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if !r.FinalSuccess.Valid && !r.ExecSuccess.Valid && !r.Outcome.Valid {
			skipped++
			continue
		}
		rec := math.NaN()
		switch g, ok := gold[[2]string{r.Benchmark, r.TaskID}]; {
		case r.FileRecall.Valid:
			rec = r.FileRecall.V
		case ok && r.FilesEdited != nil:
			rec = analysis.FileRecall(r.FilesEdited, g)
		}
		k := CellKey{r.Scaffold.Or(r.Agent), r.Model.Or(""), r.HintLevel.Or("")}
		cells[k] = append(cells[k], analysis.OutcomeRun{Task: name(r.Benchmark, r.TaskID), Trial: int(r.Trial.Or(0)),
			Final: r.FinalSuccess.Or(false), Exec: r.ExecSuccess.Or(false), Recall: rec})
		index[k] = append(index[k], i)
	}
	return cells, index, skipped
}

// SortedCells orders the cells by framework, model and hint level
// (no_hints, hints, detailed_hints, then others).
func SortedCells(cells map[CellKey][]analysis.OutcomeRun) []CellKey {
	keys := make([]CellKey, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.Framework != b.Framework {
			return a.Framework < b.Framework
		}
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return hintOrder(a.Hint) < hintOrder(b.Hint) || hintOrder(a.Hint) == hintOrder(b.Hint) && a.Hint < b.Hint
	})
	return keys
}

func hintOrder(h string) int {
	switch h {
	case "no_hints":
		return 0
	case "hints":
		return 1
	case "detailed_hints":
		return 2
	}
	return 3
}

// AblationParams are the baseline hint level and the bootstrap of
// Ablation.
type AblationParams struct {
	Baseline string
	Boot     int
	Seed     uint64
	CI       float64
}

// AblationRow is one hint level against the baseline of its framework and
// model.
type AblationRow struct {
	Key CellKey
	analysis.RateDiff
}

// AblationResult is the rows in SortedCells order.
type AblationResult struct {
	Rows    []AblationRow
	Skipped int // runs without success information
}

// Ablation computes, for every framework × model × hint level other than
// the baseline, its final success minus the baseline's over their common
// tasks with the paired bootstrap interval (analysis.FinalRateDiff). A
// cell without the baseline, or without a common task, gives no row.
func Ablation(ds *ingest.Dataset, p AblationParams) (AblationResult, error) {
	cells, _, skipped := OutcomeCells(ds)
	res := AblationResult{Skipped: skipped}
	if len(cells) == 0 {
		return res, ErrNoOutcomes
	}
	for _, k := range SortedCells(cells) {
		if k.Hint == p.Baseline {
			continue
		}
		base, ok := cells[CellKey{Framework: k.Framework, Model: k.Model, Hint: p.Baseline}]
		if !ok {
			continue
		}
		d, err := analysis.FinalRateDiff(cells[k], base, p.Boot, p.Seed, p.CI)
		if err != nil {
			continue
		}
		res.Rows = append(res.Rows, AblationRow{Key: k, RateDiff: d})
	}
	if len(res.Rows) == 0 {
		return res, &cmdutil.BadInputError{Err: fmt.Errorf("no agent has both the baseline hint level %q and another level", p.Baseline)}
	}
	return res, nil
}

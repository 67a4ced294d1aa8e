package study

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// ParseGroup parses a group spec COLUMN=VALUE[;COLUMN=VALUE…] into the
// runs-column values a run must have to belong to the group.
func ParseGroup(s string) (map[string]string, error) {
	f := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, cmdutil.Usagef("group %q: want COLUMN=VALUE[;COLUMN=VALUE…]", s)
		}
		if !ingest.IsRunColumn(k) {
			return nil, cmdutil.Usagef("group %q: %q is not a runs column", s, k)
		}
		f[k] = strings.TrimSpace(v)
	}
	return f, nil
}

// Side collects the scores per task (GroupRuns) of the runs in group spec
// and works out k for the budget T (seconds): k = T / run length, which
// must be a whole number. Runs longer than T are read at T from their score
// logs (AtBudget, k = 1), as RE-Bench reads human runs at budgets under 8
// hours. Human runs without a time limit last humanLen seconds. It also
// returns the run length used.
func Side(ds *ingest.Dataset, spec string, budget, humanLen float64) (analysis.Side, float64, error) {
	f, _ := ParseGroup(spec)
	in := func(r *ingest.Run) bool { return InGroup(r, f) }
	lengths := map[float64]bool{}
	matched := 0
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if !in(r) {
			continue
		}
		matched++
		if !r.Score.Valid {
			continue
		}
		h := 0.0
		switch {
		case r.TimeLimitS.Valid && r.TimeLimitS.V > 0:
			h = float64(r.TimeLimitS.V)
		case r.Kind == "human":
			h = humanLen
		}
		lengths[h] = true
	}
	if matched == 0 {
		return analysis.Side{}, 0, &cmdutil.BadInputError{Err: fmt.Errorf("group %q matches no run", spec)}
	}
	if len(lengths) == 0 {
		return analysis.Side{}, 0, &cmdutil.BadInputError{Err: fmt.Errorf("group %q: no run has a score", spec)}
	}
	if len(lengths) != 1 {
		ls := make([]string, 0, len(lengths))
		for l := range lengths {
			ls = append(ls, strconv.FormatFloat(l, 'f', -1, 64))
		}
		sort.Strings(ls)
		return analysis.Side{}, 0, &cmdutil.BadInputError{Err: fmt.Errorf("group %q mixes run lengths %s s: add time_limit_s=… to it", spec, strings.Join(ls, ", "))}
	}
	var h float64
	for l := range lengths {
		h = l
	}
	if h <= 0 {
		return analysis.Side{}, 0, &cmdutil.BadInputError{Err: fmt.Errorf("group %q: its runs have no time limit", spec)}
	}
	score, long := Score, h > budget
	if long {
		// Read the runs at the budget from their score logs (k = 1), as
		// RE-Bench reads humans at budgets shorter than 8 hours.
		score = AtBudget(ds, budget)
	}
	tasks := Tasks(ds, Only(in, score))
	if long {
		if tasks == nil {
			return analysis.Side{}, 0, &cmdutil.BadInputError{Err: fmt.Errorf("group %q: its runs last %v s, longer than the budget %v s, and have no score logs to read them at the budget", spec, h, budget)}
		}
		h = budget
	}
	k := math.Round(budget / h)
	if k < 1 || math.Abs(float64(k*h)-budget) > 1e-9*budget {
		return analysis.Side{}, 0, &cmdutil.BadInputError{Err: fmt.Errorf("group %q: its runs last %v s, which does not divide the budget %v s", spec, h, budget)}
	}
	return analysis.Side{K: int(k), Tasks: tasks}, h, nil
}

// CompareParams are the choices of a comparison of group A with group B.
type CompareParams struct {
	A, B              string            // the groups, COLUMN=VALUE[;COLUMN=VALUE…] (ParseGroup)
	Budget            time.Duration     // the total time budget T
	HumanLen          time.Duration     // the run length of human runs without a time limit
	Mode              string            // "ratio" (or ""), "percentiles" or "lines"
	cmdutil.Bootstrap                   // mode ratio's (Boot 0: no interval)
	Interval          analysis.Interval // mode ratio's; the zero value is Percentile
}

// ComparePercentile is one shared task of mode percentiles: A's score@k
// and its percentile among B's final scores.
type ComparePercentile struct {
	Task                 string
	Estimate, Percentile float64
}

// CompareLine is one of B's reference lines of mode lines: the mean over
// its NTasks tasks of each task's Percentile-th percentile of its scores.
type CompareLine struct {
	Percentile, Value float64
	NTasks            int
}

// CompareResult is the comparison of one mode: Comparison (ratio),
// Percentiles and their mean MeanPercentile (percentiles), or Lines.
type CompareResult struct {
	Comparison     analysis.Comparison
	Percentiles    []ComparePercentile // in A's task order
	MeanPercentile float64
	Lines          []CompareLine
	Warnings       []error
}

// Compare compares group A with group B at the budget T, each side's
// value on a task being its score@k with k = T / its run length (Side).
// Mode ratio: analysis.Compare, the ratio EstimateA / EstimateB and the
// difference EstimateA − EstimateB of the sides' means of score@k over the
// shared tasks with at least k runs on each side, with paired bootstrap
// intervals (p.Interval). Mode percentiles: per shared task with k runs of
// A, the percentile of A's score@k among B's final scores
// (analysis.PercentileOfScore, scipy's kind "mean"), and their mean. Mode
// lines: the mean over B's tasks of each task's p10, p30, p50, p70 and p90
// of its scores (analysis.MeanOfPercentiles), B read by Side or, where
// Side refuses it, at its final scores (Score). B is read first, and
// its error returned first. Its errors are cmdutil.BadInputErrors.
func Compare(ds *ingest.Dataset, p CompareParams) (CompareResult, error) {
	var res CompareResult
	T, hl := p.Budget.Seconds(), p.HumanLen.Seconds()
	b, _, err := Side(ds, p.B, T, hl)
	if err != nil && p.Mode != "lines" {
		return res, err
	}
	if p.Mode == "lines" {
		if b.Tasks == nil {
			// lines need only B's final scores, whatever its run length
			f, _ := ParseGroup(p.B)
			if b.Tasks = Tasks(ds, Only(func(r *ingest.Run) bool { return InGroup(r, f) }, Score)); b.Tasks == nil {
				return res, &cmdutil.BadInputError{Err: fmt.Errorf("group %q matches no run with a score", p.B)}
			}
		}
		ps := []float64{10, 30, 50, 70, 90}
		for i, v := range analysis.MeanOfPercentiles(b.Tasks, ps) {
			res.Lines = append(res.Lines, CompareLine{Percentile: ps[i], Value: v, NTasks: len(b.Tasks)})
		}
		return res, nil
	}
	a, _, err := Side(ds, p.A, T, hl)
	if err != nil {
		return res, err
	}
	if p.Mode == "percentiles" {
		bt := map[string][]float64{}
		for _, x := range b.Tasks {
			bt[x.Task] = x.Scores
		}
		var sum float64
		for _, x := range a.Tasks {
			if ref, ok := bt[x.Task]; ok && len(x.Scores) >= a.K {
				est := analysis.ScoreAtK(x.Scores, a.K, x.Random)
				q := ComparePercentile{Task: x.Task, Estimate: est, Percentile: analysis.PercentileOfScore(ref, est)}
				sum += q.Percentile
				res.Percentiles = append(res.Percentiles, q)
			}
		}
		if len(res.Percentiles) == 0 {
			return res, &cmdutil.BadInputError{Err: fmt.Errorf("the groups share no task with enough runs")}
		}
		res.MeanPercentile = sum / float64(len(res.Percentiles))
		return res, nil
	}
	c, err := analysis.Compare(a, b, analysis.ScoreAtKOptions{Boot: p.Boot, Seed: p.Seed, Level: p.CI, Interval: p.Interval})
	if err != nil {
		return res, &cmdutil.BadInputError{Err: err}
	}
	res.Comparison, res.Warnings = c, c.Warnings
	return res, nil
}

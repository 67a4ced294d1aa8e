package study

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

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

// SideScores collects a group's final scores per task, ignoring run length.
func SideScores(ds *ingest.Dataset, spec string) (analysis.Side, float64, error) {
	f, _ := ParseGroup(spec)
	tasks := Tasks(ds, Only(func(r *ingest.Run) bool { return InGroup(r, f) }, Score))
	if tasks == nil {
		return analysis.Side{}, 0, &cmdutil.BadInputError{Err: fmt.Errorf("group %q matches no run with a score", spec)}
	}
	return analysis.Side{K: 1, Tasks: tasks}, 0, nil
}

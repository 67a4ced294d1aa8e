package study

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/rdeval/rdeval/ingest"
)

// MinRuns is the group size under which inspect warns: score@k and
// bootstrap CIs are unreliable with fewer runs per task.
const MinRuns = 5

// RunCount is the number of runs of one benchmark × agent × time limit × task.
type RunCount struct {
	Benchmark  string `json:"benchmark"`
	Agent      string `json:"agent"`
	TimeLimitS *int64 `json:"time_limit_s"`
	TaskID     string `json:"task_id"`
	Runs       int    `json:"runs"`
}

// Summary is what rdeval inspect reports (the JSON object of --format json).
type Summary struct {
	Rows         int              `json:"rows"`
	ScoreLogRows int              `json:"score_log_rows"`
	Tasks        int              `json:"tasks"`
	Groups       []RunCount       `json:"groups"`
	Nulls        map[string]int64 `json:"nulls"`
	Warnings     []string         `json:"warnings"`
}

// Summarize computes the summary of a dataset.
func Summarize(ds *ingest.Dataset) *Summary {
	s := &Summary{Rows: len(ds.Runs), ScoreLogRows: len(ds.Scores), Tasks: len(ds.Tasks), Nulls: map[string]int64{}, Groups: []RunCount{}}
	type key struct {
		b, a, t string
		tl      int64
		hasTL   bool
	}
	counts := map[key]int{}
	for _, r := range ds.Runs {
		counts[key{r.Benchmark, r.Agent, r.TaskID, r.TimeLimitS.V, r.TimeLimitS.Valid}]++
	}
	for k, n := range counts {
		g := RunCount{Benchmark: k.b, Agent: k.a, TaskID: k.t, Runs: n}
		if k.hasTL {
			tl := k.tl
			g.TimeLimitS = &tl
		}
		s.Groups = append(s.Groups, g)
	}
	sort.Slice(s.Groups, func(i, j int) bool {
		a, b := s.Groups[i], s.Groups[j]
		if a.Benchmark != b.Benchmark {
			return a.Benchmark < b.Benchmark
		}
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if ta, tb := tlKey(a.TimeLimitS), tlKey(b.TimeLimitS); ta != tb {
			return ta < tb
		}
		return a.TaskID < b.TaskID
	})
	rec := ingest.RunsRecord(ds.Runs, "")
	for i, f := range rec.Schema().Fields() {
		s.Nulls[f.Name] = int64(rec.Column(i).NullN())
	}
	rec.Release()
	small := 0
	var example string
	for _, g := range s.Groups {
		if g.Runs < MinRuns {
			if small == 0 {
				example = fmt.Sprintf("%s / %s / %s / %s: %d", g.Benchmark, g.Agent, TimeLimitText(g.TimeLimitS), g.TaskID, g.Runs)
			}
			small++
		}
	}
	if small > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d of %d groups (benchmark × agent × time limit × task) have fewer than %d runs, e.g. %s", small, len(s.Groups), MinRuns, example))
	}
	for _, w := range ds.Warnings {
		s.Warnings = append(s.Warnings, w.String())
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s
}

func tlKey(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// TimeLimitText is a time limit for a table: "-" for none.
func TimeLimitText(p *int64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatInt(*p, 10)
}

package analysis

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// refValues reads testdata/reference/compare_3a947ac.csv (written by
// compare.py: python 3.11.2, numpy 1.24.2, scipy 1.10.1) as kind,key → value.
func refValues(t *testing.T) map[string]float64 {
	out := map[string]float64{}
	for _, r := range readReference(t, "compare_3a947ac.csv") {
		out[r[0]+","+r[1]] = atof(t, r[2])
	}
	return out
}

// TestPercentileOfScore against scipy.stats.percentileofscore(kind="mean").
func TestPercentileOfScore(t *testing.T) {
	ref := refValues(t)
	n := 0
	for key, want := range ref {
		if !strings.HasPrefix(key, "percentileofscore,") {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(key, "percentileofscore,"), "|")
		var s []float64
		for _, f := range strings.Fields(parts[0]) {
			s = append(s, atof(t, f))
		}
		x := atof(t, parts[1])
		if got := PercentileOfScore(s, x); math.Abs(got-want) > 1e-12 {
			t.Errorf("PercentileOfScore(%v, %v) = %v, scipy %v", s, x, got, want)
		}
		n++
	}
	if n != 5 {
		t.Fatalf("%d reference cases", n)
	}
	if !math.IsNaN(PercentileOfScore([]float64{math.NaN()}, 1)) {
		t.Error("all-NaN sample")
	}
}

// TestMeanOfPercentilesMETR: the human reference lines on METR's RE-Bench
// human runs @3a947ac against numpy.percentile per task, averaged, to 1e-12.
func TestMeanOfPercentilesMETR(t *testing.T) {
	groups := metrRuns(t)
	ref := refValues(t)
	var tasks []TaskScores
	for task, s := range groups[[2]string{"human", "0"}] {
		tasks = append(tasks, TaskScores{Task: task, Scores: s})
	}
	ps := []float64{10, 30, 50, 70, 90}
	got := MeanOfPercentiles(tasks, ps)
	for i, p := range ps {
		want := ref["human_line,p"+strconv.Itoa(int(p))]
		if math.Abs(got[i]-want) > 1e-12 {
			t.Errorf("p%v: %v, numpy %v", p, got[i], want)
		}
	}
}

// TestCompareMETR: o1-preview at 2 h vs at 30 min (k = 1 each) on METR's
// data against numpy's paired hierarchical bootstrap (compare.py, B =
// 10,000, another generator): estimates to 1e-12; interval ends within
// 0.15 bootstrap sd (Monte Carlo error, as in TestScoreAtKBootstrapReference).
func TestCompareMETR(t *testing.T) {
	if testing.Short() {
		t.Skip("bootstrap reference comparison skipped in -short mode")
	}
	groups := metrRuns(t)
	ref := refValues(t)
	side := func(alias, tl string) Side {
		var ts []TaskScores
		for task, s := range groups[[2]string{alias, tl}] {
			ts = append(ts, TaskScores{Task: task, Scores: s})
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].Task < ts[j].Task })
		return Side{Tasks: ts, K: 1}
	}
	c, err := Compare(side("o1-preview", "7200"), side("o1-preview", "1800"), ScoreAtKOptions{Boot: 10000, Seed: 5, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tasks) != int(ref["paired,n_tasks"]) || math.Abs(c.EstimateA-ref["paired,estimate_a"]) > 1e-12 || math.Abs(c.EstimateB-ref["paired,estimate_b"]) > 1e-12 {
		t.Errorf("estimates %+v", c)
	}
	if math.Abs(c.Ratio-c.EstimateA/c.EstimateB) > 1e-15 || math.Abs(c.Diff-(c.EstimateA-c.EstimateB)) > 1e-15 {
		t.Errorf("ratio/diff %+v", c)
	}
	for _, x := range []struct {
		name    string
		got, sd float64
	}{
		{"ratio_low", c.RatioLow, ref["paired,ratio_sd"]}, {"ratio_high", c.RatioHigh, ref["paired,ratio_sd"]},
		{"diff_low", c.DiffLow, ref["paired,diff_sd"]}, {"diff_high", c.DiffHigh, ref["paired,diff_sd"]},
	} {
		if want := ref["paired,"+x.name]; math.Abs(x.got-want) > 0.15*x.sd {
			t.Errorf("%s: %.4f, numpy %.4f (tolerance %.4f)", x.name, x.got, want, 0.15*x.sd)
		}
	}
}

// TestCompareHand: A scores {1, 1} and {0.5, 0.5}, B {0.5, 0.5} and
// {0.25, 0.25} on the same two tasks: A/B = 0.75/0.375 = 2 in every
// replicate (constant per task, paired), diff 0.375 on average.
func TestCompareHand(t *testing.T) {
	a := Side{K: 1, Tasks: []TaskScores{{Task: "x", Scores: []float64{1, 1}}, {Task: "y", Scores: []float64{0.5, 0.5}}, {Task: "onlyA", Scores: []float64{9}}}}
	b := Side{K: 1, Tasks: []TaskScores{{Task: "x", Scores: []float64{0.5, 0.5}}, {Task: "y", Scores: []float64{0.25, 0.25}}}}
	c, err := Compare(a, b, ScoreAtKOptions{Boot: 500, Seed: 1, Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ratio != 2 || c.RatioLow != 2 || c.RatioHigh != 2 || c.Diff != 0.375 || len(c.Tasks) != 2 {
		t.Errorf("%+v", c)
	}
	if _, err := Compare(a, Side{K: 1, Tasks: []TaskScores{{Task: "z", Scores: []float64{1}}}}, ScoreAtKOptions{}); err == nil {
		t.Error("no shared task accepted")
	}
}

// TestCompareJackknifeBCa: compareJackknife's values are the differences
// and ratios of Compare on the tasks with one left out (computed here by
// calling Compare on each subset), and the BCa intervals use the same
// replicates as the percentile ones (same estimates, other quantile levels).
func TestCompareJackknifeBCa(t *testing.T) {
	ta := []TaskScores{{Task: "a", Scores: []float64{0.1, 0.5, 0.9}}, {Task: "b", Scores: []float64{1.2, 0.3}}, {Task: "c", Scores: []float64{0.7, 0.2, 0.4, 2}}}
	tb := []TaskScores{{Task: "a", Scores: []float64{0.2, 0.1}}, {Task: "b", Scores: []float64{0.5, 0.9}}, {Task: "c", Scores: []float64{0.3, 0.6}}}
	jd, jr := compareJackknife(ta, tb, 2, 1)
	for j := range ta {
		var sa, sb []TaskScores
		for i := range ta {
			if i != j {
				sa, sb = append(sa, ta[i]), append(sb, tb[i])
			}
		}
		c, err := Compare(Side{sa, 2}, Side{sb, 1}, ScoreAtKOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.Diff-jd[j]) > 1e-15 || math.Abs(c.Ratio-jr[j]) > 1e-15 {
			t.Errorf("task %d left out: %v %v, Compare %v %v", j, jd[j], jr[j], c.Diff, c.Ratio)
		}
	}
	p, err := Compare(Side{ta, 2}, Side{tb, 1}, ScoreAtKOptions{Boot: 500, Seed: 3, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Compare(Side{ta, 2}, Side{tb, 1}, ScoreAtKOptions{Boot: 500, Seed: 3, Level: 0.95, Interval: BCa})
	if err != nil {
		t.Fatal(err)
	}
	if p.Diff != b.Diff || p.Ratio != b.Ratio || (p.DiffLow == b.DiffLow && p.RatioHigh == b.RatioHigh) {
		t.Errorf("percentile %+v, BCa %+v", p, b)
	}
	t.Logf("percentile diff [%.4f, %.4f] ratio [%.4f, %.4f]; BCa diff [%.4f, %.4f] ratio [%.4f, %.4f]", p.DiffLow, p.DiffHigh, p.RatioLow, p.RatioHigh, b.DiffLow, b.DiffHigh, b.RatioLow, b.RatioHigh)
}

// TestCompareStudentizedReference: Compare's studentized intervals against
// the numpy bootstrap-t of testdata/reference/compare_stud.py on METR's
// runs (two comparisons, k 1 vs 1 and 2 vs 1): the jackknife standard
// errors over tasks to 1e-12, and the interval ends (B = 200,000 on each
// side, other streams) within 0.2 bootstrap sd of θ* (the log scale for
// the ratio's ends). With 7 tasks t* is lumpy (resamples repeat task
// multisets): at B = 20,000 the low log-ratio end of case a moved from
// −2.35 to −2.16 over six seeds, so the reference uses 200,000.
func TestCompareStudentizedReference(t *testing.T) {
	if testing.Short() {
		t.Skip("bootstrap reference comparison skipped in -short mode")
	}
	groups := metrRuns(t)
	side := func(key string, k int) Side {
		f := strings.Fields(key)
		var ts []TaskScores
		for task, s := range groups[[2]string{f[0], f[1]}] {
			ts = append(ts, TaskScores{Task: task, Scores: s})
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].Task < ts[j].Task })
		return Side{Tasks: ts, K: k}
	}
	for _, r := range readReference(t, "compare_stud_3a947ac.csv") {
		ka, _ := strconv.Atoi(r[2])
		kb, _ := strconv.Atoi(r[4])
		a, b := side(r[1], ka), side(r[3], kb)
		c, err := Compare(a, b, ScoreAtKOptions{Boot: 200000, Seed: 11, Level: 0.95, Interval: Studentized})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("case %s: warnings %v", r[0], c.Warnings) // a replicate that draws one task 7 times has se* = 0
		var ea, eb []float64
		var sa, sb float64
		for i := range a.Tasks {
			for j := range b.Tasks {
				if a.Tasks[i].Task == b.Tasks[j].Task {
					ea, eb = append(ea, ScoreAtK(a.Tasks[i].Scores, ka, false)), append(eb, ScoreAtK(b.Tasks[j].Scores, kb, false))
					sa, sb = sa+ea[len(ea)-1], sb+eb[len(eb)-1]
				}
			}
		}
		seD, seL := compareJackSE(ea, eb, sa, sb)
		n, _ := strconv.Atoi(r[5])
		if len(c.Tasks) != n || math.Abs(c.Diff-atof(t, r[6])) > 1e-12 || math.Abs(c.Ratio-atof(t, r[7])) > 1e-12 ||
			math.Abs(seD-atof(t, r[8])) > 1e-12 || math.Abs(seL-atof(t, r[9])) > 1e-12 {
			t.Errorf("case %s: %d tasks, diff %v ratio %v se %v %v; numpy %v", r[0], len(c.Tasks), c.Diff, c.Ratio, seD, seL, r[5:10])
		}
		dsd, lsd := atof(t, r[12]), atof(t, r[15])
		for _, x := range []struct {
			name      string
			got, want float64
			tol       float64
		}{
			{"diff_low", c.DiffLow, atof(t, r[10]), 0.2 * dsd}, {"diff_high", c.DiffHigh, atof(t, r[11]), 0.2 * dsd},
			{"log ratio_low", math.Log(c.RatioLow), math.Log(atof(t, r[13])), 0.2 * lsd}, {"log ratio_high", math.Log(c.RatioHigh), math.Log(atof(t, r[14])), 0.2 * lsd},
		} {
			t.Logf("case %s %s: %.4f, numpy %.4f (tolerance %.4f)", r[0], x.name, x.got, x.want, x.tol)
			if math.Abs(x.got-x.want) > x.tol {
				t.Errorf("case %s %s: %.4f, numpy %.4f (tolerance %.4f)", r[0], x.name, x.got, x.want, x.tol)
			}
		}
	}
}

// TestCompareStudentizedEdges: one or two shared tasks give the
// percentile intervals with a warning (with two every defined pivot is 0);
// a side whose mean is 0 keeps the studentized difference and the
// percentile ratio (NaN here, B's mean 0), with a warning; and a constant
// per-task ratio 2 gives [2, 2].
func TestCompareStudentizedEdges(t *testing.T) {
	opt := ScoreAtKOptions{Boot: 400, Seed: 1, Level: 0.9, Interval: Studentized}
	pct := ScoreAtKOptions{Boot: 400, Seed: 1, Level: 0.9}
	x := TaskScores{Task: "x", Scores: []float64{0.2, 0.6}}
	y := TaskScores{Task: "y", Scores: []float64{0.5, 0.1}}
	for _, ts := range [][]TaskScores{{x}, {x, y}} {
		b := Side{K: 1}
		for _, u := range ts {
			b.Tasks = append(b.Tasks, TaskScores{Task: u.Task, Scores: []float64{0.1, 0.3}})
		}
		c, err := Compare(Side{K: 1, Tasks: ts}, b, opt)
		p, _ := Compare(Side{K: 1, Tasks: ts}, b, pct)
		if err != nil || len(c.Warnings) != 1 || c.DiffLow != p.DiffLow || c.DiffHigh != p.DiffHigh || c.RatioLow != p.RatioLow || c.RatioHigh != p.RatioHigh {
			t.Errorf("%d tasks: %v %+v; percentile %+v", len(ts), err, c, p)
		}
	}
	a := Side{K: 1, Tasks: []TaskScores{x, y, {Task: "z", Scores: []float64{0.3}}}}
	zero := Side{K: 1, Tasks: []TaskScores{{Task: "x", Scores: []float64{0, 0}}, {Task: "y", Scores: []float64{0}}, {Task: "z", Scores: []float64{0, 0}}}}
	c, err := Compare(a, zero, opt)
	if err != nil || !(c.DiffLow <= c.Diff && c.Diff <= c.DiffHigh) || !math.IsNaN(c.RatioLow) || len(c.Warnings) == 0 {
		t.Errorf("B mean 0: %v %+v", err, c)
	}
	hand := Side{K: 1, Tasks: []TaskScores{{Task: "x", Scores: []float64{1, 1}}, {Task: "y", Scores: []float64{0.5, 0.5}}, {Task: "z", Scores: []float64{0.2, 0.4}}}}
	half := Side{K: 1, Tasks: []TaskScores{{Task: "x", Scores: []float64{0.5, 0.5}}, {Task: "y", Scores: []float64{0.25, 0.25}}, {Task: "z", Scores: []float64{0.1, 0.2}}}}
	c, err = Compare(hand, half, opt)
	if err != nil || math.Abs(c.RatioLow-2) > 1e-12 || math.Abs(c.RatioHigh-2) > 1e-12 || !(c.DiffLow < c.Diff && c.Diff < c.DiffHigh) {
		t.Errorf("constant ratio: %v %+v", err, c)
	}
}

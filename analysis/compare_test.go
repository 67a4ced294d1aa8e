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

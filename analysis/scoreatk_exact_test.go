package analysis

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// exactDistribution is the distribution of a task's replicate (its score@k
// row) that the outcome table encodes: probability per distinct row, each
// row keyed by its values to 1e−9. An alias column o is drawn with
// probability 1/K and keeps o with probability thresh[o]/2⁶⁴.
func exactDistribution(t *exactTable) map[string]float64 {
	k := float64(len(t.thresh))
	dist := map[string]float64{}
	for o, th := range t.thresh {
		keep := 1.0
		if th != math.MaxUint64 {
			keep = float64(th) / (1 << 64)
		}
		dist[rowKey(t.est[o*t.nk:(o+1)*t.nk])] += keep / k
		dist[rowKey(t.est[int(t.alias[o])*t.nk:(int(t.alias[o])+1)*t.nk])] += (1 - keep) / k
	}
	return dist
}

func rowKey(row []float64) string {
	s := ""
	for _, x := range row {
		s += fmt.Sprintf("%.9f ", x)
	}
	return s
}

// TestExactTableMatchesEnumeration: for small tasks (n ≤ 6, with ties, a
// random-selection task, k truncated and dropped), the outcome table's
// distribution of replicates equals the one found by listing all n^n
// resamples (equally likely) and computing score@k of each directly
// (ScoreAtK), to 1e−12 per row.
func TestExactTableMatchesEnumeration(t *testing.T) {
	ks := []int{1, 2, 3, 5, 8}
	for ci, c := range []struct {
		scores []float64
		random bool
		short  ShortTasks
	}{
		{[]float64{3, 3, 1}, false, DropShort},
		{[]float64{5, 5, 5, 2, 2, 0}, false, DropShort},
		{[]float64{5, 5, 5, 2, 2, 0}, false, TruncateShort},
		{[]float64{1, 1, 1, 1}, false, DropShort},
		{[]float64{0.4, 0.3, 0.2, 0.1, 0}, false, TruncateShort},
		{[]float64{2, 2, 1, 1, 1, 0}, true, DropShort},
		{[]float64{7}, false, TruncateShort},
	} {
		p := prepareTask(TaskScores{Scores: c.scores, Random: c.random}, ks, c.short, 10000)
		if p.exact == nil {
			t.Fatalf("case %d: no outcome table", ci)
		}
		n := len(p.s)
		want := map[string]float64{}
		idx := make([]int, n)
		res := make([]float64, n)
		total := int(math.Pow(float64(n), float64(n)))
		for range total {
			for j, i := range idx {
				res[j] = p.s[i]
			}
			row := make([]float64, len(ks))
			for i := range ks {
				if p.ks[i] != 0 {
					row[i] = ScoreAtK(res, p.ks[i], c.random)
				}
			}
			want[rowKey(row)] += 1 / float64(total)
			for j := range idx { // next tuple
				if idx[j]++; idx[j] < n {
					break
				}
				idx[j] = 0
			}
		}
		got := exactDistribution(p.exact)
		for key, pw := range want {
			if math.Abs(got[key]-pw) > 1e-12 {
				t.Errorf("case %d %v: row %s has probability %.15g, want %.15g", ci, c.scores, key, got[key], pw)
			}
		}
		for key, pg := range got {
			if _, ok := want[key]; !ok && pg > 1e-12 {
				t.Errorf("case %d %v: row %s (probability %g) is no resample's", ci, c.scores, key, pg)
			}
		}
	}
}

// TestExactTableDraws: draws through exactTable.draw follow the table's
// distribution (chi-squared over the outcomes of 5 runs in 3 groups, 21
// outcomes, 400,000 draws; the 0.999 quantile of χ²(20) is 45.31), the same
// stream gives the same draws, and a task of one distinct score uses no
// random numbers.
func TestExactTableDraws(t *testing.T) {
	ks := []int{1, 2, 4}
	p := prepareTask(TaskScores{Scores: []float64{3, 2, 2, 1, 1}}, ks, TruncateShort, 10000)
	if p.exact == nil || len(p.exact.thresh) != 21 {
		t.Fatalf("outcome table %v", p.exact)
	}
	want := exactDistribution(p.exact)
	const draws = 400000
	got := map[string]float64{}
	var g rand.PCG
	g.Seed(1, 2)
	for range draws {
		got[rowKey(p.exact.draw(&g))]++
	}
	var chi2 float64
	for key, pw := range want {
		d := got[key] - pw*draws
		chi2 += d * d / (pw * draws)
	}
	if len(got) > len(want) {
		t.Errorf("%d distinct rows drawn, %d possible", len(got), len(want))
	}
	// Rows can coincide (then fewer than 21 cells, fewer degrees of freedom,
	// and the bound is conservative).
	if chi2 > 45.31 {
		t.Errorf("chi-squared %.2f > 45.31 over %d rows", chi2, len(want))
	}
	var a, b rand.PCG
	a.Seed(3, 4)
	b.Seed(3, 4)
	for range 100 {
		if !slices.Equal(p.exact.draw(&a), p.exact.draw(&b)) {
			t.Fatal("same stream, other draws")
		}
	}

	one := prepareTask(TaskScores{Scores: []float64{0.5, 0.5, 0.5}}, ks, TruncateShort, 10000)
	g.Seed(5, 6)
	before := g
	row := one.exact.draw(&g)
	if g != before {
		t.Error("a task of one distinct score drew a random number")
	}
	if !slices.Equal(row, []float64{0.5, 0.5, 0.5}) {
		t.Errorf("row %v, want 0.5 everywhere", row)
	}
}

// TestExactOutcomes: the count of outcomes is C(n+m−1, m−1) (math/big's
// Binomial), and ok is false past the limit or past 64 bits.
func TestExactOutcomes(t *testing.T) {
	for _, c := range []struct{ n, m int }{{1, 1}, {40, 1}, {40, 2}, {40, 3}, {12, 12}, {94, 23}, {300, 300}} {
		want := new(big.Int).Binomial(int64(c.n+c.m-1), int64(c.m-1))
		got, ok := exactOutcomes(c.n, c.m, math.MaxUint64)
		if want.IsUint64() != ok || ok && got != want.Uint64() {
			t.Errorf("exactOutcomes(%d, %d) = %d, %v; want %v", c.n, c.m, got, ok, want)
		}
		if ok && got > 1 {
			if _, ok := exactOutcomes(c.n, c.m, got-1); ok {
				t.Errorf("exactOutcomes(%d, %d) with limit %d: ok", c.n, c.m, got-1)
			}
		}
	}
}

// TestExactTableLargeN: a task of 1,000 runs over two scores gets an
// outcome table whose probabilities are finite and sum to 1 (the partial
// products of multinomialPMF stay below 2^1000), with the mean of its
// replicates equal to the task's score@1 (the resample's expected mean is
// the sample mean); one of 1,500 runs gets none (there the products would
// overflow: with the bound lifted, the replicates' mean came out 0.164).
func TestExactTableLargeN(t *testing.T) {
	scores := func(n int) []float64 {
		s := make([]float64, n)
		for j := range s {
			s[j] = float64(j % 2)
		}
		return s
	}
	p := prepareTask(TaskScores{Scores: scores(1000)}, []int{1}, DropShort, 10000)
	if p.exact == nil {
		t.Fatal("1,000 runs over two scores: no outcome table")
	}
	var total, mean float64
	for key, pr := range exactDistribution(p.exact) {
		if math.IsNaN(pr) || math.IsInf(pr, 0) {
			t.Fatalf("probability %v", pr)
		}
		var x float64
		fmt.Sscan(key, &x)
		total += pr
		mean += pr * x
	}
	if math.Abs(total-1) > 1e-9 || math.Abs(mean-0.5) > 1e-9 {
		t.Errorf("probabilities sum to %v, mean replicate %v; want 1 and 0.5", total, mean)
	}
	if p := prepareTask(TaskScores{Scores: scores(1500)}, []int{1}, DropShort, 10000); p.exact != nil {
		t.Error("1,500 runs: outcome table built")
	}
}

// TestExactTablePays: a task of 40 runs over 3 scores (861 outcomes, six
// values of k) gets a table for 10,000 replicates, whose draws it saves,
// but not for 10 (building it, about 13,000 operations, would cost more
// than the 400 draws).
func TestExactTablePays(t *testing.T) {
	s := make([]float64, 40)
	for j := range s {
		s[j] = float64(j % 3)
	}
	ks := []int{1, 2, 4, 8, 16, 32}
	if p := prepareTask(TaskScores{Scores: s}, ks, DropShort, 10000); p.exact == nil {
		t.Error("B = 10,000: no outcome table")
	}
	if p := prepareTask(TaskScores{Scores: s}, ks, DropShort, 10); p.exact != nil {
		t.Error("B = 10: outcome table built")
	}
}

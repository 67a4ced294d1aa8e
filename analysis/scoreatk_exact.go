package analysis

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Replicates of a task with few possible resamples, drawn from their exact
// distribution.
//
// Score@k of a resample depends only on how many of its runs fall in each
// group of tied scores: with m distinct scores, on the counts C_0 … C_(m−1)
// (best first), which are Multinomial(n; a_0/n, …, a_(m−1)/n) for groups
// of a_g runs. There are C(n+m−1, m−1) possible count vectors; where that is
// small (one when every run has the same score, n+1 for two scores), the
// task keeps each outcome's score@k for every k and its probability
//
//	Pr(C) = n!/(C_0!⋯C_(m−1)!) · Π_g (a_g/n)^(C_g)
//
// and a replicate is one draw from that distribution by Walker's alias
// method (Vose's construction: M. D. Vose, "A linear algorithm for
// generating random numbers with a given distribution", IEEE TSE 17(9),
// 1991): one 64-bit output x of the task's stream, outcome column
// o = ⌊x·K/2⁶⁴⌋, kept when the low 64 bits of x·K are below the column's
// threshold and replaced by its alias otherwise. That is the same
// distribution as n uniform draws (scoreatk_replicate.go) up to the
// rounding of the probabilities to float64 and a bias below K/2⁶⁴, and it
// costs one output instead of n draws. METR's RE-Bench file has 30 such
// tasks of 76 (525 of 1,808 runs).
//
// The probabilities are products and quotients only (no exp or log, whose
// last bits differ between platforms' math libraries), so the tables, and
// the replicates, have the same bits on every machine.

// exactTableBytes bounds a task's outcome table (score@k rows and alias
// columns): 256 KiB, which stays in a core's L2 cache.
const exactTableBytes = 256 << 10

// exactMaxRuns bounds n for an outcome table: multinomialPMF's partial
// products reach C(n, c)·(a_g/n)^c ≤ 2ⁿ, finite in float64 for n ≤ 1,023.
const exactMaxRuns = 1000

// exactTable is a task's outcome distribution for the bootstrap.
type exactTable struct {
	nk     int       // row length: the number of Ks entries
	est    []float64 // est[o·nk + i] = score@k of outcome o at Ks[i] (0 for a dropped k)
	thresh []uint64  // alias method: column o keeps o when the fraction is below thresh[o]
	alias  []uint32  // … and takes alias[o] otherwise
}

// exactOutcomes returns C(n+m−1, m−1), the number of count vectors of n
// runs over m groups, or ok = false when it exceeds limit.
func exactOutcomes(n, m int, limit uint64) (uint64, bool) {
	// C(n+m−1, j) for j = 1 … m−1 by c·(n+j)/j, exact in integers.
	c := uint64(1)
	for j := 1; j < m; j++ {
		hi, lo := bits.Mul64(c, uint64(n+j))
		if hi >= uint64(j) { // the quotient needs more than 64 bits
			return 0, false
		}
		if c, _ = bits.Div64(hi, lo, uint64(j)); c > limit {
			return 0, false
		}
	}
	return c, true
}

// newExactTable builds p's outcome table for a bootstrap of boot
// replicates, or returns nil when it would exceed exactTableBytes, p has
// more than exactMaxRuns runs, or building it would cost more than it
// saves: about K·(m + nk·(m−1)) operations against about three per draw
// saved, boot·n. p has its ks, g and groups set (prepareTask).
func newExactTable(p preparedTask, boot int) *exactTable {
	n, nk, m := len(p.s), len(p.ks), len(p.gs)
	if n > exactMaxRuns {
		return nil
	}
	perOutcome := uint64(8*nk + 8 + 4)
	k, ok := exactOutcomes(n, m, exactTableBytes/perOutcome)
	if !ok || float64(k)*float64(m+nk*(m-1)) > 3*float64(boot)*float64(n) {
		return nil
	}
	t := &exactTable{nk: nk, est: make([]float64, int(k)*nk)}
	size := make([]int, m) // runs per group, a_g
	for _, g := range p.group {
		size[g]++
	}
	prob := make([]float64, 0, k)
	exactOutcomeWalk(n, m, func(counts []int) {
		o := len(prob)
		prob = append(prob, multinomialPMF(counts, size, n))
		p.outcomeScores(counts, t.est[o*nk:(o+1)*nk])
	})
	t.thresh, t.alias = aliasTables(prob)
	return t
}

// multinomialPMF is n!/(C_0!⋯C_(m−1)!) · Π_g (a_g/n)^(C_g) for counts C and
// group sizes a, as a product of factors (n−i)·(a_g/n)/j. Its partial
// products stay below 2ⁿ (hence exactMaxRuns) and above the result, which
// underflows to 0 only for outcomes less likely than about 1e−308.
func multinomialPMF(counts, size []int, n int) float64 {
	p, left := 1.0, n
	for g, c := range counts {
		pi := float64(size[g]) / float64(n)
		for j := 1; j <= c; j++ {
			p *= float64(left) * pi / float64(j)
			left--
		}
	}
	return p
}

// outcomeScores writes score@k for every Ks entry of a resample with the
// given counts over p's groups into row: s_1 + Σ_v G_k(P_v)·drop[v] with
// P_v the runs of the resample in groups 0..v (scoreatk_ties.go), or the
// resample's mean for a random-selection task.
func (p *preparedTask) outcomeScores(counts []int, row []float64) {
	clear(row)
	if p.random {
		var sum float64
		for v, c := range counts {
			sum += float64(float64(c) * p.gs[v])
		}
		mean := sum / float64(len(p.s))
		for i, k := range p.ks {
			if k != 0 {
				row[i] = mean
			}
		}
		return
	}
	for i, gk := range p.g {
		if gk == nil {
			continue
		}
		e, at := p.s[0], 0
		for v, d := range p.drop {
			at += counts[v]
			if at < len(gk) {
				e += float64(gk[at] * d)
			}
		}
		row[i] = e
	}
}

// aliasTables returns the alias method's thresholds and aliases for the
// weights w (not all zero), by Vose's construction in a fixed order. The
// threshold of column o is its kept share of 2⁶⁴ (MaxUint64 for all).
func aliasTables(w []float64) ([]uint64, []uint32) {
	k := len(w)
	var total float64
	for _, x := range w {
		total += x
	}
	scaled := make([]float64, k)
	var small, large []int
	for o, x := range w {
		scaled[o] = x * float64(k) / total
		if scaled[o] < 1 {
			small = append(small, o)
		} else {
			large = append(large, o)
		}
	}
	share := make([]float64, k)
	alias := make([]uint32, k)
	for o := range alias {
		alias[o] = uint32(o)
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small, large = small[:len(small)-1], large[:len(large)-1]
		share[s], alias[s] = scaled[s], uint32(l)
		scaled[l] = (scaled[l] + scaled[s]) - 1
		if scaled[l] < 1 {
			small = append(small, l)
		} else {
			large = append(large, l)
		}
	}
	for _, o := range append(small, large...) {
		share[o] = 1 // what is left is 1 up to rounding
	}
	thresh := make([]uint64, k)
	for o, f := range share {
		switch {
		case f >= 1:
			thresh[o] = math.MaxUint64
		case f > 0:
			thresh[o] = uint64(f * (1 << 64))
		}
	}
	return thresh, alias
}

// draw returns the row of one outcome drawn with g's next output.
func (t *exactTable) draw(g *rand.PCG) []float64 {
	o := t.drawIndex(g)
	return t.est[o*t.nk : (o+1)*t.nk]
}

// drawIndex returns the index of one outcome drawn with g's next output
// (the order of newExactTable's walk, which exactOutcomeWalk repeats).
func (t *exactTable) drawIndex(g *rand.PCG) int {
	o := 0
	if k := uint64(len(t.thresh)); k > 1 {
		hi, lo := bits.Mul64(g.Uint64(), k)
		o = int(hi)
		if lo >= t.thresh[o] {
			o = int(t.alias[o])
		}
	}
	return o
}

// exactOutcomeWalk calls f with the count vector of every outcome of n
// runs over m groups, in the order newExactTable numbers them.
func exactOutcomeWalk(n, m int, f func(counts []int)) {
	counts := make([]int, m)
	var walk func(g, left int)
	walk = func(g, left int) {
		if g == m-1 {
			counts[g] = left
			f(counts)
			return
		}
		for c := left; c >= 0; c-- {
			counts[g] = c
			walk(g+1, left-c)
		}
	}
	walk(0, n)
}

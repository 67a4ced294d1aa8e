package analysis

import (
	"math/bits"
	"math/rand/v2"
)

// One bootstrap replicate of one task's score@k, for every k at once.
//
// A resample of the n runs (with replacement) is a vector of counts c_j
// over the runs sorted best first, s_1 ≥ … ≥ s_n. Sorted, the resample
// holds s_j at positions P_j+1 … P_j+c_j, where P_j = c_1 + … + c_(j−1).
// Score@k of the resample is Σ_m w_k(m)·r_(m) with the weights of
// ScoreAtKWeights, that is Σ_j s_j·(G_k(P_j) − G_k(P_(j+1))) with
//
//	G_k(P) = C(n−P, k)/C(n, k)
//
// the chance that k positions drawn from n all lie after the first P (1 −
// G_k is the cumulative weight). Summed by parts, with G_k(P_1) = G_k(0) = 1
// and G_k(P_(n+1)) = G_k(n) = 0,
//
//	score@k = s_1 + Σ_(j=2..n) G_k(P_j)·(s_j − s_(j−1))
//	        = s_1 + Σ_(P=0..n−k) G_k(P)·D(P),  D(P) = Σ_(j ≥ 2: P_j = P) (s_j − s_(j−1))
//
// since G_k(P) = 0 for P > n−k. A tie (s_j = s_(j−1)) adds nothing, so
// draws are counted per group of tied scores (m groups, m−1 drops between
// them), and D depends on the resample but not on k: a replicate costs n
// draws, m additions to build D, and one contiguous dot product per k
// (dot: gonum's floats.Dot, vectorised on amd64, summed in the same order
// everywhere), with no sort and no
// data-dependent branch; or, for tasks with many ties, one table row per
// drop (scoreatk_ties.go); or, for tasks with few possible resamples, one
// draw from their exact distribution (scoreatk_exact.go).

// preparedTask is a task sorted once for the bootstrap.
type preparedTask struct {
	s      []float64 // scores, best first
	random bool
	w      float64
	ks     []int       // effective k per Ks entry; 0 = dropped
	g      [][]float64 // per Ks entry: G_k(P) for P = 0..n−k (nil: dropped or random)
	group  []int32     // group[j] = index of run j's distinct score (0 = best)
	gs     []float64   // gs[v] = score of group v
	drop   []float64   // drop[v] = gs[v+1] − gs[v] < 0, v = 0..m−2
	ties   *tieTables  // set when the sum over drops is cheaper (see tieTables)
	exact  *exactTable // set when the task has few possible resamples (see exactTable)
	thresh uint64      // 2¹⁶ mod n (n ≤ 2¹²), drawCounts's rejection bound
}

// prepareTask sorts t's scores, groups the tied ones and tabulates G_k for
// every k in ks: all a bootstrap of boot replicates needs (preparePoint is
// enough for the point estimates).
func prepareTask(t TaskScores, ks []int, short ShortTasks, boot int) preparedTask {
	p := preparePoint(t, ks, short)
	n := len(p.s)
	p.g = make([][]float64, len(ks))
	for i, k := range p.ks {
		if k != 0 && !p.random {
			p.g[i] = survivalTable(n, k)
		}
	}
	p.group = make([]int32, n)
	for j, x := range p.s {
		if j == 0 || x != p.s[j-1] {
			if j > 0 {
				p.drop = append(p.drop, x-p.s[j-1])
			}
			p.gs = append(p.gs, x)
		}
		p.group[j] = int32(len(p.gs) - 1)
	}
	p.thresh = thresh16(n)
	if p.exact = newExactTable(p, boot); p.exact == nil && !p.random && tieTablesPay(p) {
		p.ties = newTieTables(p)
	}
	return p
}

// preparePoint sorts t's scores and sets the effective k for every k in ks
// (0 where the task is dropped).
func preparePoint(t TaskScores, ks []int, short ShortTasks) preparedTask {
	p := preparedTask{s: sortedDesc(t.Scores), random: t.Random, w: t.Weight}
	if p.w == 0 {
		p.w = 1
	}
	n := len(p.s)
	p.ks = make([]int, len(ks))
	for i, k := range ks {
		switch {
		case k <= n:
			p.ks[i] = k
		case short == TruncateShort || p.random:
			// A blind pick's value is the mean whatever k is, so a
			// random-selection task is never short of runs.
			p.ks[i] = n
		}
	}
	return p
}

// survivalTable returns G_k(P) = C(n−P, k)/C(n, k) for P = 0..n−k, by the
// ratio G_k(P+1) = G_k(P)·(n−P−k)/(n−P) from G_k(0) = 1 (no large
// binomials).
func survivalTable(n, k int) []float64 {
	g := make([]float64, n-k+1)
	g[0] = 1
	for q := 0; q < n-k; q++ {
		g[q+1] = g[q] * float64(n-q-k) / float64(n-q)
	}
	return g
}

// replicateScratch is a worker's reusable memory for replicate.
type replicateScratch struct {
	counts []int32   // per group; zero between replicates: each user clears what it read
	d      []float64 // D(P), P = 0..n
	pre    []int32   // pre[v] = runs of the resample in groups 0..v (tieTables path)
}

// replicate draws one resample of p's runs from the stream PCG(seed, stream)
// and adds w·(its score@k) to sums[i] for every Ks entry i the task is in
// (w = p.w; nothing for a dropped k). Each product is rounded before it is
// added (float64(x*y)), so no platform fuses it into a multiply-add and
// the sums have the same bits everywhere.
func (p *preparedTask) replicate(sc *replicateScratch, seed, stream uint64, sums []float64) {
	n, m, w := len(p.s), len(p.gs), p.w
	var g rand.PCG
	g.Seed(seed, stream)
	if p.exact != nil {
		row := p.exact.draw(&g) // 0 at a dropped k
		sums = sums[:len(row)]
		for i, e := range row {
			sums[i] += float64(w * e)
		}
		return
	}
	if cap(sc.counts) < n {
		sc.counts = make([]int32, n)
		sc.d = make([]float64, n+1)
		sc.pre = make([]int32, n)
	}
	counts := sc.counts[:m]
	drawCounts(&g, p.group, p.thresh, counts)

	if p.random {
		var mean float64
		for v, c := range counts {
			mean += float64(float64(c) * p.gs[v])
			counts[v] = 0
		}
		mean /= float64(n)
		for i, k := range p.ks {
			if k != 0 {
				sums[i] += float64(w * mean)
			}
		}
		return
	}
	if p.ties != nil {
		p.ties.replicate(p.s[0], w, counts, sc.pre[:m], sums)
		return
	}

	d := sc.d[:n+1]
	clear(d)
	at := counts[0]
	counts[0] = 0
	for v, dv := range p.drop {
		d[at] += dv
		at += counts[v+1]
		counts[v+1] = 0
	}
	first := p.s[0]
	for i, gk := range p.g {
		if gk != nil {
			sums[i] += float64(w * (first + dot(gk, d[:len(gk)])))
		}
	}
}

// thresh16 is drawCounts's rejection bound for n runs: 2¹⁶ mod n for
// n ≤ 2¹² (the 16-bit words), 0 above (drawCountsWide computes its own).
func thresh16(n int) uint64 {
	if n > 1<<12 {
		return 0
	}
	return (1<<16 - uint64(n)) % uint64(n)
}

// drawCounts adds n = len(group) uniform draws from [0, n) to counts, a
// draw j counting in counts[group[j]]: a bootstrap resample as counts per
// group of tied scores. For n ≤ 2¹² each 64-bit output of g is cut
// into four 16-bit words, low bits first (32-bit words for larger n, whole
// outputs from 2³² on); a word w of b bits becomes the draw ⌊w·n/2^b⌋
// unless the low b bits of w·n are below 2^b mod n (Lemire, "Fast random
// integer generation in an interval", ACM TOMACS 2019). That is exact; a
// word is rejected with probability below n/2^b, and is then replaced by
// words of a fresh output (redraw16) before the next word is used.
func drawCounts(g *rand.PCG, group []int32, thresh uint64, counts []int32) {
	n := uint64(len(group))
	if n > 1<<12 {
		drawCountsWide(g, group, counts)
		return
	}
	draw := func(w uint64) {
		m := w * n
		if m&0xffff < thresh {
			m = redraw16(g, n, thresh)
		}
		counts[group[m>>16]]++
	}
	i := uint64(0)
	for ; i+4 <= n; i += 4 {
		x := g.Uint64()
		draw(x & 0xffff)
		draw(x >> 16 & 0xffff)
		draw(x >> 32 & 0xffff)
		draw(x >> 48)
	}
	if i < n {
		x := g.Uint64()
		for ; i < n; i++ {
			draw(x & 0xffff)
			x >>= 16
		}
	}
}

// redraw16 returns w·n for the first accepted 16-bit word of fresh outputs
// of g (see drawCounts).
func redraw16(g *rand.PCG, n, thresh uint64) uint64 {
	for {
		x := g.Uint64()
		for range 4 {
			if m := (x & 0xffff) * n; m&0xffff >= thresh {
				return m
			}
			x >>= 16
		}
	}
}

// drawCountsWide is drawCounts for n > 2¹²: 32-bit words below 2³², whole
// 64-bit outputs from there on.
func drawCountsWide(g *rand.PCG, group []int32, counts []int32) {
	n := uint64(len(group))
	if n >= 1<<32 {
		for range n {
			counts[group[boundedDraw(g, n)]]++
		}
		return
	}
	thresh := (1<<32 - n) % n // 2³² mod n
	for left := len(group); left > 0; {
		x := g.Uint64()
		if m := (x & 0xffffffff) * n; m&0xffffffff >= thresh {
			counts[group[m>>32]]++
			if left--; left == 0 {
				break
			}
		}
		if m := (x >> 32) * n; m&0xffffffff >= thresh {
			counts[group[m>>32]]++
			left--
		}
	}
}

// boundedDraw returns a uniform integer in [0, n) from g by Lemire's
// method on whole 64-bit outputs.
func boundedDraw(g *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(g.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(g.Uint64(), n)
		}
	}
	return hi
}

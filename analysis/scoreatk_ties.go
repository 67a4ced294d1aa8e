package analysis

// Score@k of a replicate as a sum over the drops between distinct scores.
//
// In the sum by parts of scoreatk_replicate.go,
//
//	score@k = s_1 + Σ_(j=2..n) G_k(P_j)·(s_j − s_(j−1)),
//
// a tie contributes nothing: only the m−1 runs j where the score drops
// (s_j < s_(j−1), the first run of each distinct score after the best)
// count. Run scores are often tied (in METR's RE-Bench file, 1,024 of
// 1,808 runs repeat a score of their task), so the sum can skip D(P) and
// the k dot products: with P_j from the prefix sums of the counts, each
// drop reads one row of a table of G_k(P) for the task's values of k
// (at most tieCols of them) and adds that row times the drop. A replicate
// then costs n additions for the prefix sums and m−1 row updates.
//
// Each product is rounded to float64 before it is added (float64(x*y)),
// which keeps every compiler from fusing it into a multiply-add (the Go
// spec allows fusion otherwise; GOAMD64=v3 and arm64 builds do it), so the
// result has the same bits on every platform.

// tieCols is the most values of k one table row holds.
const tieCols = 8

// tieTables is a task's table for the sum over drops.
type tieTables struct {
	drop  []float64 // the task's drops between distinct scores (preparedTask.drop)
	width int       // row length: 4, 6 or tieCols, the least that holds col
	rows  []float64 // rows[P·width + a] = G_k(P) for k = ks[col[a]], 0 for P > n−k; P = 0..n
	col   []int     // Ks index of each table column
}

// tieTablesPay says whether the sum over drops costs less than D(P) and the
// dot products for p: about two operations per table column per drop
// against one per run to clear D(P), half an operation per term of the dot
// products (two lanes), and a call per k (both build the counts per group
// alike). Timed per METR task and for tasks without ties, both ways, this
// picks within 1 % of the faster way's total time; the choice changes
// rounding only.
func tieTablesPay(p preparedTask) bool {
	n, cols, terms := len(p.s), 0, 0
	for _, gk := range p.g {
		if gk != nil {
			cols++
			terms += len(gk)
		}
	}
	if cols == 0 || cols > tieCols {
		return false
	}
	return 2*len(p.drop)*rowWidth(cols) <= n+terms/2+15*cols
}

// rowWidth is the row length of a table of cols columns: 4, 6 or tieCols.
func rowWidth(cols int) int {
	switch {
	case cols <= 4:
		return 4
	case cols <= 6:
		return 6
	}
	return tieCols
}

// newTieTables builds p's table (p not random, 1 to tieCols values of k
// kept); nil otherwise.
func newTieTables(p preparedTask) *tieTables {
	n := len(p.s)
	t := &tieTables{}
	for i, gk := range p.g {
		if gk != nil {
			t.col = append(t.col, i)
		}
	}
	if p.random || len(t.col) == 0 || len(t.col) > tieCols {
		return nil
	}
	t.drop = p.drop
	t.width = rowWidth(len(t.col))
	t.rows = make([]float64, (n+1)*t.width)
	for a, i := range t.col {
		for P, g := range p.g[i] {
			t.rows[P*t.width+a] = g
		}
	}
	return t
}

// replicate adds w·(score@k of the resample with the given counts) to
// sums[i] for every Ks entry i in the table, counts per group of tied
// scores, best first, and clears counts. best is s_1; pre is scratch of
// len(counts).
func (t *tieTables) replicate(best, w float64, counts, pre []int32, sums []float64) {
	var at int32
	for v, c := range counts {
		at += c
		pre[v] = at // runs in groups 0..v: P of drop v
		counts[v] = 0
	}
	pre = pre[:len(t.drop)]
	var e [tieCols]float64
	switch t.width {
	case 4:
		e[0], e[1], e[2], e[3] = sumDrops4(t.rows, t.drop, pre)
	case 6:
		e[0], e[1], e[2], e[3], e[4], e[5] = sumDrops6(t.rows, t.drop, pre)
	default:
		e = sumDrops8(t.rows, t.drop, pre)
	}
	for a, i := range t.col {
		sums[i] += float64(w * (best + e[a]))
	}
}

// sumDrops4, sumDrops6 and sumDrops8 return Σ_v rows[P_v·w + a]·drop[v]
// for each column a of rows of width w = 4, 6, 8, with P_v = pre[v].
// One function per width keeps the sums in registers (a loop over a
// would keep them in memory, and eight sums with their products do not fit
// in the sixteen float registers of amd64: width 8 is two passes of four).
func sumDrops4(rows []float64, drop []float64, pre []int32) (e0, e1, e2, e3 float64) {
	return sumDrops4Of(rows, 4, 0, drop, pre)
}

func sumDrops6(rows []float64, drop []float64, pre []int32) (e0, e1, e2, e3, e4, e5 float64) {
	for v, P := range pre {
		r := rows[int(P)*6:][:6]
		d := drop[v]
		e0 += float64(r[0] * d)
		e1 += float64(r[1] * d)
		e2 += float64(r[2] * d)
		e3 += float64(r[3] * d)
		e4 += float64(r[4] * d)
		e5 += float64(r[5] * d)
	}
	return
}

func sumDrops8(rows []float64, drop []float64, pre []int32) (e [tieCols]float64) {
	e[0], e[1], e[2], e[3] = sumDrops4Of(rows, tieCols, 0, drop, pre)
	e[4], e[5], e[6], e[7] = sumDrops4Of(rows, tieCols, 4, drop, pre)
	return e
}

// sumDrops4Of is the sums of columns off…off+3 of rows of the given width.
func sumDrops4Of(rows []float64, width, off int, drop []float64, pre []int32) (e0, e1, e2, e3 float64) {
	for v, P := range pre {
		r := rows[int(P)*width+off:][:4]
		d := drop[v]
		e0 += float64(r[0] * d)
		e1 += float64(r[1] * d)
		e2 += float64(r[2] * d)
		e3 += float64(r[3] * d)
	}
	return
}

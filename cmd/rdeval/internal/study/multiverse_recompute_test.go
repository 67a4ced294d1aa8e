package study

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdtest"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/ingest"
)

// The checks of issue #11: every multiverse cell equals the same statistic
// computed directly with that cell's options — scores re-normalized here
// with analysis.FinalScore and analysis.Normalize (not through Apply), then
// the single-statistic commands (rdeval scoreatk, audit's compare, rdeval
// horizon) — to 1e-12.

const recomputeTol = 1e-12

func sameNum(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= recomputeTol*math.Max(1, math.Abs(b))
}

func checkCell(t *testing.T, c MultiverseCell, v, lo, hi float64) {
	t.Helper()
	if !sameNum(c.Value, v) || !sameNum(c.Lo, lo) || !sameNum(c.Hi, hi) {
		t.Errorf("cell %d %v: multiverse %.17g [%.17g, %.17g], direct %.17g [%.17g, %.17g]", c.Index, c.Labels, c.Value, c.Lo, c.Hi, v, lo, hi)
	}
}

// testMaxCells is rdeval multiverse's default --max-cells.
const testMaxCells = 256

// testLoad reads inputs as rdeval multiverse does without input flags.
var testLoad = (&cmdutil.InputFlags{}).Load

func loadDemo() (*ingest.Dataset, error) { return demo.Load(ingest.Options{}) }

func computeSpec(t *testing.T, path string, boot int) *MultiverseResult {
	t.Helper()
	sp, err := LoadMultiverseSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Multiverse(sp, MultiverseParams{Boot: boot, Seed: 7, MaxCells: testMaxCells, Load: testLoad})
	if err != nil {
		t.Fatal(err)
	}
	return &res
}

func label(res *MultiverseResult, c MultiverseCell, key string) string {
	for i, ch := range res.Choices {
		if ch.Key == key {
			return c.Labels[i]
		}
	}
	return ""
}

func filterRuns(ds *ingest.Dataset, keep func(r *ingest.Run) bool) *ingest.Dataset {
	out := &ingest.Dataset{Scores: ds.Scores, Tasks: ds.Tasks}
	for _, r := range ds.Runs {
		if keep(&r) {
			out.Runs = append(out.Runs, r)
		}
	}
	return out
}

// directScores re-normalizes every run of ds from its score log (entries in
// elapsed order, the task's rule, tritonRule for triton) with floor/cap;
// runs without a log keep their input score. outlier is applied after.
func directScores(t *testing.T, ds *ingest.Dataset, floor, capv, tritonRule, outlier string) *ingest.Dataset {
	t.Helper()
	logs := map[string][]ingest.ScoreEntry{}
	for _, e := range ds.Scores {
		logs[e.RunID] = append(logs[e.RunID], e)
	}
	tasks := map[string]ingest.Task{}
	for _, tk := range ds.Tasks {
		tasks[tk.Benchmark+"/"+tk.TaskID] = tk
	}
	opt := analysis.NormalizeOptions{}
	if floor == "none" {
		opt.NoFloor = true
	} else {
		fmt.Sscan(floor, &opt.Floor)
	}
	if capv != "none" && capv != "" {
		fmt.Sscan(capv, &opt.Cap)
	}
	out := &ingest.Dataset{Scores: ds.Scores, Tasks: ds.Tasks}
	for _, r := range ds.Runs {
		es := logs[r.RunID]
		tk := tasks[r.Benchmark+"/"+r.TaskID]
		if len(es) > 0 {
			sort.SliceStable(es, func(i, j int) bool { return es[i].ElapsedS.V < es[j].ElapsedS.V })
			ys := make([]float64, len(es))
			for i, e := range es {
				ys[i] = e.RawScore
			}
			rule := analysis.Rule(tk.Aggregation.V)
			if strings.HasPrefix(r.TaskID, tritonFamily) && tritonRule != "" {
				rule = analysis.Rule(tritonRule)
			}
			y, ok := analysis.FinalScore(ys, rule)
			r.Score = ingest.Opt[float64]{}
			if ok {
				r.Score = ingest.Some(analysis.Normalize(y, tk.YStart.V, tk.YRef.V, opt))
			}
		}
		if w, x, ok := strings.Cut(outlier, ":"); ok && r.Score.Valid {
			var th float64
			fmt.Sscan(x, &th)
			if r.Score.V > th {
				if w == "exclude" {
					continue
				}
				r.Score.V = th
			}
		}
		out.Runs = append(out.Runs, r)
	}
	return out
}

// TestDemoCellsEqualDirect: every cell of examples/multiverse-demo.yaml
// (score@16 on the demo study; floor × cap × triton rule × outlier × k > n
// policy × bootstrap unit) equals rdeval scoreatk on scores normalized
// directly (its interval: the runs unit), or for the other units
// analysis.UnitBootstrap on the tasks rdeval scoreatk keeps.
func TestDemoCellsEqualDirect(t *testing.T) {
	res := computeSpec(t, "../../../../examples/multiverse-demo.yaml", 100)
	if len(res.Cells) != 144 {
		t.Fatalf("%d cells, want 144", len(res.Cells))
	}
	ds, err := loadDemo()
	if err != nil {
		t.Fatal(err)
	}
	base := filterRuns(ds, func(r *ingest.Run) bool {
		return r.Benchmark == "re-bench" && r.Agent == "Modular (Model A)" && r.TimeLimitS.Valid && r.TimeLimitS.V == 1800
	})
	distinct := map[string]bool{}
	for _, c := range res.Cells {
		d := directScores(t, base, label(res, c, keyFloor), label(res, c, keyCap), label(res, c, keyTritonRule), label(res, c, keyOutlier))
		p := ScoreAtKParams{Ks: []int{16}, Boot: 100, Seed: 7, CI: 0.95}
		if label(res, c, keyShort) == "truncate" {
			p.Short = analysis.TruncateShort
		}
		sr, err := ScoreAtK(d, p)
		if err != nil {
			t.Fatal(err)
		}
		rows := sr.Rows
		lo, hi := rows[0].CILow, rows[0].CIHigh
		if u := label(res, c, keyBootstrap); u != "runs" {
			by := map[string][]float64{}
			for _, r := range d.Runs {
				if r.Score.Valid {
					by[r.TaskID] = append(by[r.TaskID], r.Score.V)
				}
			}
			var tasks []analysis.TaskScores
			var ks []int
			for _, name := range sortedTaskNames(by) {
				random := strings.HasPrefix(name, "ai_rd_small_scaling_law")
				n := len(by[name])
				switch {
				case n >= 16:
					ks = append(ks, 16)
				case random || label(res, c, keyShort) == "truncate":
					ks = append(ks, n)
				default:
					continue
				}
				tasks = append(tasks, analysis.TaskScores{Task: name, Scores: by[name], Random: random})
			}
			unit, _ := analysis.ParseBootUnit(u)
			var err error
			lo, hi, _, err = analysis.UnitBootstrap([][]analysis.TaskScores{tasks}, [][]int{ks}, unit, 100, 7, 0.95, func(m []float64) float64 { return m[0] })
			if err != nil {
				t.Fatal(err)
			}
		}
		checkCell(t, c, rows[0].Estimate, lo, hi)
		distinct[fmt.Sprint(c.Value)] = true
	}
	// The choices must matter, or the check proves little.
	if len(distinct) < 8 {
		t.Errorf("only %d distinct estimates over 48 cells", len(distinct))
	}
}

// TestREBenchRatioCellsEqualDirect: every cell of
// examples/multiverse-rebench-ratio.yaml (METR public data, three versions ×
// cap × outlier × bootstrap unit) equals the compare Spec (what rdeval
// audit's claims evaluate) on scores capped or filtered directly
// (hierarchical bootstrap: compare's), or for the other units
// analysis.UnitBootstrap on the groups compared.
func TestREBenchRatioCellsEqualDirect(t *testing.T) {
	cmdtest.SkipWithoutMETR(t)
	res := computeSpec(t, "../../../../examples/multiverse-rebench-ratio.yaml", 200)
	sp := Spec{Kind: "compare", A: "agent=Claude 3.5 Sonnet (New);time_limit_s=1800", B: "agent=human", Budget: "8h", Measure: "ratio"}
	files := map[string]string{"3a947ac": cmdtest.METRRuns("3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f"),
		"6a38c94": cmdtest.METRRuns("6a38c946d0c7a7bba4acc890bd37eec3cdea7972"), "19b0311": cmdtest.METRRuns("19b03113b7a28276593e2c2b9a86fbb508a89dba")}
	loaded := map[string]*ingest.Dataset{}
	for _, c := range res.Cells {
		v := label(res, c, keyData)
		if loaded[v] == nil {
			ds, err := ingest.Load([]string{files[v]}, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			loaded[v] = filterRuns(ds, func(r *ingest.Run) bool { return r.Benchmark == "re-bench" })
		}
		d := loaded[v]
		// METR's scores arrive normalized: cap and outlier act on them directly.
		capped := &ingest.Dataset{Scores: d.Scores, Tasks: d.Tasks}
		var capv float64
		if l := label(res, c, keyCap); l != "none" {
			fmt.Sscan(l, &capv)
		}
		for _, r := range d.Runs {
			if capv > 0 && r.Score.Valid && r.Score.V > capv {
				r.Score.V = capv
			}
			if label(res, c, keyOutlier) == "exclude:2" && r.Score.Valid && r.Score.V > 2 {
				continue
			}
			capped.Runs = append(capped.Runs, r)
		}
		val, lo, hi := specValue(t, sp, capped, 200, 7)
		if u := label(res, c, keyBootstrap); u != "hierarchical" {
			unit, _ := analysis.ParseBootUnit(u)
			lo, hi = unitCI(t, capped, "agent=Claude 3.5 Sonnet (New);time_limit_s=1800", "agent=human", 8*3600, unit, 200)
		}
		checkCell(t, c, val, lo, hi)
	}
}

// TestHorizonCellsEqualDirect: every cell of examples/multiverse-horizons.yaml
// (METR public data; version × weighting × regularization × success ×
// bootstrap unit) equals Horizon, what rdeval horizon --where agent=…
// computes with those flags (hierarchical bootstrap: the command has no
// other), or analysis.Horizons on runs built here from the input (other
// units).
func TestHorizonCellsEqualDirect(t *testing.T) {
	cmdtest.SkipWithoutMETR(t)
	if testing.Short() {
		t.Skip("48 horizon fits with a bootstrap: skipped with -short")
	}
	res := computeSpec(t, "../../../../examples/multiverse-horizons.yaml", 30)
	if len(res.Cells) != 144 {
		t.Fatalf("%d cells, want 144", len(res.Cells))
	}
	loaded := map[string]*ingest.Dataset{}
	files := map[string]string{"3a947ac": cmdtest.METRRuns("3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f"),
		"6a38c94": cmdtest.METRRuns("6a38c946d0c7a7bba4acc890bd37eec3cdea7972"), "19b0311": cmdtest.METRRuns("19b03113b7a28276593e2c2b9a86fbb508a89dba")}
	for _, c := range res.Cells {
		o := HorizonParams{Weighting: label(res, c, keyWeighting), Boot: 30, Seed: 7, CI: 0.95,
			Quantiles: []float64{0.5}, ScoreCol: label(res, c, keySuccess)}
		fmt.Sscan(label(res, c, keyRegularization), &o.Regularization)
		v := label(res, c, keyData)
		if loaded[v] == nil {
			ds, err := ingest.Load([]string{files[v]}, ingest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			loaded[v] = filterRuns(ds, func(r *ingest.Run) bool { return r.Agent == "Claude 3.5 Sonnet (New)" })
		}
		ds := loaded[v]
		if u := label(res, c, keyBootstrap); u != "hierarchical" {
			var runs []analysis.HorizonRun
			for _, r := range ds.Runs {
				y := float64(r.ScoreBinarized.V)
				ok := r.ScoreBinarized.Valid
				if o.ScoreCol == "score" {
					y, ok = math.Min(1, math.Max(0, r.Score.V)), r.Score.Valid
				}
				if ok && r.HumanMinutes.Valid {
					runs = append(runs, analysis.HorizonRun{Agent: r.Agent, Family: r.TaskFamily.V, Task: r.TaskID, HumanMinutes: r.HumanMinutes.V, Y: y})
				}
			}
			w := analysis.InvsqrtWeighting
			if o.Weighting == "equal" {
				w = analysis.EqualWeighting
			}
			unit, _ := analysis.ParseBootUnit(u)
			hr, err := analysis.Horizons(runs, analysis.HorizonOptions{Weighting: w, Regularization: o.Regularization, Quantiles: []float64{0.5},
				Boot: 30, Seed: 7, Level: 0.95, Unit: unit})
			if err != nil {
				t.Fatal(err)
			}
			checkCell(t, c, hr.Agents[0].Horizons[0], hr.Agents[0].CILow[0], hr.Agents[0].CIHigh[0])
			continue
		}
		hr, err := Horizon(ds, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(hr.Fit.Agents) != 1 {
			t.Fatalf("horizon: %d agents", len(hr.Fit.Agents))
		}
		a := hr.Fit.Agents[0]
		checkCell(t, c, a.Horizons[0], a.CILow[0], a.CIHigh[0])
	}
}

// TestHumanReferenceCellsEqualDirect: on METR's 3a947ac RE-Bench data
// without ai_rd_small_scaling_law (whose human_score is below y_start),
// human 8-h score@1 with the human reference equals the scores rescaled by
// (y_ref − y_start)/(human_score − y_start) directly, capped or not.
func TestHumanReferenceCellsEqualDirect(t *testing.T) {
	cmdtest.SkipWithoutMETR(t)
	dir := t.TempDir()
	abs, _ := filepath.Abs(cmdtest.METRRuns("3a947ac7069ecb6e1fd0064cc0205e5eb9dcba0f"))
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte(`data: [`+abs+`]
where: {benchmark: re-bench, agent: human}
stat: {kind: scoreatk, k: 1, where: {task_family: "ai_rd_fix_embedding,ai_rd_nanogpt_chat_rl,ai_rd_optimize_llm_foundry,ai_rd_restricted_mlm,ai_rd_rust_codecontests_inference,ai_rd_triton_cumsum"}}
choices:
  human_reference: [reference, human]
  cap: [none, 2]
`), 0o644)
	res := computeSpec(t, spec, 100)
	ds, err := ingest.Load([]string{abs}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]ingest.Task{}
	for _, tk := range ds.Tasks {
		tasks[tk.TaskID] = tk
	}
	base := filterRuns(ds, func(r *ingest.Run) bool {
		return r.Benchmark == "re-bench" && r.Agent == "human" && !strings.HasPrefix(r.TaskID, "ai_rd_small_scaling_law")
	})
	if len(res.Cells) != 4 || res.Cells[0].Value == res.Cells[2].Value {
		t.Fatalf("want 4 cells and the human reference to change the estimate: %+v", res.Cells)
	}
	for _, c := range res.Cells {
		d := &ingest.Dataset{Scores: base.Scores, Tasks: base.Tasks}
		for _, r := range base.Runs {
			if r.Score.Valid {
				tk := tasks[r.TaskID]
				if label(res, c, keyHumanReference) == "human" {
					r.Score.V *= (tk.YRef.V - tk.YStart.V) / (tk.HumanReference.V - tk.YStart.V)
				}
				if label(res, c, keyCap) == "2" && r.Score.V > 2 {
					r.Score.V = 2
				}
			}
			d.Runs = append(d.Runs, r)
		}
		sr, err := ScoreAtK(d, ScoreAtKParams{Ks: []int{1}, Boot: 100, Seed: 7, CI: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		rows := sr.Rows
		checkCell(t, c, rows[0].Estimate, rows[0].CILow, rows[0].CIHigh)
	}
}

// TestDemoCompareCellsEqualDirect: agents' score@4 of 30-minute runs over
// humans' 8-hour runs read at 2 h from their score logs, on the demo study:
// every cell (cap × triton rule × outlier cap) equals analysis.Compare on
// the groups built from directly re-normalized scores, the humans' scores
// at 2 h read with the cell's triton rule and then capped here.
func TestDemoCompareCellsEqualDirect(t *testing.T) {
	spec := writeSpecFile(t, `data: ["@demo"]
where: {benchmark: re-bench}
stat: {kind: compare, a: "agent=Modular (Model A);time_limit_s=1800", b: "agent=human", budget: 2h, measure: ratio}
choices:
  cap: [none, 0.02]
  triton_rule: [min, max]
  outlier: [none, "cap:0.4"]
`)
	res := computeSpec(t, spec, 100)
	ds, err := loadDemo()
	if err != nil {
		t.Fatal(err)
	}
	base := filterRuns(ds, func(r *ingest.Run) bool { return r.Benchmark == "re-bench" })
	distinct := map[float64]bool{}
	for _, c := range res.Cells {
		d := directScores(t, base, "0", label(res, c, keyCap), label(res, c, keyTritonRule), label(res, c, keyOutlier))
		d.Tasks = append([]ingest.Task(nil), d.Tasks...)
		for i := range d.Tasks {
			if strings.HasPrefix(d.Tasks[i].TaskID, tritonFamily) {
				d.Tasks[i].Aggregation = ingest.Some(label(res, c, keyTritonRule))
			}
		}
		a, _, err := Side(d, "agent=Modular (Model A);time_limit_s=1800", 7200, 28800)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := Side(d, "agent=human", 7200, 28800)
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Tasks {
			for j, v := range b.Tasks[i].Scores {
				if label(res, c, keyCap) == "0.02" {
					v = math.Min(v, 0.02)
				}
				if label(res, c, keyOutlier) == "cap:0.4" {
					v = math.Min(v, 0.4)
				}
				b.Tasks[i].Scores[j] = v
			}
		}
		cmp, err := analysis.Compare(a, b, analysis.ScoreAtKOptions{Boot: 100, Seed: 7, Level: 0.95})
		if err != nil {
			t.Fatal(err)
		}
		checkCell(t, c, cmp.Ratio, cmp.RatioLow, cmp.RatioHigh)
		distinct[c.Value] = true
	}
	if len(distinct) < 4 {
		t.Errorf("only %d distinct estimates over %d cells", len(distinct), len(res.Cells))
	}
	// A floor below 0 cannot be applied to the humans' scores at 2 h.
	bad := writeSpecFile(t, `data: ["@demo"]
where: {benchmark: re-bench}
stat: {kind: compare, a: "agent=Modular (Model A);time_limit_s=1800", b: "agent=human", budget: 2h}
choices:
  floor: [0, none]
`)
	sp, err := LoadMultiverseSpec(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Multiverse(sp, MultiverseParams{MaxCells: 10, Load: testLoad}); err == nil || !strings.Contains(err.Error(), "choices.floor") {
		t.Errorf("floor none on scores read at the budget: got %v", err)
	}
}

func writeSpecFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDemoRegressCellsEqualDirect: a GLM coefficient (gaussian, score ~
// agent + time_limit_s on the demo's agent runs) under cap × outlier equals
// the regress Spec (what rdeval audit's claims evaluate) on directly
// re-normalized scores.
func TestDemoRegressCellsEqualDirect(t *testing.T) {
	spec := writeSpecFile(t, `data: ["@demo"]
where: {benchmark: re-bench, kind: agent}
stat: {kind: regress, formula: "score ~ agent + time_limit_s", family: gaussian, term: time_limit_s}
choices:
  cap: [none, 1]
  outlier: [none, "exclude:1"]
`)
	res := computeSpec(t, spec, 0)
	sp := Spec{Kind: "regress", Formula: "score ~ agent + time_limit_s", Family: "gaussian", Term: "time_limit_s"}
	ds, err := loadDemo()
	if err != nil {
		t.Fatal(err)
	}
	base := filterRuns(ds, func(r *ingest.Run) bool { return r.Benchmark == "re-bench" && r.Kind == "agent" })
	distinct := map[float64]bool{}
	for _, c := range res.Cells {
		d := directScores(t, base, "0", label(res, c, keyCap), "", label(res, c, keyOutlier))
		v, lo, hi := specValue(t, sp, d, 0, 7)
		checkCell(t, c, v, lo, hi)
		distinct[c.Value] = true
	}
	if len(distinct) < 3 {
		t.Errorf("only %d distinct estimates", len(distinct))
	}
}

// unitCI is the ratio interval of A over B at the budget with bootstrap
// unit u, on the tasks both groups have with enough runs.
func unitCI(t *testing.T, ds *ingest.Dataset, a, b string, budget float64, u analysis.BootUnit, boot int) (float64, float64) {
	t.Helper()
	sa, _, err := Side(ds, a, budget, 8*3600)
	if err != nil {
		t.Fatal(err)
	}
	sb, _, err := Side(ds, b, budget, 8*3600)
	if err != nil {
		t.Fatal(err)
	}
	var ta, tb []analysis.TaskScores
	var ka, kb []int
	for _, x := range sa.Tasks {
		for _, y := range sb.Tasks {
			if x.Task == y.Task && len(x.Scores) >= sa.K && len(y.Scores) >= sb.K {
				ta, tb, ka, kb = append(ta, x), append(tb, y), append(ka, sa.K), append(kb, sb.K)
			}
		}
	}
	lo, hi, _, err := analysis.UnitBootstrap([][]analysis.TaskScores{ta, tb}, [][]int{ka, kb}, u, boot, 7, 0.95, func(m []float64) float64 { return m[0] / m[1] })
	if err != nil {
		t.Fatal(err)
	}
	return lo, hi
}

func sortedTaskNames(m map[string][]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// specValue is the statistic sp on ds with its interval, by the one Spec
// that rdeval audit's claims evaluate (the direct computation the cells are
// checked against).
func specValue(t *testing.T, sp Spec, ds *ingest.Dataset, boot int, seed uint64) (v, lo, hi float64) {
	t.Helper()
	if err := sp.Validate(); err != nil {
		t.Fatal(err)
	}
	est, err := sp.Evaluate(ds, EvalParams{Boot: boot, Seed: seed})
	if err == nil && est.Refusal != "" {
		err = errors.New(est.Refusal)
	}
	if err != nil {
		t.Fatalf("%s: %v", sp.Kind, err)
	}
	return est.Value, est.Lo, est.Hi
}

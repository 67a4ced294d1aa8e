package multiversecmd

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
)

// TritonFamily is the RE-Bench task whose final-score rule is disputed
// (../shared/methods.md §1.1: the raw score is ln(ms), lower is better, yet
// METR's migration lists MAX).
const TritonFamily = "ai_rd_triton_cumsum"

// Settings are the options of one multiverse cell. The zero value of a
// field means "as the data are" (no re-normalization) where that applies.
type Settings struct {
	Renormalize    bool    // re-normalize scores (some normalization choice is varied)
	NoFloor        bool    // floor: none
	Floor          float64 // floor of normalized scores (default 0)
	Cap            float64 // cap of normalized scores (0: none)
	TritonRule     string  // "" = the catalog's rule
	HumanReference bool    // normalize against the task's human_reference instead of y_ref
	Outlier        string  // "", none, cap, exclude
	OutlierAt      float64
	Short          string // drop | truncate
	Weighting      string // invsqrt | equal
	Regularization float64
	Success        string // score_binarized | score
	// BootUnit is what the interval resamples; the zero value is each
	// statistic's own scheme except for score@k, whose own is BootRuns.
	BootUnit analysis.BootUnit
}

// DefaultSettings are the settings of a statistic when a spec does not
// vary a choice (as the single-statistic commands default).
func DefaultSettings() Settings {
	return Settings{Short: "drop", Weighting: "invsqrt", Regularization: 0.1, Success: "score_binarized"}
}

// settingsFor builds the settings of combination c of sp's choices, and
// the index of its data value (-1 when data is not varied).
func settingsFor(sp *Spec, c []int) (Settings, int) {
	s := DefaultSettings()
	if sp.Stat.Kind == "scoreatk" {
		s.BootUnit = analysis.BootRuns // METR's score@k bootstrap: tasks fixed
	}
	data := -1
	for i, ch := range sp.Choices {
		v := ch.Values[c[i]]
		if normalizationKeys[ch.Key] {
			s.Renormalize = true
		}
		switch ch.Key {
		case KeyData:
			data = c[i]
		case KeyFloor:
			s.NoFloor, s.Floor = v.None, v.Num
		case KeyCap:
			s.Cap = v.Num
		case KeyTritonRule:
			s.TritonRule = v.Word
		case KeyHumanReference:
			s.HumanReference = v.Word == "human"
		case KeyOutlier:
			s.Outlier, s.OutlierAt = v.Word, v.Num
		case KeyShort:
			s.Short = v.Word
		case KeyWeighting:
			s.Weighting = v.Word
		case KeyRegularization:
			s.Regularization = v.Num
		case KeySuccess:
			s.Success = v.Word
		case KeyBootstrap:
			s.BootUnit, _ = analysis.ParseBootUnit(v.Word)
		}
	}
	return s, data
}

// Subset returns the runs of ds that match every where (values may list
// alternatives "a,b") and their score-log entries (a new slice); tasks are
// shared with ds.
func Subset(ds *ingest.Dataset, wheres ...map[string]string) *ingest.Dataset {
	out := &ingest.Dataset{Tasks: ds.Tasks}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		ok := true
		for _, where := range wheres {
			for _, c := range sortedKeys(where) {
				got, _ := ingest.RunValue(r, c)
				match := false
				for _, alt := range strings.Split(where[c], ",") {
					match = match || strings.TrimSpace(alt) == got
				}
				ok = ok && match
			}
		}
		if ok {
			out.Runs = append(out.Runs, *r)
		}
	}
	ids := map[string]bool{}
	for _, r := range out.Runs {
		ids[r.RunID] = true
	}
	for _, e := range ds.Scores {
		if ids[e.RunID] {
			out.Scores = append(out.Scores, e)
		}
	}
	return out
}

// Apply returns a copy of ds with the cell's score choices applied: scores
// re-normalized (when s.Renormalize) and the outlier rule. ds is not
// changed. Errors say why a choice cannot be applied to these data.
//
// Re-normalization: runs with a score log or a raw score are normalized
// again by rdeval normalize's rules (study.Normalize) with the
// cell's floor, cap, triton rule and reference. Runs whose only score is
// the input's already-normalized one (METR's all_runs.jsonl) keep it, with
// the cap and a floor above 0 applied to it; against the human reference
// it is rescaled by (y_ref − y_start)/(y_human − y_start), exact for
// scores floored at 0. A floor below 0 (or none) and a triton rule cannot
// be applied to such runs: the producer floored them at 0 and kept no
// score log.
func Apply(ds *ingest.Dataset, s Settings) (*ingest.Dataset, error) {
	out := &ingest.Dataset{Runs: append([]ingest.Run(nil), ds.Runs...), Scores: ds.Scores, Tasks: append([]ingest.Task(nil), ds.Tasks...)}
	if s.Renormalize {
		if err := renormalize(out, ds.Tasks, s); err != nil {
			return nil, err
		}
	}
	switch s.Outlier {
	case "cap":
		for i := range out.Runs {
			if r := &out.Runs[i]; r.Score.Valid && r.Score.V > s.OutlierAt {
				r.Score.V = s.OutlierAt
			}
		}
	case "exclude":
		// Not ingest.Dataset.Filter: it compacts Scores in place, and the
		// score log is shared with ds (and every other cell).
		kept := out.Runs[:0]
		for _, r := range out.Runs {
			if !(r.Score.Valid && r.Score.V > s.OutlierAt) {
				kept = append(kept, r)
			}
		}
		out.Runs = kept
	}
	return out, nil
}

func renormalize(out *ingest.Dataset, orig []ingest.Task, s Settings) error {
	used := map[[2]string]bool{}
	for _, r := range out.Runs {
		used[[2]string{r.Benchmark, r.TaskID}] = true
	}
	tritonSeen := false
	for i := range out.Tasks {
		t := &out.Tasks[i]
		if !used[[2]string{t.Benchmark, t.TaskID}] {
			continue
		}
		if s.TritonRule != "" && isTriton(t.TaskID) {
			t.Aggregation = ingest.Some(s.TritonRule)
			tritonSeen = true
		}
		if s.HumanReference {
			if !t.HumanReference.Valid {
				return fmt.Errorf("choices.%s human: task %s has no human_reference (METR's human_score)", KeyHumanReference, t.TaskID)
			}
			if !t.YStart.Valid || !t.YRef.Valid {
				return fmt.Errorf("choices.%s human: task %s has no y_start and y_ref", KeyHumanReference, t.TaskID)
			}
			if (t.HumanReference.V-t.YStart.V)*(t.YRef.V-t.YStart.V) <= 0 {
				return fmt.Errorf("choices.%s human: task %s: human_reference %v is not on the same side of y_start %v as y_ref %v, so it cannot serve as the reference (for METR's human_score, see shared/methods.md §3.3)", KeyHumanReference, t.TaskID, t.HumanReference.V, t.YStart.V, t.YRef.V)
			}
			t.YRef = t.HumanReference
		}
	}
	if s.TritonRule != "" && !tritonSeen {
		return fmt.Errorf("choices.%s: no run is on %s", KeyTritonRule, TritonFamily)
	}
	res, err := study.Normalize(out, analysis.NormalizeOptions{NoFloor: s.NoFloor, Floor: s.Floor, Cap: s.Cap}, false)
	if err != nil {
		return err
	}
	tasks := map[[2]string]ingest.Task{}
	for _, t := range orig {
		tasks[[2]string{t.Benchmark, t.TaskID}] = t
	}
	for i, rr := range res {
		if rr.Source != study.SourceInput {
			continue
		}
		r := &out.Runs[i]
		if s.TritonRule != "" && isTriton(r.TaskID) {
			return fmt.Errorf("choices.%s: run %s (%s:%d) has no score log, only an already-normalized score, so its final score cannot be recomputed with another rule", KeyTritonRule, r.RunID, r.SourceFile, r.SourceLine)
		}
		if s.NoFloor || s.Floor < 0 {
			return fmt.Errorf("choices.%s: run %s (%s:%d) has only an already-normalized score (floored at 0 by its producer): a floor below 0 cannot be applied", KeyFloor, r.RunID, r.SourceFile, r.SourceLine)
		}
		v := r.Score.V
		if s.HumanReference {
			t, ok := tasks[[2]string{r.Benchmark, r.TaskID}]
			if !ok || !t.YStart.Valid || !t.YRef.Valid || !t.HumanReference.Valid || (t.HumanReference.V-t.YStart.V)*(t.YRef.V-t.YStart.V) <= 0 {
				return fmt.Errorf("choices.%s human: run %s (%s:%d) has an already-normalized score on task %s, which has no y_start, y_ref and human_reference in the catalog to rescale it", KeyHumanReference, r.RunID, r.SourceFile, r.SourceLine, r.TaskID)
			}
			v *= (t.YRef.V - t.YStart.V) / (t.HumanReference.V - t.YStart.V)
		}
		if v < s.Floor {
			v = s.Floor
		}
		if s.Cap > 0 && v > s.Cap {
			v = s.Cap
		}
		r.Score.V = v
	}
	return nil
}

func isTriton(taskID string) bool {
	return taskID == TritonFamily || strings.HasPrefix(taskID, TritonFamily+"/")
}

// ChoiceError is a choice that cannot be applied to the data; Compute
// stops on it (exit 2) instead of recording a cell that cannot be computed.
type ChoiceError struct{ Err error }

func (e *ChoiceError) Error() string { return e.Err.Error() }

// Estimate is one cell's statistic with its 95% interval (NaN: none).
type Estimate struct {
	Value, Lo, Hi float64
	Note          string
}

// Evaluate computes the statistic st on ds (already filtered and with the
// score choices applied) with settings s; boot replicates, seed.
func Evaluate(st Stat, ds *ingest.Dataset, s Settings, boot int, seed uint64) (Estimate, error) {
	nan := math.NaN()
	e := Estimate{Value: nan, Lo: nan, Hi: nan}
	if len(ds.Runs) == 0 {
		return e, fmt.Errorf("no run left")
	}
	switch st.Kind {
	case "scoreatk":
		return scoreAtK(st, ds, s, boot, seed)
	case "compare":
		random := study.RandomTaskIDs(ds)
		a, _, err := study.Side(ds, st.A, st.budget, st.humanLen, random)
		if err != nil {
			return e, err
		}
		b, _, err := study.Side(ds, st.B, st.budget, st.humanLen, random)
		if err != nil {
			return e, err
		}
		for _, side := range []struct {
			spec string
			s    *analysis.Side
		}{{st.A, &a}, {st.B, &b}} {
			if readAtBudget(ds, side.spec, st.budget, st.humanLen) {
				if err := rescoreTruncated(side.s, s); err != nil {
					return e, &ChoiceError{Err: fmt.Errorf("group %q is read at the budget from score logs: %v", side.spec, err)}
				}
			}
		}
		cboot := boot
		if s.BootUnit != analysis.BootHierarchical {
			cboot = 0
		}
		c, err := analysis.Compare(a, b, analysis.ScoreAtKOptions{Boot: cboot, Seed: seed, Level: 0.95})
		if err != nil {
			return e, err
		}
		if cboot != boot && boot > 0 {
			// Another unit: the paired bootstrap over Compare's common tasks.
			bt := map[string]analysis.TaskScores{}
			for _, t := range b.Tasks {
				bt[t.Task] = t
			}
			var ta, tb []analysis.TaskScores
			for _, t := range a.Tasks {
				if u, ok := bt[t.Task]; ok && len(t.Scores) >= a.K && len(u.Scores) >= b.K {
					ta, tb = append(ta, t), append(tb, u)
				}
			}
			ka, kb := make([]int, len(ta)), make([]int, len(tb))
			for i := range ka {
				ka[i], kb[i] = a.K, b.K
			}
			stat := func(m []float64) float64 { return m[0] / m[1] }
			if st.Measure == "diff" {
				stat = func(m []float64) float64 { return m[0] - m[1] }
			}
			lo, hi, _, err := analysis.UnitBootstrap([][]analysis.TaskScores{ta, tb}, [][]int{ka, kb}, s.BootUnit, boot, seed, 0.95, stat)
			if err != nil {
				return e, err
			}
			c.RatioLow, c.RatioHigh, c.DiffLow, c.DiffHigh = lo, hi, lo, hi
		}
		e.Note = fmt.Sprintf("%d tasks; A %.4g (k=%d), B %.4g (k=%d)", len(c.Tasks), c.EstimateA, a.K, c.EstimateB, b.K)
		if st.Measure == "diff" {
			e.Value, e.Lo, e.Hi = c.Diff, c.DiffLow, c.DiffHigh
		} else {
			e.Value, e.Lo, e.Hi = c.Ratio, c.RatioLow, c.RatioHigh
		}
		return e, nil
	case "horizon":
		return horizon(st, ds, s, boot, seed)
	case "regress":
		return regress(st, ds)
	}
	return e, fmt.Errorf("unknown stat kind %q", st.Kind)
}

// readAtBudget reports whether comparecmd.Side reads group spec's runs at
// the budget from their score logs: its scored runs last longer than the
// budget (humans without a time limit last humanLen).
func readAtBudget(ds *ingest.Dataset, spec string, budget, humanLen float64) bool {
	g, _ := study.ParseGroup(spec)
	for _, r := range ds.Runs {
		ok := r.Score.Valid
		for c, v := range g {
			got, _ := ingest.RunValue(&r, c)
			ok = ok && got == v
		}
		if !ok {
			continue
		}
		switch {
		case r.TimeLimitS.Valid && r.TimeLimitS.V > 0:
			return float64(r.TimeLimitS.V) > budget
		case r.Kind == "human":
			return humanLen > budget
		}
	}
	return false
}

// rescoreTruncated applies the cell's floor, cap and outlier cap to scores
// read at the budget from score logs (study.TruncatedScores
// normalizes them with the task catalog, so the triton rule and the human
// reference already apply, but floors at 0 and does not cap). A floor above
// 0 and caps commute with that; a floor below 0 cannot be undone. Runs an
// exclude:X rule leaves out are left out by their final score.
func rescoreTruncated(side *analysis.Side, s Settings) error {
	if s.Renormalize && (s.NoFloor || s.Floor < 0) {
		return fmt.Errorf("choices.%s: its scores at the budget are floored at 0, so a floor below 0 cannot be applied", KeyFloor)
	}
	for i := range side.Tasks {
		sc := append([]float64(nil), side.Tasks[i].Scores...)
		for j, v := range sc {
			if s.Renormalize && v < s.Floor {
				v = s.Floor
			}
			if s.Renormalize && s.Cap > 0 && v > s.Cap {
				v = s.Cap
			}
			if s.Outlier == "cap" && v > s.OutlierAt {
				v = s.OutlierAt
			}
			sc[j] = v
		}
		side.Tasks[i].Scores = sc
	}
	return nil
}

func scoreAtK(st Stat, ds *ingest.Dataset, s Settings, boot int, seed uint64) (Estimate, error) {
	e := Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	random := map[string]bool{}
	for _, t := range ds.Tasks {
		if t.Selection.Valid && t.Selection.V == "random" {
			random[t.Benchmark+"\x00"+t.TaskID] = true
		}
	}
	byTask := map[string][]float64{}
	rnd := map[string]bool{}
	for _, r := range ds.Runs {
		if !r.Score.Valid {
			continue
		}
		byTask[r.TaskID] = append(byTask[r.TaskID], r.Score.V)
		rnd[r.TaskID] = rnd[r.TaskID] || random[r.Benchmark+"\x00"+r.TaskID]
	}
	if len(byTask) == 0 {
		return e, fmt.Errorf("no run has a score")
	}
	names := make([]string, 0, len(byTask))
	for t := range byTask {
		names = append(names, t)
	}
	sort.Strings(names)
	tasks := make([]analysis.TaskScores, len(names))
	for i, t := range names {
		tasks[i] = analysis.TaskScores{Task: t, Scores: byTask[t], Random: rnd[t]}
	}
	short := analysis.DropShort
	if s.Short == "truncate" {
		short = analysis.TruncateShort
	}
	cboot := boot
	if s.BootUnit != analysis.BootRuns {
		cboot = 0
	}
	pts, err := analysis.ScoreAtKCurve(tasks, analysis.ScoreAtKOptions{Ks: []int{st.K}, Boot: cboot, Seed: seed, Level: 0.95, Short: short})
	if err != nil {
		return e, err
	}
	p := pts[0]
	if p.NTasks == 0 {
		return e, fmt.Errorf("no task has %d runs (short: drop)", st.K)
	}
	e.Value, e.Lo, e.Hi = p.Estimate, p.CILow, p.CIHigh
	if cboot != boot && boot > 0 {
		// Another unit: the tasks ScoreAtKCurve keeps, each at its k.
		var kept []analysis.TaskScores
		var ks []int
		for _, t := range tasks {
			n := len(t.Scores)
			switch {
			case n >= st.K:
				ks = append(ks, st.K)
			case short == analysis.TruncateShort || t.Random:
				ks = append(ks, n)
			default:
				continue
			}
			kept = append(kept, t)
		}
		lo, hi, _, err := analysis.UnitBootstrap([][]analysis.TaskScores{kept}, [][]int{ks}, s.BootUnit, boot, seed, 0.95, func(m []float64) float64 { return m[0] })
		if err != nil {
			return e, err
		}
		e.Lo, e.Hi = lo, hi
	}
	e.Note = fmt.Sprintf("%d tasks", p.NTasks)
	if len(p.Dropped) > 0 {
		e.Note += "; dropped: " + strings.Join(p.Dropped, ", ")
	}
	return e, nil
}

// horizonRuns are the runs of st.Agent that the horizon fit of horizon
// reads, with the outcome of the success choice.
func horizonRuns(st Stat, ds *ingest.Dataset, s Settings) []analysis.HorizonRun {
	var runs []analysis.HorizonRun
	for _, r := range ds.Runs {
		if r.Kind == "human" || r.Agent != st.Agent {
			continue
		}
		if !r.HumanMinutes.Valid || !(r.HumanMinutes.V > 0) || math.IsInf(r.HumanMinutes.V, 0) {
			continue
		}
		var y float64
		if s.Success == "score" {
			if !r.Score.Valid || math.IsNaN(r.Score.V) {
				continue
			}
			y = math.Min(1, math.Max(0, r.Score.V))
		} else {
			if !r.ScoreBinarized.Valid {
				continue
			}
			y = float64(r.ScoreBinarized.V)
		}
		fam := ""
		if r.TaskFamily.Valid {
			fam = r.TaskFamily.V
		}
		runs = append(runs, analysis.HorizonRun{Agent: r.Agent, Family: fam, Task: r.TaskID, HumanMinutes: r.HumanMinutes.V, Y: y})
	}
	return runs
}

// horizonKey identifies a horizon cell's inputs: the settings and a
// SHA-256 of the runs horizonRuns hands the fit, bit for bit. Two cells
// with the same key (two data versions that hold the same runs of the
// agent) have the same result for the same boot and seed.
func horizonKey(st Stat, ds *ingest.Dataset, s Settings) string {
	h := sha256.New()
	fmt.Fprintf(h, "%#v\x00", s)
	var b [8]byte
	for _, r := range horizonRuns(st, ds, s) {
		fmt.Fprintf(h, "%q %q %q ", r.Agent, r.Family, r.Task)
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.HumanMinutes))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.Y))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func horizon(st Stat, ds *ingest.Dataset, s Settings, boot int, seed uint64) (Estimate, error) {
	e := Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	runs := horizonRuns(st, ds, s)
	if len(runs) == 0 {
		return e, fmt.Errorf("agent %q has no run with human_minutes and %s", st.Agent, s.Success)
	}
	w := analysis.InvsqrtWeighting
	if s.Weighting == "equal" {
		w = analysis.EqualWeighting
	}
	res, err := analysis.Horizons(runs, analysis.HorizonOptions{Weighting: w, Regularization: s.Regularization,
		Quantiles: []float64{st.Quantile}, Boot: boot, Seed: seed, Level: 0.95, Unit: s.BootUnit, ExtrapolationFactor: analysis.DefaultExtrapolationFactor})
	if err != nil {
		return e, err
	}
	a := res.Agents[0]
	e.Value = a.Horizons[0]
	if boot > 0 {
		e.Lo, e.Hi = a.CILow[0], a.CIHigh[0]
	}
	e.Note = fmt.Sprintf("%d runs", a.N)
	if a.BootSkipped > 0 {
		e.Note += fmt.Sprintf("; %d replicates skipped", a.BootSkipped)
		if a.SkippedShare > analysis.HorizonSkipWarnShare {
			e.Note += fmt.Sprintf(" (%.1f %%: the interval is conditional on the others)", 100*a.SkippedShare)
		}
	}
	if r := a.Refusals[0]; r != "" {
		// rdeval horizon prints no number for it; here the cell keeps its
		// value (the spread needs one) and says why it is no measurement.
		e.Note += "; not a measurement: " + r
	}
	return e, nil
}

func regress(st Stat, ds *ingest.Dataset) (Estimate, error) {
	e := Estimate{Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	res, err := study.Regress(study.RunsTable(ds), study.RegressParams{Formula: st.Formula, Family: st.Family, Cluster: st.Cluster, MaxIter: 25}, nil)
	if err != nil {
		return e, err
	}
	coef, err := res.Coefficient(st.Term)
	if err != nil {
		return e, err
	}
	coef = coef.Finite()
	e.Value, e.Lo, e.Hi = coef.Estimate, coef.CILow, coef.CIHigh
	e.Note = fmt.Sprintf("%s GLM on %d runs", st.Family, res.N)
	return e, nil
}

package study

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/ingest"
)

// MultiverseParams are the choices of a multiverse outside its spec.
type MultiverseParams struct {
	Data     []string // inputs in place of the spec's data: (not with choices.data)
	Boot     int      // bootstrap replicates per cell
	Seed     uint64   // the same in every cell (common random numbers)
	MaxCells int      // more combinations of choices are an error
	// Load reads a data version's inputs; "@demo" is read here (demo.Load).
	Load func(inputs []string) (*ingest.Dataset, error)
}

// MultiverseCell is one combination's estimate.
type MultiverseCell struct {
	Index  int
	Combo  []int    // value index per choice
	Labels []string // value label per choice
	Estimate
	Error string // why the statistic could not be computed ("" if it was)
}

// MultiverseSpread is the spread of one choice (or of all choices together).
type MultiverseSpread struct {
	Choice string
	Values []string
	analysis.Spread
}

// MultiverseResult is the whole multiverse: every cell, in the order of
// analysis.Combinations, the default (cell 0) and the spread per choice.
type MultiverseResult struct {
	Spec     *MultiverseSpec
	Stat     string // Spec.Stat described
	Choices  []MultiverseChoice
	Cells    []MultiverseCell
	Default  MultiverseCell
	Spread   []MultiverseSpread // per choice, then all choices together
	Inputs   []ingest.InputStats
	Boot     int
	Seed     uint64
	Warnings []error
}

// Multiverse evaluates the statistic of sp (Spec.Evaluate) in every
// combination of its choices (analysis.Combinations), each on its data
// version with the cell's score choices applied and the same seed, and
// summarizes the spread (analysis.SummarizeSpread) of each choice varied
// alone, the others at their defaults (analysis.OneAtATime), and of all
// cells. A cell that cannot be computed records why (Error) and is left
// out of the spread (a warning); a choice the data cannot take, more
// cells than p.MaxCells, or no cell computed is an error (and no result).
func Multiverse(sp *MultiverseSpec, p MultiverseParams) (MultiverseResult, error) {
	sizes := make([]int, len(sp.Choices))
	dataIdx := -1
	for i, c := range sp.Choices {
		sizes[i] = len(c.values)
		if c.Key == keyData {
			dataIdx = i
		}
	}
	combos := analysis.Combinations(sizes)
	if len(combos) > p.MaxCells {
		return MultiverseResult{}, cmdutil.Usagef("spec %s: %d combinations of choices exceed --max-cells %d (raise it, or vary fewer choices)", sp.Path, len(combos), p.MaxCells)
	}
	// The datasets: one per data value, or the spec's (or --data) inputs.
	var versions [][]string
	switch {
	case dataIdx >= 0 && len(p.Data) > 0:
		return MultiverseResult{}, cmdutil.Usagef("spec %s: --data cannot be combined with choices.data", sp.Path)
	case dataIdx >= 0:
		for _, v := range sp.Choices[dataIdx].values {
			versions = append(versions, v.Inputs)
		}
	case len(p.Data) > 0:
		versions = [][]string{p.Data}
	case len(sp.Data) > 0:
		versions = [][]string{sp.Data}
	default:
		return MultiverseResult{}, cmdutil.Usagef("spec %s: no inputs: give data: or choices.data in the spec, or --data", sp.Path)
	}
	res := MultiverseResult{Spec: sp, Stat: sp.Stat.Describe(), Choices: sp.Choices, Boot: p.Boot, Seed: p.Seed}
	datasets := make([]*ingest.Dataset, len(versions))
	for i, in := range versions {
		ds, err := loadVersion(p, in)
		if err != nil {
			return MultiverseResult{}, err
		}
		res.Inputs = append(res.Inputs, ds.Inputs...)
		for _, w := range ds.Warnings {
			res.Warnings = append(res.Warnings, errors.New(w.String()))
		}
		datasets[i] = Subset(ds, sp.Where, sp.Stat.Where)
		if len(datasets[i].Runs) == 0 {
			return MultiverseResult{}, &cmdutil.BadInputError{Err: fmt.Errorf("spec %s: no run of %s matches where %v and the stat's where %v", sp.Path, strings.Join(in, ", "), sp.Where, sp.Stat.Where)}
		}
	}
	// Horizon cells with the same inputs (data versions that hold the same
	// runs of the agent, e.g. METR's 3a947ac and 19b0311 for Claude 3.5
	// Sonnet (New)) are fitted once: see horizonKey.
	type evaluated struct {
		e   Estimate
		err error
	}
	memo := map[string]evaluated{}
	for n, c := range combos {
		s, di := settingsFor(sp, c)
		if di < 0 {
			di = 0
		}
		cell := MultiverseCell{Index: n, Combo: c}
		for i, ch := range sp.Choices {
			cell.Labels = append(cell.Labels, ch.Labels[c[i]])
		}
		ds, err := applyCell(datasets[di], s)
		if err != nil {
			return MultiverseResult{}, &cmdutil.BadInputError{Err: fmt.Errorf("spec %s: %v", sp.Path, err)}
		}
		var ev evaluated
		key, seen := "", false
		if sp.Stat.Kind == "horizon" {
			key = horizonKey(sp.Stat, ds, s)
			ev, seen = memo[key]
		}
		if !seen {
			ev.e, ev.err = evaluateCell(sp.Stat, ds, s, p.Boot, p.Seed)
			if key != "" {
				memo[key] = ev
			}
		}
		cell.Estimate, err = ev.e, ev.err
		var ce *choiceError
		if errors.As(err, &ce) {
			return MultiverseResult{}, &cmdutil.BadInputError{Err: fmt.Errorf("spec %s: %v", sp.Path, err)}
		}
		if err != nil {
			cell.Error = err.Error()
		}
		res.Cells = append(res.Cells, cell)
	}
	res.Default = res.Cells[0]
	ok := 0
	for _, c := range res.Cells {
		if c.Error == "" {
			ok++
		}
	}
	if ok == 0 {
		return MultiverseResult{}, &cmdutil.BadInputError{Err: fmt.Errorf("spec %s: the statistic cannot be computed in any cell (default cell: %s)", sp.Path, res.Cells[0].Error)}
	}
	if ok < len(res.Cells) {
		res.Warnings = append(res.Warnings, fmt.Errorf("%d of %d cells cannot be computed (see their error column); they are left out of the spread", len(res.Cells)-ok, len(res.Cells)))
	}
	spread := func(keep func(MultiverseCell) bool) analysis.Spread {
		var est, lo, hi []float64
		for _, c := range res.Cells {
			if keep(c) {
				est, lo, hi = append(est, c.Value), append(lo, c.Lo), append(hi, c.Hi)
			}
		}
		return analysis.SummarizeSpread(est, lo, hi)
	}
	for i, ch := range sp.Choices {
		res.Spread = append(res.Spread, MultiverseSpread{Choice: ch.Key, Values: ch.Labels, Spread: spread(func(c MultiverseCell) bool { return analysis.OneAtATime(c.Combo, i) })})
	}
	var all []string
	for _, ch := range sp.Choices {
		all = append(all, ch.Key)
	}
	res.Spread = append(res.Spread, MultiverseSpread{Choice: "all choices together", Values: all, Spread: spread(func(MultiverseCell) bool { return true })})
	return res, nil
}

// loadVersion reads one dataset version with p.Load; demoInput is the
// embedded demo study.
func loadVersion(p MultiverseParams, inputs []string) (*ingest.Dataset, error) {
	for _, in := range inputs {
		if in == demoInput {
			if len(inputs) > 1 {
				return nil, cmdutil.Usagef("%s cannot be combined with other inputs in one data value", demoInput)
			}
			return demo.Load(ingest.Options{})
		}
	}
	return p.Load(inputs)
}

// tritonFamily is the RE-Bench task whose final-score rule is disputed
// (../shared/methods.md §1.1: the raw score is ln(ms), lower is better, yet
// METR's migration lists MAX).
const tritonFamily = "ai_rd_triton_cumsum"

// cellSettings are the options of one multiverse cell. The zero value of a
// field means "as the data are" (no re-normalization) where that applies.
type cellSettings struct {
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

// defaultCellSettings are the settings of a statistic when a spec does not
// vary a choice (as the single-statistic commands default).
func defaultCellSettings() cellSettings {
	return cellSettings{Short: "drop", Weighting: "invsqrt", Regularization: 0.1, Success: "score_binarized"}
}

// settingsFor builds the settings of combination c of sp's choices, and
// the index of its data value (-1 when data is not varied).
func settingsFor(sp *MultiverseSpec, c []int) (cellSettings, int) {
	s := defaultCellSettings()
	if sp.Stat.Kind == "scoreatk" {
		s.BootUnit = analysis.BootRuns // METR's score@k bootstrap: tasks fixed
	}
	data := -1
	for i, ch := range sp.Choices {
		v := ch.values[c[i]]
		if normalizationKeys[ch.Key] {
			s.Renormalize = true
		}
		switch ch.Key {
		case keyData:
			data = c[i]
		case keyFloor:
			s.NoFloor, s.Floor = v.None, v.Num
		case keyCap:
			s.Cap = v.Num
		case keyTritonRule:
			s.TritonRule = v.Word
		case keyHumanReference:
			s.HumanReference = v.Word == "human"
		case keyOutlier:
			s.Outlier, s.OutlierAt = v.Word, v.Num
		case keyShort:
			s.Short = v.Word
		case keyWeighting:
			s.Weighting = v.Word
		case keyRegularization:
			s.Regularization = v.Num
		case keySuccess:
			s.Success = v.Word
		case keyBootstrap:
			s.BootUnit, _ = analysis.ParseBootUnit(v.Word)
		}
	}
	return s, data
}

// applyCell returns a copy of ds with the cell's score choices applied: scores
// re-normalized (when s.Renormalize) and the outlier rule. ds is not
// changed. Errors say why a choice cannot be applied to these data.
//
// Re-normalization: runs with a score log or a raw score are normalized
// again by rdeval normalize's rules (Normalize) with the
// cell's floor, cap, triton rule and reference. Runs whose only score is
// the input's already-normalized one (METR's all_runs.jsonl) keep it, with
// the cap and a floor above 0 applied to it; against the human reference
// it is rescaled by (y_ref − y_start)/(y_human − y_start), exact for
// scores floored at 0. A floor below 0 (or none) and a triton rule cannot
// be applied to such runs: the producer floored them at 0 and kept no
// score log.
func applyCell(ds *ingest.Dataset, s cellSettings) (*ingest.Dataset, error) {
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

func renormalize(out *ingest.Dataset, orig []ingest.Task, s cellSettings) error {
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
				return fmt.Errorf("choices.%s human: task %s has no human_reference (METR's human_score)", keyHumanReference, t.TaskID)
			}
			if !t.YStart.Valid || !t.YRef.Valid {
				return fmt.Errorf("choices.%s human: task %s has no y_start and y_ref", keyHumanReference, t.TaskID)
			}
			if (t.HumanReference.V-t.YStart.V)*(t.YRef.V-t.YStart.V) <= 0 {
				return fmt.Errorf("choices.%s human: task %s: human_reference %v is not on the same side of y_start %v as y_ref %v, so it cannot serve as the reference (for METR's human_score, see shared/methods.md §3.3)", keyHumanReference, t.TaskID, t.HumanReference.V, t.YStart.V, t.YRef.V)
			}
			t.YRef = t.HumanReference
		}
	}
	if s.TritonRule != "" && !tritonSeen {
		return fmt.Errorf("choices.%s: no run is on %s", keyTritonRule, tritonFamily)
	}
	res, err := Normalize(out, analysis.NormalizeOptions{NoFloor: s.NoFloor, Floor: s.Floor, Cap: s.Cap}, false)
	if err != nil {
		return err
	}
	tasks := map[[2]string]ingest.Task{}
	for _, t := range orig {
		tasks[[2]string{t.Benchmark, t.TaskID}] = t
	}
	for i, rr := range res {
		if rr.Source != SourceInput {
			continue
		}
		r := &out.Runs[i]
		if s.TritonRule != "" && isTriton(r.TaskID) {
			return fmt.Errorf("choices.%s: run %s (%s:%d) has no score log, only an already-normalized score, so its final score cannot be recomputed with another rule", keyTritonRule, r.RunID, r.SourceFile, r.SourceLine)
		}
		if s.NoFloor || s.Floor < 0 {
			return fmt.Errorf("choices.%s: run %s (%s:%d) has only an already-normalized score (floored at 0 by its producer): a floor below 0 cannot be applied", keyFloor, r.RunID, r.SourceFile, r.SourceLine)
		}
		v := r.Score.V
		if s.HumanReference {
			t, ok := tasks[[2]string{r.Benchmark, r.TaskID}]
			if !ok || !t.YStart.Valid || !t.YRef.Valid || !t.HumanReference.Valid || (t.HumanReference.V-t.YStart.V)*(t.YRef.V-t.YStart.V) <= 0 {
				return fmt.Errorf("choices.%s human: run %s (%s:%d) has an already-normalized score on task %s, which has no y_start, y_ref and human_reference in the catalog to rescale it", keyHumanReference, r.RunID, r.SourceFile, r.SourceLine, r.TaskID)
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
	return taskID == tritonFamily || strings.HasPrefix(taskID, tritonFamily+"/")
}

// choiceError is a choice that cannot be applied to the data; Multiverse
// stops on it (exit 2) instead of recording a cell that cannot be computed.
type choiceError struct{ Err error }

func (e *choiceError) Error() string { return e.Err.Error() }

// evaluateCell computes the statistic st on ds (already filtered and with the
// score choices applied) with settings s; boot replicates, seed.
func evaluateCell(st Spec, ds *ingest.Dataset, s cellSettings, boot int, seed uint64) (Estimate, error) {
	unit := s.BootUnit
	p := EvalParams{Boot: boot, Seed: seed, Unit: &unit, Regularization: s.Regularization, SuccessScore: s.Success == "score",
		AtBudget: func(group string, side *analysis.Side) error {
			if err := rescoreTruncated(side, s); err != nil {
				return &choiceError{Err: fmt.Errorf("group %q is read at the budget from score logs: %v", group, err)}
			}
			return nil
		}}
	if s.Short == "truncate" {
		p.Short = analysis.TruncateShort
	}
	if s.Weighting == "equal" {
		p.Weighting = analysis.EqualWeighting
	}
	return st.Evaluate(ds, p)
}

// rescoreTruncated applies the cell's floor, cap and outlier cap to scores
// read at the budget from score logs (AtBudget
// normalizes them with the task catalog, so the triton rule and the human
// reference already apply, but floors at 0 and does not cap). A floor above
// 0 and caps commute with that; a floor below 0 cannot be undone. Runs an
// exclude:X rule leaves out are left out by their final score.
func rescoreTruncated(side *analysis.Side, s cellSettings) error {
	if s.Renormalize && (s.NoFloor || s.Floor < 0) {
		return fmt.Errorf("choices.%s: its scores at the budget are floored at 0, so a floor below 0 cannot be applied", keyFloor)
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

// horizonKey identifies a horizon cell's inputs: the settings and a
// SHA-256 of the runs HorizonRuns hands the fit, bit for bit. Two cells
// with the same key (two data versions that hold the same runs of the
// agent) have the same result for the same boot and seed.
func horizonKey(st Spec, ds *ingest.Dataset, s cellSettings) string {
	h := sha256.New()
	fmt.Fprintf(h, "%#v\x00", s)
	var b [8]byte
	for _, r := range HorizonRuns(ds, st.Agent, s.Success == "score") {
		fmt.Fprintf(h, "%q %q %q ", r.Agent, r.Family, r.Task)
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.HumanMinutes))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.Y))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

package multiversecmd

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
)

// tritonFamily is the RE-Bench task whose final-score rule is disputed
// (../shared/methods.md §1.1: the raw score is ln(ms), lower is better, yet
// METR's migration lists MAX).
const tritonFamily = "ai_rd_triton_cumsum"

// settings are the options of one multiverse cell. The zero value of a
// field means "as the data are" (no re-normalization) where that applies.
type settings struct {
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

// defaultSettings are the settings of a statistic when a spec does not
// vary a choice (as the single-statistic commands default).
func defaultSettings() settings {
	return settings{Short: "drop", Weighting: "invsqrt", Regularization: 0.1, Success: "score_binarized"}
}

// settingsFor builds the settings of combination c of sp's choices, and
// the index of its data value (-1 when data is not varied).
func settingsFor(sp *spec, c []int) (settings, int) {
	s := defaultSettings()
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

// apply returns a copy of ds with the cell's score choices applied: scores
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
func apply(ds *ingest.Dataset, s settings) (*ingest.Dataset, error) {
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

func renormalize(out *ingest.Dataset, orig []ingest.Task, s settings) error {
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

// choiceError is a choice that cannot be applied to the data; Compute
// stops on it (exit 2) instead of recording a cell that cannot be computed.
type choiceError struct{ Err error }

func (e *choiceError) Error() string { return e.Err.Error() }

// evaluate computes the statistic st on ds (already filtered and with the
// score choices applied) with settings s; boot replicates, seed.
func evaluate(st study.Spec, ds *ingest.Dataset, s settings, boot int, seed uint64) (study.Estimate, error) {
	unit := s.BootUnit
	p := study.EvalParams{Boot: boot, Seed: seed, Unit: &unit, Regularization: s.Regularization, SuccessScore: s.Success == "score",
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
// read at the budget from score logs (study.AtBudget
// normalizes them with the task catalog, so the triton rule and the human
// reference already apply, but floors at 0 and does not cap). A floor above
// 0 and caps commute with that; a floor below 0 cannot be undone. Runs an
// exclude:X rule leaves out are left out by their final score.
func rescoreTruncated(side *analysis.Side, s settings) error {
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
// SHA-256 of the runs study.HorizonRuns hands the fit, bit for bit. Two cells
// with the same key (two data versions that hold the same runs of the
// agent) have the same result for the same boot and seed.
func horizonKey(st study.Spec, ds *ingest.Dataset, s settings) string {
	h := sha256.New()
	fmt.Fprintf(h, "%#v\x00", s)
	var b [8]byte
	for _, r := range study.HorizonRuns(ds, st.Agent, s.Success == "score") {
		fmt.Fprintf(h, "%q %q %q ", r.Agent, r.Family, r.Task)
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.HumanMinutes))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(r.Y))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

package study

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
	"go.yaml.in/yaml/v3"
)

// HorizonParams are the choices of the time-horizon fits.
type HorizonParams struct {
	Weighting      string // invsqrt (default) or equal
	Regularization float64
	Boot           int
	BootUnit       string // hierarchical (also ""), runs, tasks or families
	Seed           uint64
	CI             float64
	Quantiles      []float64
	ScoreCol       string // score_binarized (default) or score
	// Dates are the agents' release dates; nil: no trend.
	Dates map[string]time.Time
}

// HorizonResult is the fits and, with release dates, the trend.
type HorizonResult struct {
	Fit   *analysis.HorizonResult
	Trend *analysis.HorizonTrend
	// Runs are the runs fitted (set before the fit, so also with its
	// error); figures bin them.
	Runs     []analysis.HorizonRun
	Warnings []error
}

// Horizon fits each agent's logistic success against log2 human minutes
// and its time horizons (METR), with bootstrap intervals, and with
// p.Dates the doubling-time trend of the p50 horizon. The warnings found
// before a failure are on the result returned with the error.
func Horizon(ds *ingest.Dataset, p HorizonParams) (HorizonResult, error) {
	var out HorizonResult
	warnf := func(format string, a ...any) { out.Warnings = append(out.Warnings, fmt.Errorf(format, a...)) }
	dates := p.Dates
	var runs []analysis.HorizonRun
	humans, noMinutes, noY := 0, 0, 0
	task := TaskNames(ds) // the one task key
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if r.Kind == "human" {
			humans++
			continue
		}
		if !r.HumanMinutes.Valid || !(r.HumanMinutes.V > 0) || math.IsInf(r.HumanMinutes.V, 0) {
			noMinutes++
			continue
		}
		var y float64
		switch p.ScoreCol {
		case "score":
			if !r.Score.Valid || math.IsNaN(r.Score.V) {
				noY++
				continue
			}
			y = math.Min(1, math.Max(0, r.Score.V))
		default:
			if !r.ScoreBinarized.Valid {
				noY++
				continue
			}
			y = float64(r.ScoreBinarized.V)
			if y != 0 && y != 1 {
				return out, &cmdutil.BadInputError{Err: fmt.Errorf("%s:%d: score_binarized %v is not 0 or 1", r.SourceFile, r.SourceLine, r.ScoreBinarized.V)}
			}
		}
		fam := ""
		if r.TaskFamily.Valid {
			fam = r.TaskFamily.V
		}
		runs = append(runs, analysis.HorizonRun{Agent: r.Agent, Family: fam, Task: task(r.Benchmark, r.TaskID), HumanMinutes: r.HumanMinutes.V, Y: y})
	}
	if len(runs) == 0 {
		return out, &cmdutil.BadInputError{Err: fmt.Errorf("no agent run has both human_minutes and %s (%d human runs, %d without human_minutes, %d without %s)",
			p.ScoreCol, humans, noMinutes, noY, p.ScoreCol)}
	}
	if noMinutes > 0 {
		warnf("%d agent runs without human_minutes are left out", noMinutes)
	}
	if noY > 0 {
		warnf("%d agent runs without %s are left out", noY, p.ScoreCol)
	}
	out.Runs = runs
	w := analysis.InvsqrtWeighting
	if p.Weighting == "equal" {
		w = analysis.EqualWeighting
	}
	unit := analysis.BootHierarchical // also for "" (callers that build Options)
	if p.BootUnit != "" {
		u, err := analysis.ParseBootUnit(p.BootUnit)
		if err != nil {
			return out, cmdutil.Usagef("--boot-unit %q: want hierarchical, runs, tasks or families", p.BootUnit)
		}
		unit = u
	}
	res, err := analysis.Horizons(runs, analysis.HorizonOptions{Weighting: w, Regularization: p.Regularization,
		Quantiles: p.Quantiles, Boot: p.Boot, Seed: p.Seed, Level: p.CI, Unit: unit, ExtrapolationFactor: analysis.DefaultExtrapolationFactor})
	if err != nil {
		return out, &cmdutil.BadInputError{Err: err}
	}
	for _, a := range res.Agents {
		switch a.Fit.Class {
		case 0:
			warnf("%s: no success in %d runs: slope −Inf, horizons 0", a.Agent, a.N)
		case 1:
			warnf("%s: no failure in %d runs: slope +Inf, horizons +Inf", a.Agent, a.N)
		}
		if p.Boot > 0 && a.BootSkipped > 0 && a.Fit.Class < 0 && len(a.Warnings) == 0 {
			warnf("%s: %d of %d bootstrap replicates had one outcome class and are left out of its interval", a.Agent, a.BootSkipped, p.Boot)
		}
		for _, w := range a.Warnings {
			warnf("%s: %s", a.Agent, w)
		}
		seen := map[string]bool{}
		for _, r := range a.Refusals {
			if r != "" && !seen[r] {
				seen[r] = true
				warnf("%s: %s; refused (no number printed)", a.Agent, r)
			}
		}
	}
	var trend *analysis.HorizonTrend
	if dates != nil {
		days := map[string]float64{}
		var missing, refusedP50 []string
		for _, a := range res.Agents {
			d, ok := dates[a.Agent]
			if !ok {
				missing = append(missing, a.Agent)
				continue
			}
			if Refused(a, slices.Index(p.Quantiles, 0.5)) {
				refusedP50 = append(refusedP50, a.Agent)
				continue
			}
			days[a.Agent] = float64(d.Unix()) / 86400
		}
		if len(missing) > 0 {
			warnf("no release date for %s: left out of the trend", strings.Join(missing, ", "))
		}
		if len(refusedP50) > 0 {
			warnf("%s: p50 refused (see above): left out of the trend", strings.Join(refusedP50, ", "))
		}
		trend, err = analysis.HorizonDoublingTime(res, slices.Index(p.Quantiles, 0.5), days, p.CI)
		if err != nil {
			return out, &cmdutil.BadInputError{Err: fmt.Errorf("trend: %w", err)}
		}
	}
	out.Fit, out.Trend = res, trend
	return out, nil
}

// ReadReleaseDates reads a YAML map of agent: YYYY-MM-DD, or METR's
// release_dates.yaml (the same map under a top-level date: key).
func ReadReleaseDates(path string) (map[string]time.Time, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseReleaseDates(path, b)
}

// ParseReleaseDates is ReadReleaseDates on the bytes b of the file named
// path (in its errors).
func ParseReleaseDates(path string, b []byte) (map[string]time.Time, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a map of agent: YYYY-MM-DD", path)
	}
	m := doc.Content[0]
	if len(m.Content) == 2 && m.Content[0].Value == "date" && m.Content[1].Kind == yaml.MappingNode {
		m = m.Content[1]
	}
	out := map[string]time.Time{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		d, err := time.Parse("2006-01-02", v.Value)
		if v.Kind != yaml.ScalarNode || err != nil {
			return nil, fmt.Errorf("%s:%d: %s: want a date YYYY-MM-DD, got %q", path, v.Line, k.Value, v.Value)
		}
		out[k.Value] = d
	}
	return out, nil
}

// Refused reports whether the j-th horizon of a is withheld
// (analysis.AgentHorizon.Refusals).
func Refused(a analysis.AgentHorizon, j int) bool {
	return j < len(a.Refusals) && a.Refusals[j] != ""
}

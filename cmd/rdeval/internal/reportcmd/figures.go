package reportcmd

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"gonum.org/v1/plot"
)

// figureData collects the results the report draws.
type figureData struct {
	scoreatk map[string]map[string][]analysis.ScoreAtKPoint // time limit label → agent → points
	alloc    map[string][]analysis.AllocationPoint
	curves   map[string]map[string][]analysis.CurvePoint // time limit label → agent → points
	bars     []figures.Bar
	png      bool             // also write PNG (300 dpi) beside each SVG
	styles   figures.StyleMap // one style per agent of the study (figconfig.AgentStyles)

	errGroups []string    // agents with failed runs
	errCats   []string    // error types, most frequent first (the rest as "other")
	errCounts [][]float64 // errCounts[agent][type]
}

// errors counts the error types of RExBench runs per agent (RExBench Fig.
// 10): the seven most frequent types (one palette colour each), the rest
// as "other".
func (f *figureData) errors(runs []ingest.Run) {
	groups, cats, counts, ok := figconfig.ErrorTypeCounts(runs, 7)
	if !ok {
		return
	}
	f.errCats, f.errGroups, f.errCounts = cats, groups, counts
}

func (f *figureData) scoreAtK(rows []study.ScoreAtKRow) {
	f.scoreatk = map[string]map[string][]analysis.ScoreAtKPoint{}
	for _, r := range rows {
		tl := figconfig.DurationLabel(r.Group["time_limit_s"])
		if f.scoreatk[tl] == nil {
			f.scoreatk[tl] = map[string][]analysis.ScoreAtKPoint{}
		}
		a := r.Group["agent"]
		f.scoreatk[tl][a] = append(f.scoreatk[tl][a], analysis.ScoreAtKPoint{K: r.K, NTasks: r.NTasks, Estimate: r.Estimate, CILow: r.CILow, CIHigh: r.CIHigh})
	}
}

func (f *figureData) allocation(rows []study.AllocationRow) {
	f.alloc = map[string][]analysis.AllocationPoint{}
	for _, r := range rows {
		if r.Selection != "observed" {
			continue
		}
		f.alloc[r.Agent] = append(f.alloc[r.Agent], analysis.AllocationPoint{BudgetS: r.BudgetS, RunLengthS: r.RunLengthS, Best: r.Best, FullTaskSet: r.FullTaskSet,
			ScoreAtKPoint: analysis.ScoreAtKPoint{K: r.K, NTasks: r.NTasks, Estimate: r.Estimate, CILow: r.CILow, CIHigh: r.CIHigh}})
	}
}

func (f *figureData) curve(agent string, tl *int64, pts []analysis.CurvePoint) {
	if f.curves == nil {
		f.curves = map[string]map[string][]analysis.CurvePoint{}
	}
	label := "no limit"
	if tl != nil {
		label = figconfig.DurationLabel(strconv.FormatInt(*tl, 10))
	}
	if f.curves[label] == nil {
		f.curves[label] = map[string][]analysis.CurvePoint{}
	}
	f.curves[label][agent] = pts
}

func (f *figureData) success(framework, model, hint string, sum analysis.RateSummary) {
	f.bars = append(f.bars, figures.Bar{Group: framework + "\n" + model, Level: hint, Value: sum.Final, Lo: sum.FinalLow, Hi: sum.FinalHigh})
}

// sortedByDuration orders duration labels ("30 min", "2 h", "no limit") by length.
func sortedByDuration[V any](m map[string]V) []string {
	keys := sortedLabels(m)
	secs := func(l string) float64 {
		var v float64
		var unit string
		if _, err := fmt.Sscanf(l, "%g %s", &v, &unit); err != nil {
			return math.Inf(1)
		}
		if unit == "h" {
			return v * 3600
		}
		return v * 60
	}
	sort.SliceStable(keys, func(i, j int) bool { return secs(keys[i]) < secs(keys[j]) })
	return keys
}

func fileSafe(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), ".", "_") }

// drawnFigure is one figure written to the report: file is its path
// under figures/, svg its SVG for the page.
type drawnFigure struct {
	id, file, title string
	caption         string // what the figure shows (its kind's description)
	svg             []byte
	wide            bool     // two columns wide
	warnings        []string // the figure's own warnings, shown under it
}

func sortedLabels[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// write draws every figure with data into dir as SVG and returns them.
func (f *figureData) write(dir string) ([]drawnFigure, error) {
	type spec struct {
		file, title string
		make        func() (*plot.Plot, error)
		wide        bool
	}
	var specs []spec
	// One score@k panel per run length (RE-Bench Figs. 7–8 plot 30-min and
	// 2-h runs separately), so that agents are compared at equal run length.
	for _, tl := range sortedByDuration(f.scoreatk) {
		byAgent := f.scoreatk[tl]
		specs = append(specs, spec{"scoreatk_" + fileSafe(tl) + ".svg", "score@k against k (log2) for " + tl + " runs, 95% bootstrap bands", func() (*plot.Plot, error) {
			var g []figures.ScoreAtKGroup
			for _, a := range sortedLabels(byAgent) {
				g = append(g, figures.ScoreAtKGroup{Label: a, Points: byAgent[a], Style: f.styles.Get(a)})
			}
			return figures.ScoreAtKFigure("score@k, "+tl+" runs", g)
		}, false})
	}
	if len(f.alloc) > 0 {
		specs = append(specs, spec{"allocation.svg", "best allocation's score by total time budget (RE-Bench Fig. 2)", func() (*plot.Plot, error) {
			var g []figures.AllocationGroup
			for _, l := range sortedLabels(f.alloc) {
				g = append(g, figures.AllocationGroup{Label: l, Points: f.alloc[l], Style: f.styles.Get(l)})
			}
			return figures.AllocationFigure("Score by time budget", g)
		}, false})
	}
	// Score over time for the longest runs (8-hour attempts in RE-Bench Figs. 4–5).
	if tls := sortedByDuration(f.curves); len(tls) > 0 {
		tl := tls[len(tls)-1]
		byAgent := f.curves[tl]
		specs = append(specs, spec{"curves.svg", "mean best-so-far score over time, " + tl + " runs (RE-Bench Figs. 4–5)", func() (*plot.Plot, error) {
			var g []figures.CurveGroup
			for _, a := range sortedLabels(byAgent) {
				g = append(g, figures.CurveGroup{Label: a, Points: byAgent[a], Style: f.styles.Get(a)})
			}
			return figures.CurvesFigure("Score over time, "+tl+" runs", g)
		}, false})
	}
	if len(f.bars) > 0 {
		specs = append(specs, spec{"success.svg", "RExBench final success by agent and hint level, 95% bootstrap intervals", func() (*plot.Plot, error) {
			return figures.SuccessBars("Final success", f.bars)
		}, true})
	}
	if len(f.errGroups) > 0 {
		specs = append(specs, spec{"errors.svg", "RExBench error types of failed runs per agent (RExBench Fig. 10)", func() (*plot.Plot, error) {
			return figures.StackedBars("Error types", "Runs", f.errGroups, f.errCats, f.errCounts)
		}, true})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []drawnFigure
	for _, s := range specs {
		p, err := s.make()
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", s.file, err)
		}
		w := figures.OneColumn
		if s.wide {
			w = figures.TwoColumn
		}
		h := figures.Height(w)
		if s.wide {
			h = figures.Height(figures.OneColumn) * 1.2
		}
		var b bytes.Buffer
		if f.png {
			if err := figures.SaveFile(p, w, h, filepath.Join(dir, strings.TrimSuffix(s.file, ".svg")+".png")); err != nil {
				return nil, fmt.Errorf("figure %s: %w", s.file, err)
			}
		}
		if err := figures.Save(p, w, h, "svg", &b); err != nil {
			return nil, fmt.Errorf("figure %s: %w", s.file, err)
		}
		if err := cmdutil.WriteFileAtomic(filepath.Join(dir, s.file), b.Bytes()); err != nil {
			return nil, err
		}
		out = append(out, drawnFigure{id: strings.TrimSuffix(s.file, ".svg"), file: s.file, title: s.title, svg: b.Bytes(), wide: s.wide})
	}
	return out, nil
}

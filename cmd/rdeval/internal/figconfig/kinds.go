package figconfig

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"gonum.org/v1/plot"
)

// kind is one figure type of a config: its options (a pointer to a zero
// struct whose yaml tags are the option names), whether it is two columns
// wide by default, and how it is computed and drawn. draw must compute
// through package study or a function of package analysis (never a
// statistic of its own) and return the plot with the resolved parameters
// (recorded in index.json).
type kind struct {
	doc     string
	options any
	wide    bool
	draw    func(c *drawCtx, opts any) (*plot.Plot, map[string]any, error)
}

// kinds are the figure types, by config name.
var kinds = map[string]kind{}

func init() {
	for name, k := range map[string]kind{
		"scoreatk":        {"score@k against k (log2) per agent at one run length with bootstrap bands and human percentile lines (RE-Bench Figs. 7–8; rdeval scoreatk)", &scoreAtKOptions{}, false, drawScoreAtK},
		"allocation":      {"best allocation's score against total time budget per agent with bands (RE-Bench Fig. 2; rdeval allocation)", &allocationOptions{}, false, drawAllocation},
		"allocation-bars": {"score@k of every allocation (run length × k) at one budget, bars with CIs (RE-Bench Fig. 6; rdeval allocation)", &allocationBarsOptions{}, true, drawAllocationBars},
		"per-task":        {"score@k per task, grouped bars of agents and humans with CIs (RE-Bench Fig. 9; rdeval scoreatk --by agent,task_id)", &perTaskOptions{}, true, drawPerTask},
		"curves":          {"mean best-so-far score over time per agent with bands (RE-Bench Figs. 4–5; rdeval curves)", &curvesOptions{}, false, drawCurves},
		"success":         {"RExBench final or execution success or file recall by agent and hint level, with bootstrap intervals (rdeval success)", &successOptions{}, true, drawSuccess},
		"errors":          {"error types of failed runs, stacked bars per agent (RExBench Fig. 10)", &errorsOptions{}, true, drawErrors},
		"forest":          {"coefficients of a GLM with 95% CIs (RExBench Fig. 5; rdeval regress)", &forestOptions{}, false, drawForest},
		"gold-lines":      {"per-task success against gold lines changed with the fitted logistic GLM (RExBench; rdeval regress)", &goldLinesOptions{}, false, drawGoldLines},
		"horizon-fit":     {"success probability against human minutes (log2) with each agent's fitted logistic (METR; rdeval horizon)", &horizonFitOptions{}, true, drawHorizonFit},
		"cost":            {"each agent × time limit at its mean cost per run and mean score with CIs on both axes, and the cost–score Pareto frontier (RE-Bench Fig. 8, HAL; rdeval cost)", &costOptions{}, true, drawCost},
		"horizon-trend":   {"p50 time horizon against release date with the frontier's trend and its bootstrap band (METR Fig. 1; rdeval horizon --release-dates)", &horizonTrendOptions{}, true, drawHorizonTrend},
	} {
		kinds[name] = k
	}
}

// KindDoc is the one-line description of a figure type.
func KindDoc(name string) string { return kinds[name].doc }

// KindOptions lists the options of a figure type (its yaml keys).
func KindOptions(name string) []string { return optionNames(kinds[name].options) }

// KindNames lists the figure types, sorted.
func KindNames() []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// drawCtx is what a kind draws from.
type drawCtx struct {
	cfg   *Config
	fig   *Figure
	ds    *ingest.Dataset // the config's runs, filtered by the figure's where
	seed  uint64
	boot  int
	ci    float64
	warns []string
	extra []InputRecord // files the figure reads besides the runs
	// styles: one style per agent of the study (not of this figure), so
	// an agent keeps its colour in every figure.
	styles figures.StyleMap
}

// style is agent's style in the study.
func (c *drawCtx) style(agent string) *figures.SeriesStyle { return c.styles.Get(agent) }

// name is the display name of an agent, task, hint level or term: the
// config's names, else figures.DisplayName.
func (c *drawCtx) name(s string) string {
	if n, ok := c.cfg.Names[s]; ok {
		return n
	}
	return figures.DisplayName(s)
}

// studyStyles maps the study's agents (humans: those with a run of kind
// human) to styles, with the config's colours over them.
func studyStyles(cfg *Config, ds *ingest.Dataset) figures.StyleMap {
	return AgentStyles(ds, cfg.Colors)
}

// AgentStyles maps the agents of ds (humans: those with a run of kind
// human) to one style each, figures.NewStyleMap, with colors (agent →
// #RRGGBB, already checked) over them; rdeval cost --figure uses it too, so an
// agent has one colour in every figure of a study.
func AgentStyles(ds *ingest.Dataset, colors map[string]string) figures.StyleMap {
	human := map[string]bool{}
	seen := map[string]bool{}
	var agents []string
	for i := range ds.Runs {
		r := &ds.Runs[i]
		if !seen[r.Agent] {
			seen[r.Agent] = true
			agents = append(agents, r.Agent)
		}
		if r.Kind == "human" {
			human[r.Agent] = true
		}
	}
	m := figures.NewStyleMap(agents, func(a string) bool { return human[a] })
	for a, hex := range colors {
		col, _ := figures.ParseHexColor(hex) // checked by ParseConfig
		st := m[a]
		st.Color = col
		m[a] = st
	}
	return m
}

// applyAxes sets the figure's axis labels and limits from the config; a
// limit of 0 or less on a log axis is an error.
func applyAxes(cfg *Config, f *Figure, p *plot.Plot) error {
	if f.XLabel != "" {
		p.X.Label.Text = f.XLabel
	}
	if f.YLabel != "" {
		p.Y.Label.Text = f.YLabel
	}
	for _, l := range []struct {
		v     *float64
		dst   *float64
		name  string
		scale plot.Normalizer
	}{{f.XMin, &p.X.Min, "x_min", p.X.Scale}, {f.XMax, &p.X.Max, "x_max", p.X.Scale}, {f.YMin, &p.Y.Min, "y_min", p.Y.Scale}, {f.YMax, &p.Y.Max, "y_max", p.Y.Scale}} {
		if l.v == nil {
			continue
		}
		if _, log := l.scale.(plot.LogScale); log && !(*l.v > 0) {
			return cmdutil.Usagef("%s:%d: figure %q: %s %v: the axis is logarithmic, want a positive limit", cfg.Path, f.line, f.ID, l.name, *l.v)
		}
		*l.dst = *l.v
	}
	if !(p.X.Min < p.X.Max) || !(p.Y.Min < p.Y.Max) {
		return cmdutil.Usagef("%s:%d: figure %q: axis limits: x %v to %v, y %v to %v: want min < max", cfg.Path, f.line, f.ID, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	return nil
}

// warn adds the warnings of a result (study) to the figure's.
func (c *drawCtx) warn(ws []error) {
	for _, w := range ws {
		c.warnf("%v", w)
	}
}

// warnf adds a warning once.
func (c *drawCtx) warnf(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	for _, x := range c.warns {
		if x == w || strings.HasSuffix(w, ": "+x) {
			return
		}
	}
	c.warns = append(c.warns, w)
}

// title is the figure's title from the config, or def.
func (c *drawCtx) title(def string) string {
	if c.fig.Title != "" {
		return c.fig.Title
	}
	return def
}

// optErr is an error in a figure's options.
func (c *drawCtx) optErr(format string, args ...any) error {
	return &configError{fmt.Errorf("%s:%d: figure %q: %s", c.cfg.Path, c.fig.line, c.fig.ID, fmt.Sprintf(format, args...))}
}

// configError is a config the data cannot satisfy (exit 2).
type configError struct{ error }

func (e *configError) Unwrap() error { return e.error }

// parseDuration reads "30m", "2h", "8h" or seconds ("1800").
func parseDuration(s string) (float64, error) {
	if sec, err := strconv.ParseFloat(s, 64); err == nil && sec > 0 {
		return sec, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q: want a duration such as 30m, 2h or 8h", s)
	}
	return d.Seconds(), nil
}

// DurationLabel is "30 min", "2 h" or "no limit" for seconds as text.
func DurationLabel(s string) string {
	sec, err := strconv.ParseFloat(s, 64)
	if err != nil || sec <= 0 {
		return "no limit"
	}
	if sec < 3600 {
		return strconv.FormatFloat(sec/60, 'f', -1, 64) + " min"
	}
	return strconv.FormatFloat(sec/3600, 'f', -1, 64) + " h"
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sortedBySeconds orders keys that are seconds as text ("" last).
func sortedBySeconds[V any](m map[string]V) []string {
	keys := sortedKeys(m)
	sec := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 {
			return math.Inf(1)
		}
		return v
	}
	sort.SliceStable(keys, func(i, j int) bool { return sec(keys[i]) < sec(keys[j]) })
	return keys
}

package figconfig

import (
	"io/fs"
	"math"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/demo"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

type horizonFitOptions struct {
	Weighting      string   `yaml:"weighting"`      // invsqrt (default) or equal
	Regularization *float64 `yaml:"regularization"` // sklearn's 1/C (default 0.1, METR's headline)
	ScoreCol       string   `yaml:"score_col"`      // score_binarized (default) or score
	// BinWidth (horizon-fit) is the width in log2 minutes of the bins of
	// the empirical success rates drawn with Wilson intervals beside the
	// fits (default 2: [1, 4), [4, 16) … minutes; 0: none).
	BinWidth *float64 `yaml:"bin_width"`
}

func (o *horizonFitOptions) defaults(c *drawCtx) error {
	if o.Weighting == "" {
		o.Weighting = "invsqrt"
	}
	if o.Weighting != "invsqrt" && o.Weighting != "equal" {
		return c.optErr("weighting %q: want invsqrt or equal", o.Weighting)
	}
	if o.Regularization == nil {
		r := 0.1
		o.Regularization = &r
	}
	if !(*o.Regularization > 0) {
		return c.optErr("regularization %v: want a positive number", *o.Regularization)
	}
	if o.ScoreCol == "" {
		o.ScoreCol = "score_binarized"
	}
	if o.ScoreCol != "score_binarized" && o.ScoreCol != "score" {
		return c.optErr("score_col %q: want score_binarized or score", o.ScoreCol)
	}
	return nil
}

func (o *horizonFitOptions) params() map[string]any {
	return map[string]any{"weighting": o.Weighting, "regularization": *o.Regularization, "score_col": o.ScoreCol}
}

// horizons fits the time horizons (study.Horizon) on the figure's runs;
// runs receives the fitted runs when not nil.
func horizons(c *drawCtx, o *horizonFitOptions, boot int, dates map[string]time.Time, runs *[]analysis.HorizonRun) (*analysis.HorizonResult, *analysis.HorizonTrend, error) {
	r, err := study.Horizon(c.ds, study.HorizonParams{Weighting: o.Weighting, Regularization: *o.Regularization,
		Boot: boot, Seed: c.seed, CI: c.ci, Quantiles: []float64{0.5}, ScoreCol: o.ScoreCol, Dates: dates})
	c.warn(r.Warnings)
	if runs != nil {
		*runs = r.Runs
	}
	if err != nil {
		return nil, nil, err
	}
	return r.Fit, r.Trend, nil
}

// drawHorizonFit draws each agent's fitted success probability
// σ(a + b·log2(minutes)) (analysis.FitLogistic through rdeval horizon)
// over the range of human minutes of the tasks it ran. No bootstrap: the
// curves are the point fits.
func drawHorizonFit(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*horizonFitOptions)
	if err := opts.defaults(c); err != nil {
		return nil, nil, err
	}
	width := 2.0
	if opts.BinWidth != nil {
		width = *opts.BinWidth
	}
	if width < 0 {
		return nil, nil, c.optErr("bin_width %v: want a width in log2 minutes (2: bins of a factor 4), or 0 for none", width)
	}
	var runs []analysis.HorizonRun
	res, _, err := horizons(c, opts, 0, nil, &runs)
	if err != nil {
		return nil, nil, err
	}
	bins := map[string]analysis.AgentBins{}
	if width > 0 {
		all, err := analysis.HorizonBins(runs, width, c.ci)
		if err != nil {
			return nil, nil, err
		}
		for _, b := range all {
			bins[b.Agent] = b
		}
	}
	span := map[string][2]float64{}
	for _, r := range c.ds.Runs {
		if r.Kind == "human" || !r.HumanMinutes.Valid || !(r.HumanMinutes.V > 0) {
			continue
		}
		s, ok := span[r.Agent]
		if !ok {
			s = [2]float64{math.Inf(1), math.Inf(-1)}
		}
		span[r.Agent] = [2]float64{math.Min(s[0], r.HumanMinutes.V), math.Max(s[1], r.HumanMinutes.V)}
	}
	var curves []figures.LogisticCurve
	for _, a := range res.Agents {
		s := span[a.Agent]
		cur := figures.LogisticCurve{Label: c.name(a.Agent), Intercept: a.Fit.Intercept, Slope: a.Fit.Slope, XMin: s[0], XMax: s[1], Style: c.style(a.Agent)}
		for _, b := range bins[a.Agent].Bins {
			cur.Points = append(cur.Points, plotter.XY{X: b.Minutes, Y: b.Rate})
			cur.Lo = append(cur.Lo, b.CILow)
			cur.Hi = append(cur.Hi, b.CIHigh)
		}
		curves = append(curves, cur)
		if a.N < 30 {
			c.warnf("%s: only %d runs in the fit", a.Agent, a.N)
		}
	}
	p, err := figures.LogisticFigure(c.title("Success by task length"), "Human time (minutes)", "Success probability", curves, true)
	params := opts.params()
	params["bin_width"], params["bin_interval"], params["bin_weights"] = width, "wilson", "none"
	return p, params, err
}

// bandSteps is the number of segments of the trend's band.
const bandSteps = 48

type horizonTrendOptions struct {
	horizonFitOptions `yaml:",inline"`
	ReleaseDates      string `yaml:"release_dates"` // YAML agent: YYYY-MM-DD, relative to the config (required; with demo: true the demo's by default)
}

// HorizonPoints are the dated agents' j-th horizons with their intervals
// against their release dates, the trend's frontier agents marked, for
// figures.HorizonTrendFigure; name gives an agent's label.
func HorizonPoints(res *analysis.HorizonResult, trend *analysis.HorizonTrend, dates map[string]time.Time, j int, name func(string) string) []figures.HorizonPoint {
	frontier := map[string]bool{}
	for _, a := range trend.Agents {
		frontier[a] = true
	}
	var pts []figures.HorizonPoint
	for _, a := range res.Agents {
		if d, ok := dates[a.Agent]; ok {
			pts = append(pts, figures.HorizonPoint{Label: name(a.Agent), Release: d, Minutes: a.Horizons[j], Lo: a.CILow[j], Hi: a.CIHigh[j], Frontier: frontier[a.Agent]})
		}
	}
	return pts
}

func drawHorizonTrend(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*horizonTrendOptions)
	if err := opts.defaults(c); err != nil {
		return nil, nil, err
	}
	var dates map[string]time.Time
	switch {
	case opts.ReleaseDates == "" && c.cfg.Demo:
		// The demo's own release dates (its time-horizon part's agents).
		b, err := fs.ReadFile(demo.FS(), demo.HorizonReleaseDatesPath)
		if err != nil {
			return nil, nil, err
		}
		if dates, err = study.ParseReleaseDates("demo:"+demo.HorizonReleaseDatesPath, b); err != nil {
			return nil, nil, err
		}
		c.extra = append(c.extra, InputRecord{Path: "demo:" + demo.HorizonReleaseDatesPath, SHA256: sha256Hex(b)})
	case opts.ReleaseDates == "":
		return nil, nil, c.optErr("options.release_dates: required (a YAML file of agent: YYYY-MM-DD, relative to the config; with demo: true the demo's by default)")
	default:
		var err error
		if dates, err = study.ReadReleaseDates(c.cfg.resolve(opts.ReleaseDates)); err != nil {
			return nil, nil, c.optErr("release_dates: %v", err)
		}
		rec, err := recordFile(c.cfg, opts.ReleaseDates)
		if err != nil {
			return nil, nil, err
		}
		c.extra = append(c.extra, rec)
	}
	res, trend, err := horizons(c, &opts.horizonFitOptions, c.boot, dates, nil)
	if err != nil {
		return nil, nil, err
	}
	pts := HorizonPoints(res, trend, dates, 0, c.name)
	tr := &figures.Trend{Slope: trend.Slope, Intercept: trend.Intercept}
	if c.boot > 0 {
		// The band over the frontier's dates (analysis.HorizonTrendBand).
		days := map[string]float64{}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, a := range trend.Agents {
			d := float64(dates[a].Unix()) / 86400
			days[a] = d
			lo, hi = math.Min(lo, d), math.Max(hi, d)
		}
		var grid []float64
		for i := 0; i <= bandSteps && hi > lo; i++ {
			grid = append(grid, lo+(hi-lo)*float64(i)/bandSteps)
		}
		blo, bhi, used := analysis.HorizonTrendBand(res, 0, trend.Agents, days, grid, c.ci)
		for i, d := range grid {
			tr.Band = append(tr.Band, figures.TrendBandPoint{Day: d, Lo: blo[i], Hi: bhi[i]})
		}
		if used < c.boot {
			c.warnf("trend band: %d of %d bootstrap replicates had fewer than two usable frontier p50s", c.boot-used, c.boot)
		}
	}
	p, err := figures.HorizonTrendFigure(c.title("50% time horizon by release date"), "p50 horizon", pts, tr)
	params := opts.params()
	params["release_dates"] = opts.ReleaseDates
	if opts.ReleaseDates == "" {
		params["release_dates"] = "demo:" + demo.HorizonReleaseDatesPath
	}
	return p, params, err
}

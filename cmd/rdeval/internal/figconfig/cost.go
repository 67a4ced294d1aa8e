package figconfig

import (
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"gonum.org/v1/plot"
)

type costOptions struct {
	BootUnit   string `yaml:"boot_unit"`   // runs (default: within tasks, tasks fixed) or tasks
	FrontierOn string `yaml:"frontier_on"` // score or success (default: score when the runs have scores)
	Humans     *bool  `yaml:"humans"`      // draw the groups of human runs (default true)
}

// drawCost draws study.Cost's groups at (mean cost, mean score or success
// rate) with their intervals and the Pareto frontier (CostPlot).
func drawCost(c *drawCtx, o any) (*plot.Plot, map[string]any, error) {
	opts := o.(*costOptions)
	if opts.BootUnit == "" {
		opts.BootUnit = "runs"
	}
	if opts.BootUnit != "runs" && opts.BootUnit != "tasks" {
		return nil, nil, c.optErr("boot_unit %q: want runs or tasks", opts.BootUnit)
	}
	if f := opts.FrontierOn; f != "" && f != "score" && f != "success" {
		return nil, nil, c.optErr("frontier_on %q: want score or success", f)
	}
	humans := opts.Humans == nil || *opts.Humans
	res, err := study.Cost(c.ds, study.CostParams{Boot: c.boot, Seed: c.seed, CI: c.ci, ResampleTasks: opts.BootUnit == "tasks", FrontierOn: opts.FrontierOn, NoHumans: !humans})
	c.warn(res.Warnings)
	if err != nil {
		return nil, nil, err
	}
	p, err := CostPlot(c.title(""), &res, c.styles, c.name)
	return p, map[string]any{"boot_unit": opts.BootUnit, "frontier_on": res.FrontierOn, "humans": humans,
		"interval": "percentile, " + map[string]string{"runs": "runs resampled within tasks", "tasks": "tasks resampled"}[opts.BootUnit]}, err
}

// CostPlot draws a cost result (figures.CostFigure): each group at its
// mean cost and its mean score (or success rate, as res.FrontierOn) with
// their intervals, labelled with name(agent) and the time limit, in the
// agent's style of styles; title "" gives the default. rdeval cost
// --figure and the figures config's cost type draw through it.
func CostPlot(title string, res *study.CostResult, styles figures.StyleMap, name func(string) string) (*plot.Plot, error) {
	yLabel := "Mean normalized score"
	if res.FrontierOn == "success" {
		yLabel = "Success rate"
	}
	if title == "" {
		title = "Cost and " + strings.ToLower(yLabel)
	}
	pts := make([]figures.CostPoint, 0, len(res.Groups))
	for _, g := range res.Groups {
		e, lo, hi := g.Summary.Est, g.Summary.Lo, g.Summary.Hi
		pt := figures.CostPoint{Cost: e.MeanCost, CostLo: lo.MeanCost, CostHi: hi.MeanCost,
			Score: e.MeanScore, ScoreLo: lo.MeanScore, ScoreHi: hi.MeanScore, Pareto: g.Pareto}
		if res.FrontierOn == "success" {
			pt.Score, pt.ScoreLo, pt.ScoreHi = e.SuccessRate, lo.SuccessRate, hi.SuccessRate
		}
		var parts []string
		for j, b := range res.By {
			v := g.Key[j]
			switch b {
			case "agent":
				pt.Style = styles.Get(v)
				parts = append(parts, name(v))
			case "time_limit_s":
				parts = append(parts, DurationLabel(v))
			default:
				parts = append(parts, name(v))
			}
		}
		pt.Label = strings.Join(parts, ", ")
		pts = append(pts, pt)
	}
	return figures.CostFigure(title, "Mean cost per run (USD)", yLabel, pts)
}

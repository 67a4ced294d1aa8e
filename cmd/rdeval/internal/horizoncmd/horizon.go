// Package horizoncmd implements `rdeval horizon`.
package horizoncmd

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/figconfig"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval horizon`.
type Options struct {
	IO             *iostreams.IO
	Inputs         []string
	Input          cmdutil.InputFlags
	Format         string
	Weighting      string
	Regularization float64
	cmdutil.Bootstrap
	BootUnit     string
	Quantiles    []float64
	ScoreCol     string
	ReleaseDates string
	Figure       string // --figure: p50 against release date (.svg, .png or .pdf)
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "horizon INPUT...",
		Short: "METR time horizons (p50, p80) per agent, with hierarchical bootstrap intervals",
		Long: `Fit each agent's success probability against the log of the time a human
expert needs for the task, and report its time horizons: the task lengths at
which the fitted success probability is 50 % and 80 % (METR's method, see
../shared/methods.md §2). Human runs (kind human) are left out.

For agent a, run i on task t in family F: x = log2(human_minutes), y =
score_binarized (or, with --score-col score, the score clipped to [0, 1]: a
run then counts as a failure of weight (1−y)·w and a success of weight y·w),

  weight  equal:   w = 1/n_{a,t}              (n_{a,t}: runs of a on t)
          invsqrt: w = 1/(n_{a,t}·√m_{a,F})  (m_{a,F}: tasks of F that a ran)
          normalized to Σw = 1 over a's runs (METR's equal_task_weight and
          invsqrt_task_weight columns);
  fit     minimize ½·b² + C·Σ w·logloss(y, σ(a0 + b·x)),  C = 1/regularization,
          intercept unpenalized: sklearn LogisticRegression(C=C, solver="lbfgs")
          .fit(x, y, sample_weight=w), solved here by Newton's method to machine
          precision;
  horizon p_q = 2^((ln(q/(1−q)) − a0)/b) minutes.

An agent with no success has slope −Inf and horizons 0; one with no failure
slope +Inf and horizons +Inf (null in JSON, with a warning). A horizon is
refused (no number: "refused" in the table, null in JSON with the reason in
pXX_refused, and a warning) when the fitted slope is ≥ 0 (success does not
fall with task length) or when it lies outside 16× the range of the human
minutes of the tasks the agent ran (below shortest/16 or above 16·longest):
the logistic is then extrapolated where no task constrains it. Runs without
human_minutes or without the success column are left out and counted.

The interval is a hierarchical bootstrap, as METR's: per replicate, resample
task families with replacement, then the tasks within each drawn family copy,
then each agent's runs within each drawn task; one resample is shared by all
agents; drawn runs keep their full-data weights (not renormalized, METR's
ensure_weights_sum_to_1=False). An agent whose resample has a single outcome
class skips that replicate (counted in boot_skipped, with its share of
--boot in boot_skipped_share; above 5 % a warning says the interval is
conditional on the replicates with both outcomes and how many had no success
or no failure). The interval is the percentile interval (numpy's linear rule)
of the rest. --boot-unit resamples
one level only instead (runs within each task and agent, tasks with all their
runs, or families with all their tasks), to see how much each level of the
design contributes to the interval's width. Replicate b uses
PCG(--seed, b): the output depends only on the inputs and the flags.

With --release-dates FILE (YAML, agent: YYYY-MM-DD, or METR's release_dates.yaml
with its top-level date: key), also fit the trend of p50 over the agents on the
frontier (p50 at least the best p50 of agents released on or before; agents
whose p50 is refused are left out, with a warning): OLS of
ln(max(p50, 1e-3 min)) on the release date in days; doubling time = ln 2/slope.
Its interval refits the same agents on each bootstrap replicate (leaving out
p50 < 1e-3 or not finite) and reports the median and percentiles of the positive
doubling times. JSON output is then an object {"agents": [...], "trend": {...}}.`,
		Example: `  rdeval horizon all_runs.jsonl     # METR's public runs (../shared/anchors/eval-analysis-public/*/data/external/)
  rdeval horizon --demo --where benchmark=hcast --boot 200 --seed 1     # the demo's synthetic time-horizon part: 5 agents × 32 tasks of 1 min–16 h
  rdeval horizon all_runs.jsonl --weighting equal --boot 0 --format json
  rdeval horizon study/ --where agent=o1,GPT-4o --boot 10000 --seed 42 --quantiles 0.5,0.8,0.95
  rdeval horizon all_runs.jsonl --release-dates release_dates.yaml --format csv
  rdeval horizon all_runs.jsonl --release-dates release_dates.yaml --figure horizon.svg`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if !(opts.Regularization > 0) || math.IsInf(opts.Regularization, 1) {
				return cmdutil.Usagef("--regularization %v: want a positive number (sklearn's 1/C), e.g. 0.1", opts.Regularization)
			}
			if err := opts.Bootstrap.Check(); err != nil {
				return err
			}
			if len(opts.Quantiles) == 0 {
				return cmdutil.Usagef("--quantiles: want at least one success probability, e.g. 0.5,0.8")
			}
			for _, q := range opts.Quantiles {
				if !(q > 0 && q < 1) {
					return cmdutil.Usagef("--quantiles %v: success probabilities must be between 0 and 1", q)
				}
			}
			if opts.ReleaseDates != "" && slices.Index(opts.Quantiles, 0.5) < 0 {
				return cmdutil.Usagef("--release-dates needs 0.5 among --quantiles (the trend is of p50)")
			}
			if opts.Figure != "" {
				if opts.ReleaseDates == "" {
					return cmdutil.Usagef("--figure draws p50 against release date: add --release-dates")
				}
				if err := cmdutil.CheckFigurePath("--figure", opts.Figure); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, csv or latex")
	cmdutil.EnumVar(cmd, &opts.Weighting, "weighting", "invsqrt", "run weights: invsqrt (1/(runs on task·√tasks in family)) or equal (1/runs on task)", "equal", "invsqrt")
	fl.Float64Var(&opts.Regularization, "regularization", 0.1, "L2 penalty as sklearn's 1/C (METR's headline 0.1, C = 10)")
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 1000, 42, true)
	fl.Lookup("boot").Usage = "hierarchical bootstrap replicates (0: no interval)"
	cmdutil.EnumVar(cmd, &opts.BootUnit, "boot-unit", "hierarchical", "what the bootstrap resamples: hierarchical (METR's), runs, tasks or families", "hierarchical", "runs", "tasks", "families")
	fl.Float64SliceVar(&opts.Quantiles, "quantiles", []float64{0.5, 0.8}, "success probabilities of the horizons")
	cmdutil.EnumVar(cmd, &opts.ScoreCol, "score-col", "score_binarized", "success: score_binarized (0/1) or score (fractional, clipped to [0, 1])", "score_binarized", "score")
	fl.StringVar(&opts.ReleaseDates, "release-dates", "", "YAML file of agent: YYYY-MM-DD release dates; adds the doubling-time trend")
	fl.StringVar(&opts.Figure, "figure", "", "also draw p50 against release date with the trend to this .svg, .png or .pdf file (needs --release-dates)")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	opts.Input.DemoAll = true // --demo: with the demo's time-horizon part
	return cmd
}

// run computes and prints the horizons.
func run(opts *Options) error {
	var dates map[string]time.Time
	if opts.ReleaseDates != "" {
		var err error
		if dates, err = study.ReadReleaseDates(opts.ReleaseDates); err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--release-dates: %w", err)}
		}
	}
	ds, err := opts.Input.LoadForCommand(opts.IO, opts.Inputs)
	if err != nil {
		return err
	}
	return compute(opts, ds, dates)
}

// compute runs the command on a loaded dataset (dates may be nil) and
// writes its output to opts.IO.Out.
func compute(opts *Options, ds *ingest.Dataset, dates map[string]time.Time) error {
	r, err := study.Horizon(ds, study.HorizonParams{Weighting: opts.Weighting, Regularization: opts.Regularization, Boot: opts.Boot, BootUnit: opts.BootUnit,
		Seed: opts.Seed, CI: opts.CI, Quantiles: opts.Quantiles, ScoreCol: opts.ScoreCol, Dates: dates})
	opts.IO.Warn(r.Warnings...)
	if err != nil {
		return err
	}
	res, trend := r.Fit, r.Trend
	if err := write(opts, res, trend, dates); err != nil {
		return err
	}
	if opts.Figure != "" && trend != nil {
		return drawTrend(opts, res, trend, dates)
	}
	return nil
}

// drawTrend writes --figure: each dated agent's p50 with its interval
// against its release date, the frontier agents and their fitted trend.
func drawTrend(opts *Options, res *analysis.HorizonResult, trend *analysis.HorizonTrend, dates map[string]time.Time) error {
	pts := figconfig.HorizonPoints(res, trend, dates, slices.Index(opts.Quantiles, 0.5), func(a string) string { return a })
	p, err := figures.HorizonTrendFigure("50% time horizon by release date", "p50 horizon", pts,
		&figures.Trend{Slope: trend.Slope, Intercept: trend.Intercept})
	if err != nil {
		return err
	}
	if err := figures.SaveFile(p, figures.TwoColumn, figures.Height(figures.TwoColumn), opts.Figure); err != nil {
		return err
	}
	opts.IO.Infof("wrote %s", opts.Figure)
	return nil
}

// quantileName is "p50" for 0.5, "p97.5" for 0.975.
func quantileName(q float64) string {
	return "p" + strconv.FormatFloat(q*100, 'f', -1, 64)
}

func text(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return cmdutil.FormatFloat(f)
}

func write(opts *Options, res *analysis.HorizonResult, trend *analysis.HorizonTrend, dates map[string]time.Time) error {
	frontier := map[string]bool{}
	if trend != nil {
		for _, a := range trend.Agents {
			frontier[a] = true
		}
	}
	date := func(agent string) string {
		if d, ok := dates[agent]; ok {
			return d.Format("2006-01-02")
		}
		return ""
	}
	switch opts.Format {
	case cmdutil.FormatJSON:
		rows := make([]map[string]any, len(res.Agents))
		for i, a := range res.Agents {
			m := map[string]any{"agent": a.Agent, "n": a.N, "slope": cmdutil.JSONNum(a.Fit.Slope), "intercept": cmdutil.JSONNum(a.Fit.Intercept),
				"average_success": a.AverageSuccess}
			for j, q := range opts.Quantiles {
				p := quantileName(q)
				if study.Refused(a, j) {
					m[p+"_minutes"], m[p+"_ci_low"], m[p+"_ci_high"], m[p+"_refused"] = nil, nil, nil, a.Refusals[j]
					continue
				}
				m[p+"_minutes"], m[p+"_ci_low"], m[p+"_ci_high"] = cmdutil.JSONNum(a.Horizons[j]), cmdutil.JSONNum(a.CILow[j]), cmdutil.JSONNum(a.CIHigh[j])
			}
			if opts.Boot > 0 {
				m["boot_skipped"] = a.BootSkipped
				m["boot_skipped_share"] = a.SkippedShare
			}
			if trend != nil {
				m["release_date"], m["frontier"] = nil, frontier[a.Agent]
				if d := date(a.Agent); d != "" {
					m["release_date"] = d
				}
			}
			rows[i] = m
		}
		if trend == nil {
			return cmdutil.WriteJSON(opts.IO.Out, rows)
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"agents": rows, "trend": map[string]any{
			"agents": trend.Agents, "slope_per_day": trend.Slope, "doubling_days": cmdutil.JSONNum(trend.DoublingDays),
			"boot_median_days": cmdutil.JSONNum(trend.BootMedian), "ci_low_days": cmdutil.JSONNum(trend.CILow), "ci_high_days": cmdutil.JSONNum(trend.CIHigh),
			"boot_used": trend.BootUsed}})
	}
	header := []string{"agent", "n", "slope", "intercept"}
	for _, q := range opts.Quantiles {
		p := quantileName(q)
		header = append(header, p+"_minutes", p+"_ci_low", p+"_ci_high")
	}
	header = append(header, "average_success")
	if opts.Boot > 0 {
		header = append(header, "boot_skipped", "boot_skipped_share")
	}
	if trend != nil {
		header = append(header, "release_date", "frontier")
	}
	t := cmdutil.Table{Header: header}
	for _, a := range res.Agents {
		row := []string{a.Agent, strconv.Itoa(a.N), text(a.Fit.Slope), text(a.Fit.Intercept)}
		for j := range opts.Quantiles {
			if study.Refused(a, j) {
				row = append(row, "refused", "", "")
				continue
			}
			row = append(row, text(a.Horizons[j]), text(a.CILow[j]), text(a.CIHigh[j]))
		}
		row = append(row, text(a.AverageSuccess))
		if opts.Boot > 0 {
			row = append(row, strconv.Itoa(a.BootSkipped), strconv.FormatFloat(a.SkippedShare, 'f', 3, 64))
		}
		if trend != nil {
			row = append(row, date(a.Agent), strconv.FormatBool(frontier[a.Agent]))
		}
		t.Rows = append(t.Rows, row)
	}
	var err error
	switch opts.Format {
	case cmdutil.FormatCSV:
		err = t.WriteCSV(opts.IO.Out)
	case cmdutil.FormatLaTeX:
		caption := fmt.Sprintf("Time horizons per agent: the task length (human minutes) at which the fitted logistic success curve crosses each level, with %g%% bootstrap intervals.", 100*opts.CI)
		if trend != nil {
			caption += fmt.Sprintf(" Doubling time over %d frontier agents: %s days [%s, %s].", len(trend.Agents), text(trend.DoublingDays), text(trend.CILow), text(trend.CIHigh))
		}
		return t.Cite(opts.IO, caption).Seeded(opts.Seed).WriteLaTeX(opts.IO.Out)
	default:
		err = t.WriteText(opts.IO.Out)
	}
	if err != nil || trend == nil {
		return err
	}
	// The trend follows the table: after a blank line (table) or as
	// '#' comment lines (CSV, so that readers with comment='#' skip it).
	prefix := "\n"
	if opts.Format == cmdutil.FormatCSV {
		prefix = "# "
	}
	_, err = fmt.Fprintf(opts.IO.Out, "%sdoubling time %s days (bootstrap median %s, %g%% interval [%s, %s], %d replicates) over %d frontier agents: %s\n",
		prefix, text(trend.DoublingDays), text(trend.BootMedian), 100*opts.CI, text(trend.CILow), text(trend.CIHigh), trend.BootUsed,
		len(trend.Agents), strings.Join(trend.Agents, ", "))
	return err
}

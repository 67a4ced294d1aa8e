// Package multiversecmd implements `rdeval multiverse`: one statistic
// recomputed under every combination of the analyst's choices, and how much
// each choice moves it.
package multiversecmd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"
)

// defaultMaxCells is the default --max-cells.
const defaultMaxCells = 256

// Options are the parsed flags of `rdeval multiverse`.
type Options struct {
	IO      *iostreams.IO
	Version string
	Spec    string
	Data    []string
	Input   cmdutil.InputFlags
	Format  string
	Part    string // csv, latex: cells or spread
	cmdutil.Bootstrap
	MaxCells int
	Figure   string
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, version string, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io, Version: version}
	cmd := &cobra.Command{
		Use:   "multiverse --spec SPEC.yaml",
		Short: "Recompute one statistic under every combination of analyst choices; spread per choice",
		Long: `Recompute one statistic under every combination of analyst choices (a
"multiverse"), print each combination's estimate with its 95% interval, and
the spread each choice causes on its own (the others held at their defaults,
the first value of each list), plus all choices together — as the boxplot of
METR's time-horizon multiverse (eval-analysis-public metrics/multiverse_boxplot.yaml).

The spec names the inputs, filters, the statistic and the choices:

  data: [all_runs.jsonl]          # relative to the spec; "@demo" = the embedded demo study
                                  # (ignored when choices.data is given)
  where: {benchmark: re-bench}
  stat: {kind: compare, a: "agent=X;time_limit_s=1800", b: "agent=human", budget: 2h, measure: ratio}
  choices:
    cap: [none, 2]
    outlier: [none, "cap:2", "exclude:2"]

Statistics (fields as in rdeval audit):
  scoreatk  where, k: score@k, mean over tasks; bootstrap over runs within tasks
  compare   a, b, budget, measure (ratio | diff), human_run_length: paired
            bootstrap over tasks, then runs (as rdeval compare)
  horizon   agent, quantile (default 0.5), where: the agent's METR horizon in
            minutes; hierarchical bootstrap (as rdeval horizon --where agent=…;
            a horizon rdeval horizon refuses keeps its value here, and the
            cell's note says why it is not a measurement)
  regress   formula, term, family, cluster: one GLM coefficient with its Wald
            (or CR1) interval; no bootstrap

Choices (each a list; the first value is the default):
  data             inputs, one dataset version per value: [LABEL=]FILE[,FILE…]
  floor            floor of normalized scores: a number or none   [scoreatk, compare, regress]
  cap              cap of normalized scores: a number or none      [scoreatk, compare, regress]
  triton_rule      final score of ai_rd_triton_cumsum from its log: min or max (needs score logs)
  human_reference  reference (y_ref) or human (the task's human_reference,
                   METR's human_score) as the score-1 point
  outlier          none, cap:X (cap normalized scores at X) or exclude:X
                   (leave out runs scoring above X)   [all; horizon: none, exclude:X]
  short            k > n policy of score@k: drop or truncate      [scoreatk]
  weighting        invsqrt or equal                                [horizon]
  regularization   sklearn's 1/C, e.g. 0.1, 0.2, 0.01              [horizon]
  success          score_binarized or score (clipped to [0, 1])    [horizon]
  bootstrap        what the interval resamples: runs (tasks fixed), tasks
                   (each with all its runs), hierarchical (tasks, then runs;
                   horizon: families, tasks, runs) or families (each with
                   all its tasks; horizon only)   [scoreatk, compare, horizon]
                   Without the choice each statistic uses its own scheme:
                   score@k runs (METR's), compare and horizon hierarchical.
A choice a statistic does not take is an error naming the spec and the key.

What cannot be varied, and why:
  - bootstrap unit for regress (it has no bootstrap: Wald or CR1 interval),
    and families for score@k and compare (their data carry no families).
  - floor below 0 / none and triton_rule need raw scores or score logs: runs
    that carry only an already-normalized score (METR's all_runs.jsonl) were
    floored at 0 by their producer and have no logs; such runs are an error.
  - human_reference needs a human_reference on every task used, on the same
    side of y_start as y_ref. METR's human_score fails this for
    ai_rd_small_scaling_law (−0.828 < y_start 0.24 < y_ref 0.84).
  - compare groups whose runs are longer than the budget are read at the
    budget from score logs (floored at 0): floor above 0, cap and outlier
    cap:X apply after reading, a floor below 0 is an error, and exclude:X
    leaves runs out by their final score.
  - normalization choices do not apply to horizons (success is
    score_binarized from the input, or the clipped score).

Every cell uses the same seed (common random numbers), so differences
between cells are not bootstrap noise in the point estimates. The number of
cells is capped by --max-cells. Exit status 2 for a bad spec or data.`,
		Example: `  rdeval multiverse --spec examples/multiverse-demo.yaml
  rdeval multiverse --spec examples/multiverse-rebench-ratio.yaml --boot 2000 --figure ratio.svg
  rdeval multiverse --spec examples/multiverse-horizons.yaml --boot 200 --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Spec == "" {
				return cmdutil.Usagef("--spec: give the multiverse spec (YAML)")
			}
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatCSV, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if err := opts.Bootstrap.Check(); err != nil {
				return err
			}
			if opts.MaxCells < 1 {
				return cmdutil.Usagef("--max-cells %d: want at least 1", opts.MaxCells)
			}
			if opts.Figure != "" {
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
	fl.StringVar(&opts.Spec, "spec", "", "multiverse spec (YAML)")
	fl.StringSliceVar(&opts.Data, "data", nil, "inputs (override the spec's data:; not with a data choice)")
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, csv or latex")
	cmdutil.EnumVar(cmd, &opts.Part, "part", "cells", "csv and latex: which table, cells or spread", "cells", "spread")
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 1000, 1, false)
	fl.Lookup("seed").Usage = "bootstrap seed (the same for every cell)"
	fl.IntVar(&opts.MaxCells, "max-cells", defaultMaxCells, "refuse specs with more combinations than this")
	fl.StringVar(&opts.Figure, "figure", "", "also draw the spread per choice to this .svg, .png or .pdf file")
	cmdutil.AddInputFlags(cmd, &opts.Input, false)
	return cmd
}

// run loads the spec and data, computes every cell and prints the result.
func run(opts *Options) error {
	sp, err := study.LoadMultiverseSpec(opts.Spec)
	if err != nil {
		return err
	}
	res, err := study.Multiverse(sp, study.MultiverseParams{Data: opts.Data, Boot: opts.Boot, Seed: opts.Seed, MaxCells: opts.MaxCells, Load: opts.Input.Load})
	opts.IO.Warn(res.Warnings...)
	if err != nil {
		return cmdutil.ReportLoadError(opts.IO, err)
	}
	if err := write(opts, &res); err != nil {
		return err
	}
	if opts.Figure != "" {
		return drawFigure(opts, &res)
	}
	return nil
}

func num(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func write(opts *Options, res *study.MultiverseResult) error {
	cellTable := &cmdutil.Table{}
	for _, ch := range res.Choices {
		cellTable.Header = append(cellTable.Header, ch.Key)
	}
	cellTable.Header = append([]string{"cell"}, append(cellTable.Header, "estimate", "ci_low", "ci_high", "note", "error")...)
	for _, c := range res.Cells {
		row := append([]string{strconv.Itoa(c.Index)}, c.Labels...)
		row = append(row, num(c.Value), num(c.Lo), num(c.Hi), c.Note, c.Error)
		cellTable.Rows = append(cellTable.Rows, row)
	}
	spreadTable := &cmdutil.Table{Header: []string{"choice", "values", "cells", "n", "min", "max", "range", "q10", "q50", "q90", "ci_low", "ci_high", "ci_width"}}
	for _, s := range res.Spread {
		spreadTable.Rows = append(spreadTable.Rows, []string{s.Choice, strings.Join(s.Values, " | "), strconv.Itoa(s.Cells), strconv.Itoa(s.N),
			num(s.Min), num(s.Max), num(s.Range), num(s.Q10), num(s.Q50), num(s.Q90), num(s.CILow), num(s.CIHigh), num(s.CIWidth)})
	}
	w := opts.IO.Out
	switch opts.Format {
	case cmdutil.FormatCSV:
		if opts.Part == "spread" {
			return spreadTable.WriteCSV(w)
		}
		return cellTable.WriteCSV(w)
	case cmdutil.FormatJSON:
		return cmdutil.WriteJSON(w, jsonResult(opts, res))
	case cmdutil.FormatLaTeX:
		if opts.Part == "spread" {
			spreadTable.Cite(opts.IO, fmt.Sprintf("Spread of %s per analyst choice: one choice varied, the others at their defaults; last row: every cell.", res.Stat)).Seeded(res.Seed).Source.Label = "tab:rdeval-multiverse-spread"
			return spreadTable.WriteLaTeX(w)
		}
		return cellTable.Cite(opts.IO, fmt.Sprintf("%s under every combination of analyst choices (%d cells), with %d bootstrap replicates per cell; default (first value of every choice): %s [%s, %s].",
			res.Stat, len(res.Cells), res.Boot, num(res.Default.Value), num(res.Default.Lo), num(res.Default.Hi))).Seeded(res.Seed).WriteLaTeX(w)
	}
	fmt.Fprintf(w, "Statistic: %s\n", res.Stat)
	fmt.Fprintf(w, "Default (first value of every choice): %s [%s, %s]\n", num(res.Default.Value), num(res.Default.Lo), num(res.Default.Hi))
	fmt.Fprintf(w, "%d cells; %d bootstrap replicates per cell, seed %d\n\n", len(res.Cells), res.Boot, res.Seed)
	if err := cellTable.WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSpread (one choice varied, the others at their defaults; last row: every cell):")
	return spreadTable.WriteText(w)
}

func jsonResult(opts *Options, res *study.MultiverseResult) map[string]any {
	var choices []map[string]any
	for _, c := range res.Choices {
		choices = append(choices, map[string]any{"key": c.Key, "values": c.Labels, "default": c.Labels[0]})
	}
	var cells []map[string]any
	for _, c := range res.Cells {
		ch := map[string]any{}
		for i, k := range res.Choices {
			ch[k.Key] = c.Labels[i]
		}
		cells = append(cells, map[string]any{"cell": c.Index, "choices": ch, "estimate": cmdutil.JSONNum(c.Value),
			"ci_low": cmdutil.JSONNum(c.Lo), "ci_high": cmdutil.JSONNum(c.Hi), "note": c.Note, "error": c.Error})
	}
	var spread []map[string]any
	for _, s := range res.Spread {
		spread = append(spread, map[string]any{"choice": s.Choice, "values": s.Values, "cells": s.Cells, "n": s.N,
			"min": cmdutil.JSONNum(s.Min), "max": cmdutil.JSONNum(s.Max), "range": cmdutil.JSONNum(s.Range),
			"q10": cmdutil.JSONNum(s.Q10), "q50": cmdutil.JSONNum(s.Q50), "q90": cmdutil.JSONNum(s.Q90),
			"ci_low": cmdutil.JSONNum(s.CILow), "ci_high": cmdutil.JSONNum(s.CIHigh), "ci_width": cmdutil.JSONNum(s.CIWidth)})
	}
	var inputs []map[string]any
	for _, in := range res.Inputs {
		inputs = append(inputs, map[string]any{"path": in.Path, "sha256": in.SHA256})
	}
	return map[string]any{"spec": res.Spec.Path, "stat": res.Stat, "kind": res.Spec.Stat.Kind, "boot": res.Boot, "seed": res.Seed,
		"rdeval_version": opts.Version, "inputs": inputs, "choices": choices,
		"default": map[string]any{"estimate": cmdutil.JSONNum(res.Default.Value), "ci_low": cmdutil.JSONNum(res.Default.Lo), "ci_high": cmdutil.JSONNum(res.Default.Hi)},
		"cells":   cells, "spread": spread}
}

// drawFigure writes --figure: one row per choice and one for all choices
// together (figures.MultiverseFigure), the default estimate dashed.
func drawFigure(opts *Options, res *study.MultiverseResult) error {
	p, err := figures.MultiverseFigure("Multiverse", res.Spec.Stat.Short(), spreadRows(res), res.Default.Value)
	if err != nil {
		return err
	}
	h := figures.Height(figures.OneColumn)
	if rows := vg.Length(len(res.Spread)+2) * vg.Points(22); rows > h {
		h = rows
	}
	return figures.SaveFile(p, figures.OneColumn, h, opts.Figure)
}

// spreadRows are the figure's rows: the cells of each spread row.
func spreadRows(res *study.MultiverseResult) []figures.SpreadRow {
	var rows []figures.SpreadRow
	for i, s := range res.Spread {
		r := figures.SpreadRow{Label: s.Choice, Lo: s.CILow, Hi: s.CIHigh}
		for _, c := range res.Cells {
			if c.Error != "" {
				continue
			}
			if i == len(res.Spread)-1 || analysis.OneAtATime(c.Combo, i) {
				r.Estimates = append(r.Estimates, c.Value)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

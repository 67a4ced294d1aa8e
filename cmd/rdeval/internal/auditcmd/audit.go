// Package auditcmd implements `rdeval audit`: recompute the statistics
// behind a paper's claims and say whether each claim holds.
package auditcmd

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Verdicts.
const (
	verdictHolds         = "holds"
	verdictFails         = "fails"
	verdictCannotCompute = "cannot compute"
)

// formatMarkdown is the markdown --format.
const formatMarkdown = "markdown"

// Options are the parsed flags of `rdeval audit`.
type Options struct {
	IO     *iostreams.IO
	Claims string
	Data   []string
	Input  cmdutil.InputFlags
	Format string
	cmdutil.Bootstrap
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "audit CLAIMS.yaml [--data INPUT...]",
		Short: "Recompute the statistics behind a paper's claims: holds, fails or cannot compute",
		Long: `Read a claims file — statements, the statistic that backs each and what it must
satisfy — recompute every statistic from the runs and print one verdict per
claim: holds, fails or cannot compute (with the reason).

The file names its default inputs (data:, relative to the file; --data
overrides), optional filters for every claim (where:) and the claims:

  data: [all_runs.jsonl]
  where: {benchmark: re-bench}
  claims:
    - id: agents-4x-humans-2h
      text: "Agents score about 4× humans at a 2-hour budget"
      stat: {kind: compare, a: "agent=X;time_limit_s=1800", b: "agent=human", budget: 2h, measure: ratio}
      expect: {value: 4.0, rel_tol: 0.25}

Stat kinds:
  scoreatk  where, k: score@k (mean over tasks) of the runs matching where,
            with a percentile bootstrap CI (as rdeval scoreatk --by "")
  compare   a, b, budget, measure (ratio | diff), human_run_length: A versus
            B at a time budget with a paired bootstrap CI (as rdeval compare);
            a group whose runs are longer than the budget needs score logs
  success   framework, model, hint_level, measure (final_success |
            execution_success | file_recall): the "all" headline of the cell
            (as rdeval success)
  rates     agent (and/or where), human_run_length: scoring calls per hour,
            from score logs (as rdeval curves --rates); no CI
  regress   formula, term, family (binomial | gaussian), cluster, measure
            (estimate | p), nagq: one coefficient of a GLM, or with
            (1 | group) terms of a mixed model (lmer REML; glmer Laplace, or
            nAGQ = nagq with one group), on the runs columns (as rdeval
            regress --data), the estimate with its Wald (cluster: CR1) 95 %
            CI, or its p-value
  horizon   agent, quantile (default 0.5): the agent's time horizon in
            minutes with its hierarchical bootstrap CI (as rdeval horizon
            with its defaults, but --seed and --boot are audit's)
Every kind takes where: {COLUMN: VALUE[,VALUE…]}. The stat is the same
statistic spec as a multiverse spec's (docs/architecture.md).

Expect (every condition given must hold): value with rel_tol (|x−v| ≤ tol·|v|),
abs_tol (|x−v| ≤ tol) or in_ci: true (v inside the recomputed 95 % CI); min
(x ≥ min); max (x ≤ max).

A claim whose statistic cannot be computed from the data (no matching runs, no
score logs, no CI with --boot 0) is "cannot compute"; that alone does not make
the audit fail. Exit status: 0 when no claim fails, 1 when at least one fails,
2 for a bad claims file or bad input data.`,
		Example: `  rdeval audit examples/demo-claims.yaml --demo       # claims about the embedded demo study
  rdeval audit examples/rexbench-claims.yaml
  rdeval audit examples/rebench-claims.yaml --format markdown
  rdeval audit claims.yaml --data study/ --seed 7 --boot 10000 --format json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Claims = args[0]
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, formatMarkdown, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if err := opts.Bootstrap.Check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Data, "data", nil, "inputs (override the claims file's data:)")
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, markdown or latex")
	cmdutil.AddBootstrapFlags(cmd, &opts.Bootstrap, 2000, 1, false)
	cmdutil.AddInputFlags(cmd, &opts.Input, false)
	return cmd
}

// verdictRow is one claim's verdict.
type verdictRow struct {
	ID, Text, Kind       string
	Value, CILow, CIHigh float64
	Expected             string
	Verdict              string
	Reason               string
	// Warnings are the statistic's caveats (study's result warnings):
	// rdeval audit prints them on stderr, naming the claim.
	Warnings []error
}

// run loads the claims and the data, evaluates and prints the verdicts. A
// failing claim gives a plain error (exit 1).
func run(opts *Options) error {
	f, err := load(opts.Claims)
	if err != nil {
		return err
	}
	inputs := opts.Data
	if len(inputs) == 0 && !opts.Input.Demo {
		for _, d := range f.Data {
			if !filepath.IsAbs(d) {
				d = filepath.Join(f.dir, d)
			}
			inputs = append(inputs, d)
		}
	}
	if len(inputs) == 0 && !opts.Input.Demo {
		return cmdutil.Usagef("no inputs: give data: in %s, --data or --demo", opts.Claims)
	}
	in := opts.Input
	in.Where = nil
	keys := make([]string, 0, len(f.Where))
	for k := range f.Where {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		in.Where = append(in.Where, k+"="+f.Where[k])
	}
	ds, err := in.Load(inputs)
	if err != nil {
		return cmdutil.ReportLoadError(opts.IO, err)
	}
	cmdutil.PrintWarnings(opts.IO, ds)
	rows := make([]verdictRow, 0, len(f.Claims))
	var failed []string
	for _, c := range f.Claims {
		r := evaluate(c, ds, opts.Boot, opts.Seed)
		for _, w := range r.Warnings {
			// A claim's statistic is one group, with no key: drop the
			// empty key's ": ".
			opts.IO.Warnf("%s: %s", c.ID, strings.TrimPrefix(w.Error(), ": "))
		}
		if r.Verdict == verdictFails {
			failed = append(failed, c.ID)
		}
		rows = append(rows, r)
	}
	if err := write(opts, rows); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d claims fail: %s", len(failed), len(rows), strings.Join(failed, ", "))
	}
	return nil
}

// evaluate recomputes one claim's statistic and judges it.
func evaluate(c claim, ds *ingest.Dataset, boot int, seed uint64) verdictRow {
	row := verdictRow{ID: c.ID, Text: c.Text, Kind: c.Stat.Kind, Value: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), Expected: c.Expect.String()}
	sub := study.Subset(ds, c.Stat.Where)
	if len(sub.Runs) == 0 {
		row.Verdict, row.Reason = verdictCannotCompute, "no run matches the claim's where"
		return row
	}
	res, err := c.Stat.Evaluate(sub, study.EvalParams{Boot: boot, Seed: seed})
	if err == nil && res.Refusal != "" {
		err = fmt.Errorf("not a measurement: %s", res.Refusal)
	}
	if err != nil {
		row.Verdict, row.Reason = verdictCannotCompute, err.Error()
		return row
	}
	note := res.Note
	switch c.Stat.Kind {
	case "scoreatk":
		note = fmt.Sprintf("%d tasks", res.Tasks)
		if len(res.Dropped) > 0 {
			note += fmt.Sprintf("; dropped (fewer than %d runs): %s", c.Stat.K, strings.Join(res.Dropped, ", "))
		}
	case "compare":
		note = fmt.Sprintf("%d tasks; A %s (k=%d) vs B %s (k=%d)", res.Tasks, fmtNum(res.A), res.KA, fmtNum(res.B), res.KB)
	case "regress":
		// The fit's caveats are part of the reason, not warnings.
		if len(res.Warnings) > 0 {
			note += "; " + study.JoinWarnings(res.Warnings, "; ")
		}
		res.Warnings = nil
	}
	row.Value, row.CILow, row.CIHigh = res.Value, res.Lo, res.Hi
	row.Warnings = res.Warnings
	row.Verdict, row.Reason = judge(c.Expect, res)
	if note != "" {
		if row.Reason != "" {
			row.Reason += "; "
		}
		row.Reason += note
	}
	return row
}

func judge(e expect, r study.Estimate) (string, string) {
	x := r.Value
	if math.IsNaN(x) {
		return verdictCannotCompute, "the statistic is undefined (NaN)"
	}
	var fails []string
	if e.Value != nil {
		v := *e.Value
		if e.RelTol != nil && math.Abs(x-v) > float64(*e.RelTol*math.Abs(v))+1e-12 {
			fails = append(fails, fmt.Sprintf("%s is off %s by %s%% > %s%%", fmtNum(x), fmtNum(v), fmtNum(100*math.Abs(x-v)/math.Abs(v)), fmtNum(*e.RelTol*100)))
		}
		if e.AbsTol != nil && math.Abs(x-v) > *e.AbsTol+1e-12 {
			fails = append(fails, fmt.Sprintf("|%s − %s| = %s > %s", fmtNum(x), fmtNum(v), fmtNum(math.Abs(x-v)), fmtNum(*e.AbsTol)))
		}
		if e.InCI {
			if math.IsNaN(r.Lo) || math.IsNaN(r.Hi) {
				return verdictCannotCompute, "in_ci needs a confidence interval (none: --boot 0 or no bootstrap for this kind)"
			}
			if v < r.Lo || v > r.Hi {
				fails = append(fails, fmt.Sprintf("%s is outside the 95%% CI [%s, %s]", fmtNum(v), fmtNum(r.Lo), fmtNum(r.Hi)))
			}
		}
	}
	if e.Min != nil && x < *e.Min {
		fails = append(fails, fmt.Sprintf("%s < min %s", fmtNum(x), fmtNum(*e.Min)))
	}
	if e.Max != nil && x > *e.Max {
		fails = append(fails, fmt.Sprintf("%s > max %s", fmtNum(x), fmtNum(*e.Max)))
	}
	if len(fails) > 0 {
		return verdictFails, strings.Join(fails, "; ")
	}
	return verdictHolds, ""
}

func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func write(opts *Options, rows []verdictRow) error {
	switch opts.Format {
	case cmdutil.FormatJSON:
		js := make([]map[string]any, len(rows))
		for i, r := range rows {
			js[i] = map[string]any{"id": r.ID, "text": r.Text, "kind": r.Kind, "value": cmdutil.JSONNum(r.Value), "ci_low": cmdutil.JSONNum(r.CILow), "ci_high": cmdutil.JSONNum(r.CIHigh),
				"expected": r.Expected, "verdict": r.Verdict, "reason": r.Reason}
		}
		return cmdutil.WriteJSON(opts.IO.Out, js)
	case formatMarkdown:
		w := opts.IO.Out
		fmt.Fprintln(w, "| Claim | Statement | Statistic | Recomputed | 95% CI | Expected | Verdict | Reason |")
		fmt.Fprintln(w, "|---|---|---|---:|---|---|---|---|")
		for _, r := range rows {
			ci := ""
			if !math.IsNaN(r.CILow) && !math.IsNaN(r.CIHigh) {
				ci = "[" + cmdutil.Fixed4(r.CILow) + ", " + cmdutil.Fixed4(r.CIHigh) + "]"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", md(r.ID), md(r.Text), md(r.Kind), cmdutil.Fixed4(r.Value), ci, md(r.Expected), md(r.Verdict), md(r.Reason))
		}
		return nil
	}
	t := cmdutil.Table{Header: []string{"id", "text", "kind", "value", "ci_low", "ci_high", "expected", "verdict", "reason"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.ID, r.Text, r.Kind, cmdutil.Fixed4(r.Value), cmdutil.Fixed4(r.CILow), cmdutil.Fixed4(r.CIHigh), r.Expected, r.Verdict, r.Reason})
	}
	t.Cite(opts.IO, "Claims checked against the data: each claim's statistic recomputed, with its interval, the value the claim expects and the verdict.").Seeded(opts.Seed)
	return cmdutil.Emit(opts.IO.Out, opts.Format, &t, nil)
}

func md(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

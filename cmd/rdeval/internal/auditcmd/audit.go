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

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Verdicts.
const (
	Holds         = "holds"
	Fails         = "fails"
	CannotCompute = "cannot compute"
)

// FormatMarkdown is the markdown --format.
const FormatMarkdown = "markdown"

// Options are the parsed flags of `rdeval audit`.
type Options struct {
	IO     *iostreams.IO
	Claims string
	Data   []string
	Input  cmdutil.InputFlags
	Format string
	Boot   int
	Seed   uint64
	// OnRows, if set, receives the verdicts.
	OnRows func([]Row)
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
Every kind takes where: {COLUMN: VALUE[,VALUE…]}.

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
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, FormatMarkdown, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if opts.Boot < 0 {
				return cmdutil.Usagef("--boot %d: want 0 (no interval) or more replicates", opts.Boot)
			}
			if runF != nil {
				return runF(opts)
			}
			return Run(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&opts.Data, "data", nil, "inputs (override the claims file's data:)")
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json, markdown or latex")
	fl.IntVar(&opts.Boot, "boot", 2000, "bootstrap replicates (0: no interval)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed")
	cmdutil.AddInputFlags(cmd, &opts.Input, false)
	return cmd
}

// Row is one claim's verdict.
type Row struct {
	ID, Text, Kind       string
	Value, CILow, CIHigh float64
	Expected             string
	Verdict              string
	Reason               string
	// Warnings are the statistic's caveats (study's result warnings):
	// rdeval audit prints them on stderr, naming the claim.
	Warnings []error
}

// Run loads the claims and the data, evaluates and prints the verdicts. A
// failing claim gives a plain error (exit 1).
func Run(opts *Options) error {
	f, err := Load(opts.Claims)
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
	return Compute(opts, f, ds)
}

// Compute evaluates the claims of f on ds and prints the verdicts.
func Compute(opts *Options, f *File, ds *ingest.Dataset) error {
	rows := make([]Row, 0, len(f.Claims))
	var failed []string
	for _, c := range f.Claims {
		r := Evaluate(c, ds, opts.Boot, opts.Seed)
		for _, w := range r.Warnings {
			// A claim's statistic is one group, with no key: drop the
			// empty key's ": ".
			opts.IO.Warnf("%s: %s", c.ID, strings.TrimPrefix(w.Error(), ": "))
		}
		if r.Verdict == Fails {
			failed = append(failed, c.ID)
		}
		rows = append(rows, r)
	}
	if opts.OnRows != nil {
		opts.OnRows(rows)
	}
	if err := write(opts, rows); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d claims fail: %s", len(failed), len(rows), strings.Join(failed, ", "))
	}
	return nil
}

// result is a recomputed statistic.
type result struct {
	value, lo, hi float64
	note          string  // appended to the reason
	warnings      []error // the statistic's caveats (not in note)
}

// Evaluate recomputes one claim's statistic and judges it.
func Evaluate(c Claim, ds *ingest.Dataset, boot int, seed uint64) Row {
	row := Row{ID: c.ID, Text: c.Text, Kind: c.Stat.Kind, Value: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), Expected: c.Expect.String()}
	sub := subset(ds, c.Stat.Where)
	var res result
	var err error
	if len(sub.Runs) == 0 {
		err = fmt.Errorf("no run matches the claim's where")
	} else {
		switch c.Stat.Kind {
		case "scoreatk":
			res, err = scoreAtK(c.Stat, sub, boot, seed)
		case "compare":
			res, err = compare(c.Stat, sub, boot, seed)
		case "success":
			res, err = success(c.Stat, sub, boot, seed)
		case "rates":
			res, err = rates(c.Stat, sub)
		case "regress":
			res, err = regress(c.Stat, sub)
		default:
			err = fmt.Errorf("unknown stat kind %q", c.Stat.Kind)
		}
	}
	if err != nil {
		row.Verdict, row.Reason = CannotCompute, err.Error()
		return row
	}
	row.Value, row.CILow, row.CIHigh = res.value, res.lo, res.hi
	row.Warnings = res.warnings
	row.Verdict, row.Reason = judge(c.Expect, res)
	if res.note != "" {
		if row.Reason != "" {
			row.Reason += "; "
		}
		row.Reason += res.note
	}
	return row
}

func judge(e Expect, r result) (string, string) {
	x := r.value
	if math.IsNaN(x) {
		return CannotCompute, "the statistic is undefined (NaN)"
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
			if math.IsNaN(r.lo) || math.IsNaN(r.hi) {
				return CannotCompute, "in_ci needs a confidence interval (none: --boot 0 or no bootstrap for this kind)"
			}
			if v < r.lo || v > r.hi {
				fails = append(fails, fmt.Sprintf("%s is outside the 95%% CI [%s, %s]", fmtNum(v), fmtNum(r.lo), fmtNum(r.hi)))
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
		return Fails, strings.Join(fails, "; ")
	}
	return Holds, ""
}

// subset returns a dataset holding the runs that match where (values may
// list alternatives: "a,b"); ds is not changed.
func subset(ds *ingest.Dataset, where map[string]string) *ingest.Dataset {
	out := &ingest.Dataset{Scores: ds.Scores, Tasks: ds.Tasks}
	for i := range ds.Runs {
		r := &ds.Runs[i]
		ok := true
		for c, v := range where {
			got, _ := ingest.RunValue(r, c)
			match := false
			for _, alt := range strings.Split(v, ",") {
				match = match || strings.TrimSpace(alt) == got
			}
			if !match {
				ok = false
				break
			}
		}
		if ok {
			out.Runs = append(out.Runs, *r)
		}
	}
	return out
}

func scoreAtK(s Stat, ds *ingest.Dataset, boot int, seed uint64) (result, error) {
	sr, err := study.ScoreAtK(ds, study.ScoreAtKParams{Ks: []int{s.K}, Boot: boot, Seed: seed, CI: 0.95})
	if err != nil {
		return result{}, err
	}
	rows := sr.Rows
	if len(rows) != 1 {
		return result{}, fmt.Errorf("expected one score@k group, got %d", len(rows))
	}
	r := rows[0]
	if r.NTasks == 0 {
		return result{}, fmt.Errorf("no task has %d runs (dropped: %s)", s.K, strings.Join(r.TasksDropped, ", "))
	}
	res := result{value: r.Estimate, lo: r.CILow, hi: r.CIHigh, warnings: sr.Warnings}
	res.note = fmt.Sprintf("%d tasks", r.NTasks)
	if len(r.TasksDropped) > 0 {
		res.note += fmt.Sprintf("; dropped (fewer than %d runs): %s", s.K, strings.Join(r.TasksDropped, ", "))
	}
	return res, nil
}

func compare(s Stat, ds *ingest.Dataset, boot int, seed uint64) (result, error) {
	random := study.RandomTaskIDs(ds)
	T, hl := s.budget.Seconds(), s.humanLen.Seconds()
	a, _, err := study.Side(ds, s.A, T, hl, random)
	if err != nil {
		return result{}, err
	}
	b, _, err := study.Side(ds, s.B, T, hl, random)
	if err != nil {
		return result{}, err
	}
	c, err := analysis.Compare(a, b, analysis.ScoreAtKOptions{Boot: boot, Seed: seed, Level: 0.95})
	if err != nil {
		return result{}, err
	}
	note := fmt.Sprintf("%d tasks; A %s (k=%d) vs B %s (k=%d)", len(c.Tasks), fmtNum(c.EstimateA), a.K, fmtNum(c.EstimateB), b.K)
	if s.Measure == "diff" {
		return result{value: c.Diff, lo: c.DiffLow, hi: c.DiffHigh, note: note, warnings: c.Warnings}, nil
	}
	return result{value: c.Ratio, lo: c.RatioLow, hi: c.RatioHigh, note: note, warnings: c.Warnings}, nil
}

// regress fits the claim's GLM (or, with (1 | group) terms, mixed model:
// lmer REML for gaussian, glmer Laplace or nAGQ = nagq for binomial) with
// rdeval regress on the matching runs and reads one coefficient: its
// estimate with the Wald (or, with cluster, CR1) 95% interval, or its
// p-value.
func regress(s Stat, ds *ingest.Dataset) (result, error) {
	res, err := study.Regress(study.RunsTable(ds), study.RegressParams{Formula: s.Formula, Family: s.Family, Cluster: s.Cluster, MaxIter: 25, NAGQ: s.NAGQ, CI: study.CIWald}, nil)
	if err != nil {
		return result{}, err
	}
	coef, err := res.Coefficient(s.Term)
	if err != nil {
		return result{}, err
	}
	coef = coef.Finite()
	note := fmt.Sprintf("%s GLM on %d runs", s.Family, res.N)
	if len(res.NGroups) > 0 && len(res.RandomEffects) > 0 {
		var gs []string
		for _, r := range res.RandomEffects {
			if r.Group != "Residual" {
				gs = append(gs, fmt.Sprintf("%s (%d levels, sd %s)", r.Group, res.NGroups[r.Group], fmtNum(r.SD)))
			}
		}
		kind := "LMM (REML)"
		if s.Family == "binomial" {
			kind = "GLMM (Laplace)"
			if res.NAGQ > 1 {
				kind = fmt.Sprintf("GLMM (nAGQ = %d)", res.NAGQ)
			}
		}
		note = fmt.Sprintf("%s %s on %d runs, random intercepts of %s", s.Family, kind, res.N, strings.Join(gs, ", "))
	}
	if len(res.Warnings) > 0 {
		note += "; " + study.JoinWarnings(res.Warnings, "; ")
	}
	if s.Measure == "p" {
		return result{value: coef.P, lo: math.NaN(), hi: math.NaN(), note: note}, nil
	}
	return result{value: coef.Estimate, lo: coef.CILow, hi: coef.CIHigh, note: note}, nil
}

func success(s Stat, ds *ingest.Dataset, boot int, seed uint64) (result, error) {
	var sum *analysis.RateSummary
	var cells []string
	res, err := study.Success(ds, study.SuccessParams{Boot: boot, Seed: seed, CI: 0.95})
	if err != nil {
		return result{}, err
	}
	for _, c := range res.Cells {
		fw, model, hint := c.Key.Framework, c.Key.Model, c.Key.Hint
		cells = append(cells, fw+" × "+model+" × "+hint)
		if fw == s.Framework && model == s.Model && hint == s.HintLevel {
			x := c.Summary
			sum = &x
		}
	}
	if sum == nil {
		if len(cells) > 8 {
			cells = append(cells[:8], "…")
		}
		return result{}, fmt.Errorf("no runs for %s × %s × %s (cells: %s)", s.Framework, s.Model, s.HintLevel, strings.Join(cells, "; "))
	}
	note := fmt.Sprintf("%d tasks, %d runs", sum.Tasks, sum.Runs)
	switch s.Measure {
	case "execution_success":
		return result{value: sum.Exec, lo: sum.ExecLow, hi: sum.ExecHigh, note: note}, nil
	case "file_recall":
		return result{value: sum.Recall, lo: math.NaN(), hi: math.NaN(), note: note}, nil
	}
	return result{value: sum.Final, lo: sum.FinalLow, hi: sum.FinalHigh, note: note}, nil
}

func rates(s Stat, ds *ingest.Dataset) (result, error) {
	if s.Agent != "" {
		ds = subset(ds, map[string]string{"agent": s.Agent})
		if len(ds.Runs) == 0 {
			return result{}, fmt.Errorf("no run of agent %q", s.Agent)
		}
	}
	_, _, st := study.RunCurves(ds, s.humanLen.Seconds())
	var runs, calls, hours float64
	for _, v := range st {
		runs, calls, hours = runs+v[0], calls+v[1], hours+v[2]
	}
	if runs == 0 {
		return result{}, fmt.Errorf("none of the %d matching runs has a score log with elapsed times (and a task with y_start/y_ref): scoring rates need score logs", len(ds.Runs))
	}
	if hours <= 0 {
		return result{}, fmt.Errorf("the runs with score logs have no length")
	}
	return result{value: calls / hours, lo: math.NaN(), hi: math.NaN(),
		note: fmt.Sprintf("%d runs, %d calls, %s h", int(runs), int(calls), fmtNum(hours))}, nil
}

func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func write(opts *Options, rows []Row) error {
	switch opts.Format {
	case cmdutil.FormatJSON:
		js := make([]map[string]any, len(rows))
		for i, r := range rows {
			js[i] = map[string]any{"id": r.ID, "text": r.Text, "kind": r.Kind, "value": cmdutil.JSONNum(r.Value), "ci_low": cmdutil.JSONNum(r.CILow), "ci_high": cmdutil.JSONNum(r.CIHigh),
				"expected": r.Expected, "verdict": r.Verdict, "reason": r.Reason}
		}
		return cmdutil.WriteJSON(opts.IO.Out, js)
	case FormatMarkdown:
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

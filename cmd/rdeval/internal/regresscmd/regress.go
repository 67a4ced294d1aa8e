// Package regresscmd implements `rdeval regress`.
package regresscmd

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/analysis/formula"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/iostreams"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/study"
	"github.com/rdeval/rdeval/figures"
	"github.com/rdeval/rdeval/ingest"
	"github.com/spf13/cobra"
)

// Options are the parsed flags of `rdeval regress`.
type Options struct {
	IO     *iostreams.IO
	Data   string
	Input  cmdutil.InputFlags
	Table  bool
	Join   string
	On     string
	Format string
	Figure string // --figure: forest plot of the coefficients (.svg, .png or .pdf)
	// RegressParams are the model's flags (Parsed: the formula, parsed
	// when the flags are checked).
	study.RegressParams
}

// NewCmd builds the cobra command; runF replaces Run in tests.
func NewCmd(io *iostreams.IO, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: io}
	cmd := &cobra.Command{
		Use:   "regress --data PATH --formula \"y ~ x1 + x2\" [--family binomial|gaussian]",
		Short: "Logistic or linear regression with R formulas: GLMs and mixed models (as R glm and lme4)",
		Long: `Fit a generalized linear model by iteratively reweighted least squares, as R's

  glm(y ~ x1 + x2, family = binomial, weights = w)      # --family binomial (logit link)
  glm(y ~ x1 + x2, family = gaussian)                   # --family gaussian (identity)

and print its coefficients with Wald standard errors, z (binomial) or t
(gaussian, estimated dispersion) statistics and p-values as summary.glm,
95 % Wald intervals β ± 1.96·SE as confint.default (or, with --ci profile,
profile-likelihood intervals as R 4.2's confint(fit), i.e. MASS's
profile.glm), and logLik, AIC, BIC, deviance and null deviance. The numbers
match R 4.2 to 1e-6 or better (testdata/reference/glm.R, glm_profile.R).

Formulas are R's: y ~ x1 + x2, x1:x2, x1*x2, -1 or +0 (no intercept),
I(x^2) and other arithmetic inside I(), log(x), exp(x), sqrt(x), scale(x),
offset(x) (a term with coefficient 1; --offset COL adds a column the same way).
Text columns are factors coded by treatment contrasts against their first
level in sorted order (columns named factor+level, e.g. modelB). A true/false
response counts true as 1. Rows with a missing value in any column the model
uses are left out and counted. Columns collinear with earlier ones (e.g. a
constant predictor) get no coefficient (NA in R, null in JSON) and a warning.
Random intercepts such as (1 | model) fit a mixed model as lme4 does: a linear
mixed model by REML (--ml for maximum likelihood) like lmer, with one or more
crossed intercepts; a logistic mixed model like glmer, by the Laplace
approximation (nAGQ = 1) with one or more crossed intercepts, or by adaptive
Gauss–Hermite quadrature with --nagq N points (nAGQ = N; one grouping factor,
as lme4), with --weights (trials behind a proportion) and offsets. p-values
are normal (Wald) for both (lme4 gives none for lmer). The logistic fits solve
each penalized IRLS to convergence, as glmer(control = glmerControl(tolPwrss =
1e-12)) does; glmer's default tolerance (1e-7) can leave its estimates about
1e-3 away with small groups. Standard errors: an LMM's are vcov(fit); a GLMM's
are vcov(fit) of that tight glmer fit, i.e. from the finite-difference Hessian
of the objective in (θ, β) (within 2e-3 of lme4's, testdata/reference/glmm.R).
A default glmer's vcov() uses the same Hessian on its looser objective: on
the reference data its SEs are within 1.3 % of these, except crossed random
intercepts, where lme4's default Hessian is broken (SE 0.0012 for 0.35).
vcov(fit, use.hessian = FALSE), from the last penalized IRLS's RX (θ held
fixed), is in the JSON as se_rx: up to 6 % smaller there. deviance is lme4's
deviance(fit): for a GLMM the conditional deviance at the conditional modes
(sum(residuals(fit, "deviance")^2), not −2·logLik), for an LMM the ML
criterion, or the REML criterion of a REML fit (deviance_kind says which);
df_residual is df.residual(fit) = n − (fixed effects + variance parameters,
+1 for an LMM's σ).

--data reads what rdeval ingest reads (the runs table's columns: agent, model,
hint_level, final_success, score, …) or a plain CSV table with any columns. A
.csv file is read as a plain table when the formula, --weights, --cluster or
--on name a column that is neither a runs column nor a --join column, or with
--table. --join FILE --on COL adds the columns of a second table (a plain CSV,
or an rdeval tasks table / ingested folder: task_id, gold_lines_changed,
gold_files_n, y_start, …) to each row whose COL matches (a left join).

--standardize x1,x2 (or all: every numeric predictor column) replaces x by
scale(x): centred and divided by its sd (n − 1), as R's scale().
--cluster COL gives cluster-robust CR1 standard errors, equal to
sandwich::vcovCL(fit, cluster = ~COL, type = "HC1"):
V = G/(G−1)·(n−1)/(n−k)·B(Σ_g u_g u_g')B, B = (X'WX)⁻¹.
Binomial outcomes must be 0/1 or proportions in [0, 1] (with the trials as
--weights); fractional successes are fitted as R does (dispersion 1) with R's
warning. Separation (fitted probabilities 0 or 1, diverging coefficients) and
non-convergence are reported as warnings and in the JSON. With separation,
--ci profile computes each interval from its definition, {b : profile deviance
− its infimum ≤ qchisq(0.95, 1)}, instead of MASS's SE-sized steps (which jump
over the likelihood when the SE is huge: R's confint gives NA or a wrong finite
limit); an end the profile never leaves the cut towards is printed as ±Inf
(null in JSON, with ci_low_open/ci_high_open saying why) and warned about
(testdata/reference/glm_separation.R).`,
		Example: `  rdeval regress --demo --where benchmark=rexbench --formula "final_success ~ hint_level + scale(lines_added) + (1|model)"
  rdeval regress --data study/ --where benchmark=rexbench --where hint_level=no_hints \
    --formula "final_success ~ gold_lines_changed + model" --join study/tasks.parquet --on task_id \
    --standardize gold_lines_changed
  rdeval regress --data runs.csv --formula "y ~ scale(x1) * f" --family binomial --cluster task_id --format json
  rdeval regress --data table.csv --table --formula "y2 ~ x1 + log(x3) - 1" --family gaussian --weights w
  rdeval regress --data runs.csv --formula "final_success ~ model + hint_level" --figure coefficients.svg
  rdeval regress --data runs.csv --formula "final_success ~ scale(gold_lines) + (1 | model)" --nagq 10
  rdeval regress --data table.csv --table --formula "y ~ x1 + offset(log(exposure))" --ci profile`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckFormat(opts.Format, cmdutil.FormatTable, cmdutil.FormatJSON, cmdutil.FormatLaTeX); err != nil {
				return err
			}
			if opts.Data == "" && !opts.Input.Demo {
				return cmdutil.Usagef("--data is required (a runs input, an rdeval table or folder, or a CSV table), or --demo for the embedded demo study")
			}
			if opts.Data != "" && opts.Input.Demo {
				return cmdutil.Usagef("--demo reads the embedded demo study: give no --data with it")
			}
			if opts.Formula == "" {
				return cmdutil.Usagef("--formula is required, e.g. --formula \"final_success ~ x1 + x2\"")
			}
			if (opts.Join == "") != (opts.On == "") {
				return cmdutil.Usagef("--join and --on go together: --join tasks.parquet --on task_id")
			}
			if opts.L2 < 0 {
				return cmdutil.Usagef("--l2 %v: want 0 or a positive penalty", opts.L2)
			}
			if opts.CI == study.CIProfile && (opts.Cluster != "" || opts.L2 != 0) {
				return cmdutil.Usagef("--ci profile with --cluster or --l2: profile intervals need the model's likelihood; use --ci wald")
			}
			if opts.NAGQ < 1 || opts.NAGQ > 100 {
				return cmdutil.Usagef("--nagq %d: want 1 (Laplace) to 100 quadrature points (lme4's nAGQ = 0, which profiles the fixed effects out of the PIRLS, is not implemented)", opts.NAGQ)
			}
			f, err := formula.Parse(opts.Formula)
			if err != nil {
				return &cmdutil.UsageError{Err: err}
			}
			if len(f.Random) > 0 {
				for _, r := range f.Random {
					if r.Expr != "1" {
						return cmdutil.Usagef("--formula: random term (%s): only random intercepts (1 | group) are supported", r.Label())
					}
				}
				switch {
				case opts.Weights != "" && opts.Family == string(analysis.Gaussian):
					return cmdutil.Usagef("--weights with random effects and --family gaussian: linear mixed models take no prior weights yet")
				case opts.Cluster != "":
					return cmdutil.Usagef("--cluster with random effects: the random intercept already models the grouping; drop --cluster")
				case opts.L2 != 0:
					return cmdutil.Usagef("--l2 with random effects is not supported")
				case opts.CI == study.CIProfile:
					return cmdutil.Usagef("--ci profile with random effects: profile intervals are implemented for GLMs only; mixed models get Wald intervals")
				case opts.NAGQ > 1 && opts.Family == string(analysis.Gaussian):
					return cmdutil.Usagef("--nagq %d with --family gaussian: quadrature applies to logistic mixed models (a linear mixed model's likelihood is exact)", opts.NAGQ)
				case opts.NAGQ > 1 && len(f.Random) > 1:
					return cmdutil.Usagef("--nagq %d with %d random intercepts: adaptive Gauss–Hermite quadrature needs a single grouping factor (lme4: nAGQ > 1 is only available for models with a single, scalar random-effects term); use --nagq 1 (Laplace)", opts.NAGQ, len(f.Random))
				}
			} else if opts.NAGQ > 1 {
				return cmdutil.Usagef("--nagq %d: quadrature applies to logistic mixed models, and the formula has no random intercept (1 | group)", opts.NAGQ)
			}
			opts.Parsed = f
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
	fl.StringVar(&opts.Data, "data", "", "input: runs (anything rdeval ingest reads) or a CSV table")
	fl.BoolVar(&opts.Table, "table", false, "read --data as a plain CSV table, not as runs")
	fl.StringVar(&opts.Formula, "formula", "", "R model formula, e.g. \"y ~ x1 + x2\"")
	cmdutil.EnumVar(cmd, &opts.Family, "family", "binomial", "binomial (logit link) or gaussian (identity link)", string(analysis.Binomial), string(analysis.Gaussian))
	fl.StringVar(&opts.Join, "join", "", "a second table (CSV, or rdeval tasks table/folder) whose columns are added by --on")
	fl.StringVar(&opts.On, "on", "", "the column that --join matches on, e.g. task_id")
	fl.StringSliceVar(&opts.Standardize, "standardize", nil, "columns to replace by scale(col), or all (every numeric predictor)")
	fl.StringVar(&opts.Weights, "weights", "", "prior-weights column (binomial: trials behind a proportion)")
	fl.StringVar(&opts.Cluster, "cluster", "", "cluster column: cluster-robust CR1 standard errors")
	fl.Float64Var(&opts.L2, "l2", 0, "ridge penalty λ on non-intercept coefficients (0: none)")
	fl.BoolVar(&opts.ML, "ml", false, "linear mixed models: maximum likelihood instead of REML")
	fl.IntVar(&opts.NAGQ, "nagq", 1, "logistic mixed models: adaptive Gauss–Hermite points (glmer nAGQ; 1 = Laplace; >1 needs one grouping factor)")
	fl.StringVar(&opts.Offset, "offset", "", "offset column added to the linear predictor (R's offset =; adds to offset() terms)")
	cmdutil.EnumVar(cmd, &opts.CI, "ci", study.CIWald, "GLM confidence intervals: wald (confint.default) or profile (profile likelihood, R 4.2's confint = MASS)", study.CIWald, study.CIProfile)
	fl.IntVar(&opts.MaxIter, "maxit", 25, "maximum IRLS iterations (R's glm.control maxit)")
	fl.StringVar(&opts.Format, "format", cmdutil.FormatTable, "output: table, json or latex (the coefficients, and a mixed model's random effects, as booktabs tables)")
	fl.StringVar(&opts.Figure, "figure", "", "also draw a forest plot of the coefficients (without the intercept) with their 95% intervals to this .svg, .png or .pdf file")
	cmdutil.AddInputFlags(cmd, &opts.Input, true)
	return cmd
}

// taskColumns are the tasks-table columns --join offers from an rdeval table.
var taskColumns = []string{"task_id", "benchmark", "family", "direction", "aggregation", "selection", "y_start", "y_ref",
	"human_reference", "gold_value", "gold_sd", "tolerance", "gold_lines_changed", "gold_files_n"}

func taskValue(t *ingest.Task, col string) string {
	optS := func(o ingest.Opt[string]) string {
		if o.Valid {
			return o.V
		}
		return ""
	}
	optF := func(o ingest.Opt[float64]) string {
		if o.Valid {
			return strconv.FormatFloat(o.V, 'g', -1, 64)
		}
		return ""
	}
	switch col {
	case "task_id":
		return t.TaskID
	case "benchmark":
		return t.Benchmark
	case "family":
		return optS(t.Family)
	case "direction":
		return optS(t.Direction)
	case "aggregation":
		return optS(t.Aggregation)
	case "selection":
		return optS(t.Selection)
	case "y_start":
		return optF(t.YStart)
	case "y_ref":
		return optF(t.YRef)
	case "human_reference":
		return optF(t.HumanReference)
	case "gold_value":
		return optF(t.GoldValue)
	case "gold_sd":
		return optF(t.GoldSD)
	case "tolerance":
		return optF(t.Tolerance)
	case "gold_lines_changed":
		if t.GoldLinesChanged.Valid {
			return strconv.FormatInt(t.GoldLinesChanged.V, 10)
		}
	case "gold_files_n":
		if t.GoldFiles != nil {
			return strconv.Itoa(len(t.GoldFiles))
		}
	}
	return ""
}

// readCSV reads a plain CSV table (header line, then rows).
func readCSV(path string) (formula.Table, error) {
	tab := formula.Table{Columns: map[string][]string{}}
	f, err := os.Open(path)
	if err != nil {
		return tab, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		return tab, &cmdutil.BadInputError{Err: fmt.Errorf("%s: %w", path, err)}
	}
	if len(rows) < 2 {
		return tab, &cmdutil.BadInputError{Err: fmt.Errorf("%s: no rows under the header", path)}
	}
	tab.Order = rows[0]
	for j, c := range rows[0] {
		if _, dup := tab.Columns[c]; dup {
			return tab, &cmdutil.BadInputError{Err: fmt.Errorf("%s: column %q appears twice in the header", path, c)}
		}
		col := make([]string, len(rows)-1)
		for i, r := range rows[1:] {
			col[i] = r[j]
		}
		tab.Columns[c] = col
	}
	return tab, nil
}

func nrows(t formula.Table) int {
	for _, c := range t.Columns {
		return len(c)
	}
	return 0
}

func isCSV(path string) bool {
	st, err := os.Stat(path)
	ext := strings.ToLower(filepath.Ext(path))
	return err == nil && !st.IsDir() && ext == ".csv"
}

// loadJoin reads the --join table: a CSV, or the tasks of an rdeval input.
func loadJoin(opts *Options) (formula.Table, error) {
	if isCSV(opts.Join) {
		return readCSV(opts.Join)
	}
	ds, err := ingest.Load([]string{opts.Join}, ingest.Options{})
	if err != nil {
		return formula.Table{}, err
	}
	if err := ds.Err(); err != nil {
		return formula.Table{}, cmdutil.ReportLoadError(opts.IO, err)
	}
	if len(ds.Tasks) == 0 {
		return formula.Table{}, &cmdutil.BadInputError{Err: fmt.Errorf("--join %s: no tasks table found", opts.Join)}
	}
	tab := formula.Table{Columns: map[string][]string{}, Order: taskColumns}
	for _, c := range taskColumns {
		col := make([]string, len(ds.Tasks))
		for i := range ds.Tasks {
			col[i] = taskValue(&ds.Tasks[i], c)
		}
		tab.Columns[c] = col
	}
	return tab, nil
}

// loadData reads --data as runs or as a plain table (see the help).
func loadData(opts *Options, join formula.Table) (formula.Table, error) {
	needed := append(opts.Parsed.Columns(), opts.Weights, opts.Cluster, opts.On, opts.Offset)
	plain := opts.Table
	if !plain && isCSV(opts.Data) {
		for _, c := range needed {
			if _, inJoin := join.Columns[c]; c != "" && !ingest.IsRunColumn(c) && (!inJoin || c == opts.On) {
				plain = true
			}
		}
	}
	if plain {
		tab, err := readCSV(opts.Data)
		if err != nil {
			return tab, err
		}
		return tab, applyWhere(&tab, opts.Input.Where)
	}
	var inputs []string
	if !opts.Input.Demo {
		inputs = []string{opts.Data}
	}
	ds, err := opts.Input.LoadForCommand(opts.IO, inputs)
	if err != nil {
		return formula.Table{}, err
	}
	return study.RunsTable(ds), nil
}

// applyWhere filters a plain table by --where COLUMN=V1,V2.
func applyWhere(tab *formula.Table, where []string) error {
	for _, w := range where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return cmdutil.Usagef("--where %q: want COLUMN=VALUE[,VALUE…]", w)
		}
		col, ok := tab.Columns[k]
		if !ok {
			return cmdutil.Usagef("--where %q: column %q not found; columns are: %s", w, k, strings.Join(tab.Order, ", "))
		}
		want := map[string]bool{}
		for _, x := range strings.Split(v, ",") {
			want[strings.TrimSpace(x)] = true
		}
		var keep []int
		for i, s := range col {
			if want[s] {
				keep = append(keep, i)
			}
		}
		if len(keep) == 0 {
			return cmdutil.Usagef("--where %s: no row matches", w)
		}
		for c, vals := range tab.Columns {
			nv := make([]string, len(keep))
			for j, i := range keep {
				nv[j] = vals[i]
			}
			tab.Columns[c] = nv
		}
	}
	return nil
}

// joinTables adds join's columns to data by a left join on key; it
// returns the number of data rows without a match.
func joinTables(data *formula.Table, join formula.Table, key string) (int, error) {
	dk, ok := data.Columns[key]
	if !ok {
		return 0, &formula.ColumnError{Name: key, Have: data.Order}
	}
	jk, ok := join.Columns[key]
	if !ok {
		return 0, fmt.Errorf("--on %s: the --join table has no column %q; columns are: %s", key, key, strings.Join(join.Order, ", "))
	}
	idx := map[string]int{}
	for i, k := range jk {
		if j, dup := idx[k]; dup {
			same := true
			for _, c := range join.Columns {
				if c[i] != c[j] {
					same = false
				}
			}
			if !same {
				return 0, &cmdutil.BadInputError{Err: fmt.Errorf("--join: %s %q appears in more than one row with different values", key, k)}
			}
			continue
		}
		idx[k] = i
	}
	unmatched := 0
	for _, k := range dk {
		if _, ok := idx[k]; !ok {
			unmatched++
		}
	}
	for _, c := range join.Order {
		if c == key {
			continue
		}
		name := c
		if _, clash := data.Columns[c]; clash {
			name = c + ".join"
		}
		col := make([]string, len(dk))
		for i, k := range dk {
			if j, ok := idx[k]; ok {
				col[i] = join.Columns[c][j]
			}
		}
		data.Columns[name] = col
		data.Order = append(data.Order, name)
	}
	return unmatched, nil
}

// run loads the data, fits the model and prints it.
func run(opts *Options) error {
	var join formula.Table
	var err error
	if opts.Join != "" {
		if join, err = loadJoin(opts); err != nil {
			return err
		}
	}
	tab, err := loadData(opts, join)
	if err != nil {
		return err
	}
	var warnings []error
	if opts.Join != "" {
		unmatched, err := joinTables(&tab, join, opts.On)
		if err != nil {
			var ce *formula.ColumnError
			if errors.As(err, &ce) {
				return cmdutil.Usagef("--on: %v", err)
			}
			return err
		}
		if unmatched > 0 {
			warnings = append(warnings, fmt.Errorf("%d of %d rows have no match in --join on %s: their joined columns are missing", unmatched, nrows(tab), opts.On))
		}
	}
	res, err := study.Regress(tab, opts.RegressParams, warnings)
	if err != nil {
		return err
	}
	opts.IO.Warn(res.Warnings...)
	switch {
	case opts.Format == cmdutil.FormatJSON:
		err = cmdutil.WriteJSON(opts.IO.Out, res)
	case res.Mixed != nil:
		err = writeMixed(opts, &res)
	default:
		err = writeTable(opts, res, res.GLM)
	}
	if err != nil || opts.Figure == "" {
		return err
	}
	return drawForest(opts, &res)
}

// drawForest writes --figure: every coefficient but the intercept with its
// 95 % interval, in the model's term order.
func drawForest(opts *Options, res *study.RegressResult) error {
	var coefs []figures.Coef
	for _, c := range res.Coefficients {
		if c.Term == "(Intercept)" {
			continue
		}
		coefs = append(coefs, figures.Coef{Term: c.Term, Estimate: c.Estimate, Lo: c.CILow, Hi: c.CIHigh})
	}
	xLabel := "Coefficient (log-odds)"
	if res.Family == string(analysis.Gaussian) {
		xLabel = "Coefficient"
	}
	p, err := figures.ForestFigure(res.Formula, xLabel, coefs)
	if err != nil {
		return err
	}
	if err := figures.SaveFile(p, figures.OneColumn, figures.Height(figures.OneColumn), opts.Figure); err != nil {
		return err
	}
	opts.IO.Infof("wrote %s", opts.Figure)
	return nil
}

func writeTable(opts *Options, res study.RegressResult, fit *analysis.GLMFit) error {
	w, notes := fitNotes(opts)
	link := "logit"
	if fit.Family == analysis.Gaussian {
		link = "identity"
	}
	fmt.Fprintf(w, "GLM %s (%s link): %s\n", fit.Family, link, res.Formula)
	if res.Offset != "" {
		fmt.Fprintf(w, "offset: %s\n", res.Offset)
	}
	fmt.Fprintf(w, "n = %d", fit.N)
	if res.NDropped > 0 {
		fmt.Fprintf(w, " (%d rows with missing values left out)", res.NDropped)
	}
	keys := make([]string, 0, len(res.NGroups))
	for k := range res.NGroups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, ", %d clusters of %s (CR1 standard errors)", res.NGroups[k], k)
	}
	fmt.Fprintln(w)
	t := cmdutil.Table{Header: []string{"term", "estimate", "se", fit.StatName, "p", "ci_low", "ci_high"}}
	f := func(v float64) string {
		if math.IsNaN(v) {
			return "NA"
		}
		return cmdutil.FormatFloat(v)
	}
	for _, c := range fit.Coefs {
		t.Rows = append(t.Rows, []string{c.Term, f(c.Estimate), f(c.SE), f(c.Stat), f(c.P), f(c.CILow), f(c.CIHigh)})
	}
	if notes == nil {
		if err := t.WriteText(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "logLik %s  AIC %s  BIC %s  deviance %s on %d df  null deviance %s",
		f(fit.LogLik), f(fit.AIC), f(fit.BIC), f(fit.Deviance), fit.DFResidual, f(fit.NullDeviance))
	if fit.Family == analysis.Gaussian {
		fmt.Fprintf(w, "  dispersion %s", f(fit.Dispersion))
	}
	conv := "converged"
	if !fit.Converged {
		conv = "NOT converged"
	}
	ciText := "95% Wald intervals (confint.default)"
	if res.CIMethod == study.CIProfile {
		ciText = "95% profile-likelihood intervals (confint, as MASS::profile.glm)"
		if fit.Separated && fit.Family == analysis.Binomial {
			ciText = "95% profile-likelihood intervals of a separated fit, from the profile deviance itself (±Inf: open ends; MASS::profile.glm gives NA or wrong limits there)"
		}
	}
	fmt.Fprintf(w, "\n%s in %d IRLS iterations; %s\n", conv, fit.Iterations, ciText)
	if len(res.Warnings) > 0 {
		fmt.Fprintf(w, "%d warning(s): see above\n", len(res.Warnings))
	}
	if notes != nil {
		return t.Cite(opts.IO, caption(notes)).WriteLaTeX(opts.IO.Out)
	}
	return nil
}

// fitNotes is where a fit's notes go (the lines around its tables):
// stdout, or with --format latex a buffer (notes) for the caption.
func fitNotes(opts *Options) (io.Writer, *strings.Builder) {
	if opts.Format == cmdutil.FormatLaTeX {
		b := &strings.Builder{}
		return b, b
	}
	return opts.IO.Out, nil
}

// caption is the notes as one line.
func caption(notes *strings.Builder) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(notes.String()), "\n", "; ")), " ")
}

// writeMixed prints a mixed model's fit as a table.
func writeMixed(opts *Options, res *study.RegressResult) error {
	fit := res.Mixed
	w, notes := fitNotes(opts)
	kind := "GLMM binomial (logit link, Laplace approximation, as glmer nAGQ = 1)"
	if fit.NAGQ > 1 {
		kind = fmt.Sprintf("GLMM binomial (logit link, adaptive Gauss–Hermite quadrature with %d points, as glmer nAGQ = %d)", fit.NAGQ, fit.NAGQ)
	}
	if fit.Family == analysis.Gaussian {
		kind = "LMM (REML, as lmer)"
		if !fit.REML {
			kind = "LMM (maximum likelihood, as lmer REML = FALSE)"
		}
	}
	fmt.Fprintf(w, "%s: %s\n", kind, res.Formula)
	if res.Offset != "" {
		fmt.Fprintf(w, "offset: %s\n", res.Offset)
	}
	fmt.Fprintf(w, "n = %d", fit.N)
	for _, g := range res.RandomGroups {
		fmt.Fprintf(w, ", %d groups of %s", fit.NGroups[g], g)
	}
	fmt.Fprintln(w)
	fl := func(v float64) string {
		if math.IsNaN(v) {
			return "NA"
		}
		return cmdutil.FormatFloat(v)
	}
	t := cmdutil.Table{Header: []string{"term", "estimate", "se", fit.StatName, "p", "ci_low", "ci_high"}}
	for _, c := range fit.Coefficients {
		t.Rows = append(t.Rows, []string{c.Term, fl(c.Estimate), fl(c.SE), fl(c.Z), fl(c.P), fl(c.CILow), fl(c.CIHigh)})
	}
	if notes == nil {
		if err := t.WriteText(w); err != nil {
			return err
		}
		fmt.Fprintln(w, "random effects:")
	}
	rt := cmdutil.Table{Header: []string{"group", "term", "variance", "sd"}}
	for _, r := range fit.RandomEffects {
		rt.Rows = append(rt.Rows, []string{r.Group, r.Term, fl(r.Variance), fl(r.SD)})
	}
	if notes == nil {
		if err := rt.WriteText(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "logLik %s  AIC %s  BIC %s  deviance %s (%s) on %d df\n", fl(fit.LogLik), fl(fit.AIC), fl(fit.BIC), fl(fit.Deviance), fit.DevianceKind, fit.DFResidual)
	if notes != nil {
		if err := t.Cite(opts.IO, "Fixed effects of the "+caption(notes)).WriteLaTeX(opts.IO.Out); err != nil {
			return err
		}
		rt.Cite(opts.IO, "Random effects (variance and sd) of the "+res.Formula+" fit.").Source.Label = "tab:rdeval-regress-random"
		return rt.WriteLaTeX(opts.IO.Out)
	}
	return nil
}

package study

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rdeval/rdeval/analysis"
	"github.com/rdeval/rdeval/analysis/formula"
	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// RegressParams are a model and how to fit it (rdeval regress's flags).
type RegressParams struct {
	Formula string
	// Parsed is Formula parsed; nil: Regress parses it.
	Parsed      *formula.Formula
	Family      string // binomial or gaussian
	Standardize []string
	Weights     string
	Cluster     string
	L2          float64
	ML          bool // linear mixed models: ML instead of REML
	NAGQ        int  // binomial mixed models: quadrature points (1: Laplace)
	Offset      string
	CI          string // CIWald or CIProfile
	MaxIter     int
}

// RegressResult is a fitted model. Its JSON form is rdeval regress
// --format json.
type RegressResult struct {
	Family        string
	Formula       string
	N             int
	NDropped      int
	NGroups       map[string]int
	LogLik        float64
	AIC           float64
	BIC           float64
	Deviance      float64 // mixed models: lme4's deviance(fit), of DevianceKind
	DevianceKind  string
	NullDeviance  float64 // NaN for mixed models
	Dispersion    float64 // NaN for mixed models
	DFResidual    int
	SEType        string
	Statistic     string // "z" or "t"
	Coefficients  []Coef
	RandomEffects []RandomEffect
	Factors       map[string][]string
	NAGQ          int
	Offset        string
	CIMethod      string
	Iterations    int
	Converged     bool
	Warnings      []error

	// The fit itself: GLM for a GLM, Mixed (and the random terms' groups,
	// in formula order) for a mixed model.
	GLM          *analysis.GLMFit
	Mixed        *analysis.MixedFit
	RandomGroups []string
}

// Coef is one coefficient of a fitted model.
type Coef struct {
	Term                                 string
	Estimate, SE, Stat, P, CILow, CIHigh float64
	StatName                             string // name of Stat: "z" or "t"
	Aliased                              bool
	// SERX is a binomial mixed model's vcov(fit, use.hessian = FALSE)
	// standard error (HasSERX: it has one).
	SERX    float64
	HasSERX bool
	// markOpen: a ±Inf interval end is a profile interval's open end
	// (GLMs), said in the JSON.
	markOpen bool
}

// MarshalJSON writes the coefficient as rdeval regress does: an object
// with the statistic under its name, NaN as null.
func (c Coef) MarshalJSON() ([]byte, error) {
	m := map[string]any{"term": c.Term, "estimate": cmdutil.JSONNum(c.Estimate), "se": cmdutil.JSONNum(c.SE),
		c.StatName: cmdutil.JSONNum(c.Stat), "p": cmdutil.JSONNum(c.P), "ci_low": cmdutil.JSONNum(c.CILow), "ci_high": cmdutil.JSONNum(c.CIHigh), "aliased": c.Aliased}
	if c.markOpen {
		// An open end of a profile interval (separation) is null in JSON: say why.
		for _, e := range []struct {
			key string
			v   float64
		}{{"ci_low", c.CILow}, {"ci_high", c.CIHigh}} {
			if math.IsInf(e.v, 0) {
				m[e.key+"_open"] = fmt.Sprintf("%v: separation; the likelihood profile stays within the cut as the coefficient goes to %v, so the interval is open (R's confint gives NA)", e.v, e.v)
			}
		}
	}
	if c.HasSERX {
		m["se_rx"] = cmdutil.JSONNum(c.SERX) // vcov(fit, use.hessian = FALSE)
	}
	return json.Marshal(m)
}

// MarshalJSON writes the result in rdeval regress's JSON layout.
func (r RegressResult) MarshalJSON() ([]byte, error) {
	ws := make([]string, len(r.Warnings))
	for i, w := range r.Warnings {
		ws[i] = w.Error()
	}
	type out struct {
		Family        string              `json:"family"`
		Formula       string              `json:"formula"`
		N             int                 `json:"n"`
		NDropped      int                 `json:"n_dropped"`
		NGroups       map[string]int      `json:"n_groups"`
		LogLik        any                 `json:"loglik"`
		AIC           any                 `json:"aic"`
		BIC           any                 `json:"bic"`
		Deviance      any                 `json:"deviance"`
		DevianceKind  string              `json:"deviance_kind,omitempty"`
		NullDeviance  any                 `json:"null_deviance"`
		Dispersion    any                 `json:"dispersion"`
		DFResidual    int                 `json:"df_residual"`
		SEType        string              `json:"se_type"`
		Statistic     string              `json:"statistic"`
		Coefficients  []Coef              `json:"coefficients"`
		RandomEffects []RandomEffect      `json:"random_effects"`
		Factors       map[string][]string `json:"factor_levels"`
		NAGQ          int                 `json:"nagq,omitempty"`
		Offset        string              `json:"offset,omitempty"`
		CIMethod      string              `json:"ci_method"`
		Iterations    int                 `json:"iterations"`
		Converged     bool                `json:"converged"`
		Warnings      []string            `json:"warnings"`
	}
	return json.Marshal(out{r.Family, r.Formula, r.N, r.NDropped, r.NGroups, cmdutil.JSONNum(r.LogLik), cmdutil.JSONNum(r.AIC), cmdutil.JSONNum(r.BIC),
		cmdutil.JSONNum(r.Deviance), r.DevianceKind, cmdutil.JSONNum(r.NullDeviance), cmdutil.JSONNum(r.Dispersion), r.DFResidual, r.SEType, r.Statistic,
		r.Coefficients, r.RandomEffects, r.Factors, r.NAGQ, r.Offset, r.CIMethod, r.Iterations, r.Converged, ws})
}

// RandomEffect is one row of random_effects in the JSON output.
type RandomEffect struct {
	Group    string  `json:"group"`
	Term     string  `json:"term"`
	Variance float64 `json:"variance"`
	SD       float64 `json:"sd"`
}

// Finite is c with ±Inf read as NaN, as in the JSON (null).
func (c Coef) Finite() Coef {
	for _, x := range []*float64{&c.Estimate, &c.SE, &c.Stat, &c.P, &c.CILow, &c.CIHigh} {
		if math.IsInf(*x, 0) {
			*x = math.NaN()
		}
	}
	return c
}

// JoinWarnings joins warnings' texts with sep.
func JoinWarnings(ws []error, sep string) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.Error()
	}
	return strings.Join(s, sep)
}

// Coefficient returns the coefficient named term; a term the model does
// not have is an error listing the terms it has.
func (r *RegressResult) Coefficient(term string) (Coef, error) {
	var terms []string
	for _, c := range r.Coefficients {
		if c.Term == term {
			return c, nil
		}
		terms = append(terms, c.Term)
	}
	return Coef{}, fmt.Errorf("the model has no term %q (its terms: %s)", term, strings.Join(terms, ", "))
}

// CheckFamily validates a GLM family as claims files (audit), multiverse
// specs and study configs give it: "" means binomial; otherwise binomial or
// gaussian.
func CheckFamily(family string) (string, error) {
	if family == "" {
		return string(analysis.Binomial), nil
	}
	if family != string(analysis.Binomial) && family != string(analysis.Gaussian) {
		return "", fmt.Errorf("family %q: want binomial or gaussian", family)
	}
	return family, nil
}

// The confidence-interval methods of Regress (--ci).
const (
	CIWald    = "wald"
	CIProfile = "profile"
)

// offsetLabel names the model's offsets for the output: the --offset column
// and the formula's offset() terms, joined by " + ".
func offsetLabel(opts RegressParams, f *formula.Formula) string {
	var parts []string
	for _, o := range f.Offsets {
		parts = append(parts, "offset("+o.Label()+")")
	}
	if opts.Offset != "" {
		parts = append(parts, opts.Offset)
	}
	return strings.Join(parts, " + ")
}

// RunsTable is ds's runs as a formula table: every runs column, as text
// ("" for a missing value).
func RunsTable(ds *ingest.Dataset) formula.Table {
	cols := ingest.RunColumnNames()
	tab := formula.Table{Columns: map[string][]string{}, Order: cols}
	for _, c := range cols {
		col := make([]string, len(ds.Runs))
		for i := range ds.Runs {
			v, ok := ingest.RunValue(&ds.Runs[i], c)
			if ok {
				col[i] = v
			}
		}
		tab.Columns[c] = col
	}
	return tab
}

// Regress fits the model of p on a table (RunsTable for runs): a GLM
// (analysis.FitGLM), or with random intercepts a mixed model
// (analysis.FitMixed). warnings are the caller's (e.g. of a join), put
// first on the result. Errors name the command's flags (--formula,
// --weights, …): a caller without flags (audit, multiverse) gives the same
// fields in its spec.
func Regress(tab formula.Table, p RegressParams, warnings []error) (RegressResult, error) {
	var res RegressResult
	f := p.Parsed
	if f == nil {
		var err error
		if f, err = formula.Parse(p.Formula); err != nil {
			return res, err
		}
	}
	if len(p.Standardize) > 0 {
		set := map[string]bool{}
		all := len(p.Standardize) == 1 && p.Standardize[0] == "all"
		for _, t := range f.Terms {
			for _, e := range t {
				for _, c := range e.Columns(nil) {
					vals, ok := tab.Columns[c]
					if !ok {
						return res, cmdutil.Usagef("--formula: %v", &formula.ColumnError{Name: c, Have: tab.Order})
					}
					if all && formula.IsNumeric(c, vals) {
						set[c] = true
					}
				}
			}
		}
		if !all {
			used := map[string]bool{}
			for _, c := range f.Columns() {
				used[c] = true
			}
			for _, c := range p.Standardize {
				if !used[c] {
					return res, cmdutil.Usagef("--standardize %s: not a predictor of the formula", c)
				}
				if !formula.IsNumeric(c, tab.Columns[c]) {
					return res, cmdutil.Usagef("--standardize %s: the column is not numeric", c)
				}
				set[c] = true
			}
		}
		f.Standardize(set)
	}
	var req []string
	for _, c := range []string{p.Weights, p.Cluster, p.Offset} {
		if c != "" {
			req = append(req, c)
		}
	}
	for _, r := range f.Random {
		req = append(req, r.Group)
	}
	d, err := formula.Build(f, tab, formula.Options{Require: req})
	if err != nil {
		var ce *formula.ColumnError
		if errors.As(err, &ce) {
			return res, cmdutil.Usagef("--formula: %v", err)
		}
		return res, &cmdutil.BadInputError{Err: err}
	}
	warnings = append(warnings, d.Warnings...)
	if d.Dropped > 0 {
		warnings = append(warnings, fmt.Errorf("%d rows with a missing value in a model column left out (%d used)", d.Dropped, len(d.Rows)))
	}
	gopt := analysis.GLMOptions{Family: analysis.GLMFamily(p.Family), Intercept: d.Intercept, L2: p.L2, MaxIter: p.MaxIter}
	if p.Weights != "" {
		for _, i := range d.Rows {
			v, err := strconv.ParseFloat(strings.TrimSpace(tab.Columns[p.Weights][i]), 64)
			if err != nil {
				return res, &cmdutil.BadInputError{Err: fmt.Errorf("--weights %s: row %d: %q is not a number", p.Weights, i+1, tab.Columns[p.Weights][i])}
			}
			gopt.Weights = append(gopt.Weights, v)
		}
	}
	if p.Cluster != "" {
		for _, i := range d.Rows {
			gopt.Cluster = append(gopt.Cluster, tab.Columns[p.Cluster][i])
		}
	}
	gopt.Offset = d.Offset
	if p.Offset != "" {
		if gopt.Offset == nil {
			gopt.Offset = make([]float64, len(d.Rows))
		}
		for r, i := range d.Rows {
			v, err := strconv.ParseFloat(strings.TrimSpace(tab.Columns[p.Offset][i]), 64)
			if err != nil || math.IsInf(v, 0) {
				return res, &cmdutil.BadInputError{Err: fmt.Errorf("--offset %s: row %d: %q is not a finite number", p.Offset, i+1, tab.Columns[p.Offset][i])}
			}
			gopt.Offset[r] += v
		}
	}
	if p.Family == string(analysis.Binomial) {
		for r, y := range d.Y {
			if y < 0 || y > 1 {
				return res, &cmdutil.BadInputError{Err: fmt.Errorf("binomial outcome %s = %g at row %d: want 0/1, true/false, or a proportion in [0, 1] (use --family gaussian for other outcomes)", d.Response, y, d.Rows[r]+1)}
			}
		}
	}
	if len(f.Random) > 0 {
		return regressMixed(p, f, tab, d, gopt, warnings)
	}
	fit, err := analysis.FitGLM(d.X, d.Y, d.Names, gopt)
	if err != nil {
		return res, &cmdutil.BadInputError{Err: err}
	}
	warnings = append(warnings, fit.Warnings...)
	if p.CI == CIProfile {
		ci, pw, err := analysis.GLMProfileCI(d.X, d.Y, d.Names, gopt, fit, 0.95)
		if err != nil {
			return res, &cmdutil.BadInputError{Err: err}
		}
		for j := range fit.Coefs {
			fit.Coefs[j].CILow, fit.Coefs[j].CIHigh = ci[j][0], ci[j][1]
		}
		warnings = append(warnings, pw...)
	}
	res = RegressResult{Family: p.Family, Formula: p.Formula, N: fit.N, NDropped: d.Dropped, NGroups: map[string]int{},
		LogLik: fit.LogLik, AIC: fit.AIC, BIC: fit.BIC, Deviance: fit.Deviance, NullDeviance: fit.NullDeviance,
		Dispersion: fit.Dispersion, DFResidual: fit.DFResidual, SEType: fit.SEType, Statistic: fit.StatName,
		RandomEffects: []RandomEffect{}, Factors: map[string][]string{}, Offset: offsetLabel(p, f), CIMethod: p.CI, Iterations: fit.Iterations, Converged: fit.Converged,
		Warnings: warnings, GLM: fit}
	if p.Cluster != "" {
		res.NGroups[p.Cluster] = fit.NClusters
	}
	for k, v := range d.Factors {
		res.Factors[k] = v
	}
	for _, c := range fit.Coefs {
		res.Coefficients = append(res.Coefficients, Coef{Term: c.Term, Estimate: c.Estimate, SE: c.SE, Stat: c.Stat, StatName: fit.StatName, P: c.P, CILow: c.CILow, CIHigh: c.CIHigh, Aliased: c.Aliased, markOpen: true})
	}
	return res, nil
}

// regressMixed fits a model with random intercepts (analysis.FitMixed:
// lmer REML/ML, or glmer Laplace).
func regressMixed(p RegressParams, f *formula.Formula, tab formula.Table, d *formula.Design, gopt analysis.GLMOptions, warnings []error) (RegressResult, error) {
	var res RegressResult
	var groups []analysis.MixedGroup
	for _, r := range f.Random {
		g := analysis.MixedGroup{Name: r.Group}
		for _, i := range d.Rows {
			g.Levels = append(g.Levels, tab.Columns[r.Group][i])
		}
		groups = append(groups, g)
	}
	if p.Family == string(analysis.Binomial) && gopt.Weights == nil {
		for r, y := range d.Y {
			if y != 0 && y != 1 {
				return res, &cmdutil.BadInputError{Err: fmt.Errorf("binomial mixed model: outcome %s = %g at row %d: want 0/1 or true/false (or a proportion with the trials as --weights)", d.Response, y, d.Rows[r]+1)}
			}
		}
	}
	fit, err := analysis.FitMixed(d.X, d.Y, d.Names, groups, analysis.MixedOptions{Family: analysis.GLMFamily(p.Family), ML: p.ML, Level: 0.95,
		NAGQ: p.NAGQ, Weights: gopt.Weights, Offset: gopt.Offset})
	if err != nil {
		return res, &cmdutil.BadInputError{Err: err}
	}
	warnings = append(warnings, fit.Warnings...)
	res = RegressResult{Family: p.Family, Formula: p.Formula, N: fit.N, NDropped: d.Dropped, NGroups: fit.NGroups,
		LogLik: fit.LogLik, AIC: fit.AIC, BIC: fit.BIC, Deviance: fit.Deviance, DevianceKind: fit.DevianceKind, NullDeviance: math.NaN(), Dispersion: math.NaN(), DFResidual: fit.DFResidual,
		SEType: "model", Statistic: fit.StatName, RandomEffects: []RandomEffect{}, Factors: map[string][]string{}, NAGQ: fit.NAGQ, Offset: offsetLabel(p, f), CIMethod: CIWald,
		Iterations: fit.Evaluations, Converged: fit.Converged, Warnings: warnings, Mixed: fit}
	for k, v := range d.Factors {
		res.Factors[k] = v
	}
	for _, c := range fit.Coefficients {
		res.Coefficients = append(res.Coefficients, Coef{Term: c.Term, Estimate: c.Estimate, SE: c.SE, Stat: c.Z, StatName: fit.StatName, P: c.P, CILow: c.CILow, CIHigh: c.CIHigh,
			SERX: c.SERX, HasSERX: fit.Family == analysis.Binomial})
	}
	for _, r := range fit.RandomEffects {
		res.RandomEffects = append(res.RandomEffects, RandomEffect{Group: r.Group, Term: r.Term, Variance: r.Variance, SD: r.SD})
	}
	for _, r := range f.Random {
		res.RandomGroups = append(res.RandomGroups, r.Group)
	}
	return res, nil
}

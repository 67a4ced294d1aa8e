package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis/formula"
)

func glmRelClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), 1e-300) || got == want
}

// TestGLMReference fits every model of testdata/reference/glm.R (R 4.2.2
// glm, summary.glm, confint.default, logLik/AIC/BIC, sandwich 3.0.2 vcovCL
// type HC1) on glm_data.csv and compares coefficients, SEs, statistics and
// intervals to 1e-6 relative (p to 1e-6 relative or 1e-15 absolute) and
// logLik, AIC, BIC, deviances to 1e-8 relative.
func TestGLMReference(t *testing.T) {
	tab := readReferenceTable(t, "glm_data.csv")
	coefs := map[string][][]string{}
	for _, r := range readReference(t, "glm_coef.csv") {
		coefs[r[0]] = append(coefs[r[0]], r)
	}
	for _, st := range readReference(t, "glm_stats.csv") {
		id, form, fam, wcol, ccol := st[0], st[1], st[2], st[3], st[4]
		t.Run(id, func(t *testing.T) {
			f, err := formula.Parse(form)
			if err != nil {
				t.Fatal(err)
			}
			var req []string
			if wcol != "" {
				req = append(req, wcol)
			}
			if ccol != "" {
				req = append(req, ccol)
			}
			d, err := formula.Build(f, tab, formula.Options{Require: req})
			if err != nil {
				t.Fatal(err)
			}
			opt := GLMOptions{Family: GLMFamily(fam), Intercept: d.Intercept}
			if wcol != "" {
				for _, i := range d.Rows {
					opt.Weights = append(opt.Weights, atof(t, tab.Columns[wcol][i]))
				}
			}
			if ccol != "" {
				for _, i := range d.Rows {
					opt.Cluster = append(opt.Cluster, tab.Columns[ccol][i])
				}
			}
			fit, err := FitGLM(d.X, d.Y, d.Names, opt)
			if err != nil {
				t.Fatal(err)
			}
			want := coefs[id]
			if len(want) != len(fit.Coefs) {
				t.Fatalf("%d coefficients %v, R has %d", len(fit.Coefs), d.Names, len(want))
			}
			for j, w := range want {
				c := fit.Coefs[j]
				if c.Term != w[1] {
					t.Errorf("term %d: %q, R %q", j, c.Term, w[1])
				}
				for k, got := range []float64{c.Estimate, c.SE, c.Stat, c.P, c.CILow, c.CIHigh} {
					ref := atof(t, w[2+k])
					ok := glmRelClose(got, ref, 1e-6)
					if k == 3 {
						ok = ok || math.Abs(got-ref) < 1e-15
					}
					if !ok {
						t.Errorf("%s %s: %.12g, R %.12g (rel %.2g)", c.Term, []string{"estimate", "se", "stat", "p", "ci_low", "ci_high"}[k], got, ref, math.Abs(got-ref)/math.Abs(ref))
					}
				}
			}
			for k, got := range []float64{float64(fit.N), fit.LogLik, fit.AIC, fit.BIC, fit.Deviance, fit.NullDeviance, fit.Dispersion} {
				ref := atof(t, st[5+k])
				if !glmRelClose(got, ref, 1e-8) {
					t.Errorf("%s: %.15g, R %.15g", []string{"n", "loglik", "aic", "bic", "deviance", "null_deviance", "dispersion"}[k], got, ref)
				}
			}
			if !fit.Converged {
				t.Errorf("not converged")
			}
			if iter := int(atof(t, st[12])); fit.Iterations != iter {
				t.Errorf("iterations %d, R %d", fit.Iterations, iter)
			}
			nonInt := false
			for _, w := range fit.Warnings {
				if strings.Contains(w.Error(), "non-integer") {
					nonInt = true
				}
			}
			if nonInt {
				t.Errorf("unexpected warnings %v", fit.Warnings)
			}
		})
	}
}

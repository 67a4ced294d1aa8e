package analysis

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestGLMMReference fits every model of testdata/reference/glmm.R (R 4.2.2,
// lme4 1.1.31 glmer binomial: nAGQ = 1, 5, 10, 25 and 7 with one grouping
// factor, two crossed grouping factors, prior weights with proportions,
// offsets) on glmm_data.csv.
//
// Against the fits with glmerControl(tolPwrss = 1e-12) it compares fixed
// effects and RX-based SEs to 1e-3 relative, the Hessian-based SEs to 2e-3
// (lme4's finite-difference Hessian carries PIRLS noise; see
// TestMixedReference), variance components to 1e-2, and −2·logLik, AIC and
// BIC to 1e-6.
//
// Against the fits with lme4's default tolPwrss = 1e-7 ("@default": its
// deviance is accurate to about 1e-7 relative only, and two of them end
// with convergence warnings) it checks that the criterion is not higher
// than lme4's by more than 1e-6 relative nor lower by more than 1e-4, the
// estimates within 5e-3, the RX-based SEs within 1e-2 and the variance
// components within 2e-2; the Hessian-based SEs are not compared (those of
// the crossed default fits are broken in lme4, 0.0012 for 0.35). Where
// lme4's default fit warns that it failed to converge, only the criterion
// is checked, and only that it is not higher than lme4's.
func TestGLMMReference(t *testing.T) {
	tab := readReferenceTable(t, "glmm_data.csv")
	coefs := map[string][][]string{}
	for _, r := range readReference(t, "glmm_coef.csv") {
		coefs[r[0]] = append(coefs[r[0]], r)
	}
	// Hessian SEs of the tight fits by numDeriv's Richardson extrapolation
	// on lme4's deviance function (glmm_hessian.R): more accurate than
	// lme4's own finite differences, so held to 1e-3 as the issue asks.
	nd := hessianSE(t)
	vcs := map[string][][]string{}
	for _, r := range readReference(t, "glmm_varcomp.csv") {
		vcs[r[0]] = append(vcs[r[0]], r)
	}
	for _, st := range readReference(t, "glmm_stats.csv") {
		id, form, wcol, ocol := st[0], st[1], st[4], st[5]
		loose := strings.HasSuffix(id, "@default")
		warned := loose && st[13] != ""
		nagq, err := strconv.Atoi(st[2])
		if err != nil {
			t.Fatal(err)
		}
		t.Run(id, func(t *testing.T) {
			d, gs := mixedDesign(t, form, tab)
			opt := MixedOptions{Family: Binomial, NAGQ: nagq}
			for _, i := range d.Rows {
				if wcol != "" {
					opt.Weights = append(opt.Weights, atof(t, tab.Columns[wcol][i]))
				}
				if ocol != "" {
					opt.Offset = append(opt.Offset, atof(t, tab.Columns[ocol][i]))
				}
			}
			fit, err := FitMixed(d.X, d.Y, d.Names, gs, opt)
			if err != nil {
				t.Fatal(err)
			}
			rel := func(got, ref float64) float64 { return math.Abs(got-ref) / math.Abs(ref) }
			want := coefs[id]
			if len(want) != len(fit.Coefficients) {
				t.Fatalf("%d coefficients, R has %d", len(fit.Coefficients), len(want))
			}
			for j, w := range want {
				c := fit.Coefficients[j]
				if c.Term != w[1] {
					t.Errorf("term %d: %q, R %q", j, c.Term, w[1])
				}
				for k, got := range []float64{c.Estimate, c.SE, c.SERX} {
					ref := atof(t, w[2+k])
					tol := []float64{1e-3, 2e-3, 1e-3}[k]
					if loose {
						tol = []float64{5e-3, math.Inf(1), 1e-2}[k]
					}
					name := []string{"estimate", "se", "se_rx"}[k]
					t.Logf("%s %s: %.10g, R %.10g (rel %.2g)", c.Term, name, got, ref, rel(got, ref))
					if rel(got, ref) > tol && !warned {
						t.Errorf("%s %s: %.10g, R %.10g (rel %.2g > %g)", c.Term, name, got, ref, rel(got, ref), tol)
					}
				}
			}
			if !loose {
				for _, c := range fit.Coefficients {
					ref, ok := nd[id][c.Term]
					if !ok {
						t.Fatalf("no numDeriv SE for %s %s", id, c.Term)
					}
					t.Logf("%s se vs numDeriv: %.10g, R %.10g (rel %.2g)", c.Term, c.SE, ref, rel(c.SE, ref))
					if rel(c.SE, ref) > 1e-3 {
						t.Errorf("%s se: %.10g, numDeriv Hessian %.10g (rel %.2g > 1e-3)", c.Term, c.SE, ref, rel(c.SE, ref))
					}
				}
			}
			wv := vcs[id]
			if len(wv) != len(fit.RandomEffects) {
				t.Fatalf("%d variance components %+v, R has %d", len(fit.RandomEffects), fit.RandomEffects, len(wv))
			}
			for j, w := range wv {
				re := fit.RandomEffects[j]
				if re.Group != w[1] {
					t.Errorf("component %d: group %q, R %q", j, re.Group, w[1])
				}
				for k, got := range []float64{re.Variance, re.SD} {
					ref := atof(t, w[2+k])
					name := []string{"variance", "sd"}[k]
					t.Logf("%s %s: %.10g, R %.10g (rel %.2g)", re.Group, name, got, ref, rel(got, ref))
					if tol := map[bool]float64{false: 1e-2, true: 2e-2}[loose]; rel(got, ref) > tol && !warned {
						t.Errorf("%s %s: %.10g, R %.10g (rel %.2g > %g)", re.Group, name, got, ref, rel(got, ref), tol)
					}
				}
			}
			for k, got := range []float64{float64(fit.N), fit.LogLik, fit.AIC, fit.BIC, fit.Criterion} {
				ref := atof(t, st[6+k])
				name := []string{"n", "loglik", "aic", "bic", "criterion"}[k]
				t.Logf("%s: %.12g, R %.12g (rel %.2g)", name, got, ref, rel(got, ref))
				bad := rel(got, ref) > 1e-6
				if loose && k > 0 {
					// Lower is better for AIC, BIC and the criterion, higher for logLik.
					worse := got - ref
					if k == 1 {
						worse = -worse
					}
					bad = worse > 1e-6*math.Abs(ref) || (rel(got, ref) > 1e-4 && !warned)
				}
				if bad {
					t.Errorf("%s: %.12g, R %.12g (rel %.2g)", name, got, ref, rel(got, ref))
				}
			}
			if fit.NAGQ != nagq {
				t.Errorf("NAGQ %d, want %d", fit.NAGQ, nagq)
			}
			if !fit.Converged {
				t.Errorf("not converged")
			}
			t.Logf("theta %v (R %s), %d evaluations", fit.Theta, st[11], fit.Evaluations)
		})
	}
}

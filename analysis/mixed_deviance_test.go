package analysis

import (
	"math"
	"strconv"
	"testing"
)

// TestMixedDevianceReference: deviance(fit) and df.residual(fit) of every
// model in testdata/reference/mixed_deviance.R (R 4.2.2, lme4 1.1.31, glmer
// with tolPwrss = 1e-12) on mixed_data.csv and glmm_data.csv (issue 25 item
// 5: the JSON reported deviance null and df_residual 0). df.residual is
// exact; the deviance is held to 2e-6 relative for glmer (the conditional
// deviance moves with β̂ and û, which match lme4's to about 1e-6 here; the
// largest difference measured is 4.3e-7, agq25) and 1e-6 for lmer (the
// criterion, as TestMixedReference; measured 8.4e-12 at most).
func TestMixedDevianceReference(t *testing.T) {
	tabs := map[string]string{"lmm_reml": "mixed", "lmm_ml": "mixed", "lmm_crossed_reml": "mixed", "lmm_crossed_ml": "mixed",
		"glmm_laplace": "mixed", "lmm_offset_reml": "mixed"}
	mixed, glmm := readReferenceTable(t, "mixed_data.csv"), readReferenceTable(t, "glmm_data.csv")
	for _, r := range readReference(t, "mixed_deviance.csv") {
		id, form, fam, reml, wcol, ocol := r[0], r[1], r[2], r[3] == "true", r[5], r[6]
		nagq, _ := strconv.Atoi(r[4])
		t.Run(id, func(t *testing.T) {
			tab := glmm
			if tabs[id] == "mixed" {
				tab = mixed
			}
			d, gs := mixedDesign(t, form, tab)
			opt := MixedOptions{Family: GLMFamily(fam), ML: !reml, NAGQ: nagq}
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
			dev, df := atof(t, r[8]), int(atof(t, r[9]))
			tol := 1e-6
			kind := map[bool]string{true: "REML criterion", false: "ML"}[reml]
			if fam == "binomial" {
				tol, kind = 2e-6, "conditional"
			}
			rel := math.Abs(fit.Deviance-dev) / dev
			t.Logf("deviance %.12g (%s), lme4 %.12g (rel %.2g); df.residual %d, lme4 %d", fit.Deviance, fit.DevianceKind, dev, rel, fit.DFResidual, df)
			if rel > tol {
				t.Errorf("deviance %.12g, lme4 %.12g (rel %.2g > %g)", fit.Deviance, dev, rel, tol)
			}
			if fit.DevianceKind != kind {
				t.Errorf("deviance kind %q, want %q", fit.DevianceKind, kind)
			}
			if fit.DFResidual != df {
				t.Errorf("df.residual %d, lme4 %d", fit.DFResidual, df)
			}
		})
	}
}

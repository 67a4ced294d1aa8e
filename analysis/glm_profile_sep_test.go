package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis/formula"
)

// TestGLMProfileSeparation (issue 25 item 3): y ~ x + f on
// testdata/reference/glm_separation_data.csv, where every f = b row
// succeeds (quasi-complete separation by fb). glm_separation.R (R 4.2.2,
// MASS 7.3.58.2) computes the true 95 % profile intervals by glm.fit and
// uniroot from their definition: fb's is (2.9101, +Inf), while R's
// confint gives (−228.3, NA) and rdeval's MASS algorithm gave (−115, 158).
// rdeval must give the true interval: finite limits within 1e-6 relative
// (both solve the same root to 1e-10; the Newton and IRLS minimizations
// agree to about 1e-9), the open end +Inf, with a warning naming fb.
// The other two coefficients' true intervals differ from R's confint (a
// spline through the profile) by up to 1.6e-4: rdeval gives the true ones.
func TestGLMProfileSeparation(t *testing.T) {
	tab := readReferenceTable(t, "glm_separation_data.csv")
	f, err := formula.Parse("y ~ x + f")
	if err != nil {
		t.Fatal(err)
	}
	d, err := formula.Build(f, tab, formula.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opt := GLMOptions{Family: Binomial, Intercept: d.Intercept}
	fit, err := FitGLM(d.X, d.Y, d.Names, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !fit.Separated {
		t.Fatalf("separation not detected: %q", fit.Warnings)
	}
	ci, warns, err := GLMProfileCI(d.X, d.Y, d.Names, opt, fit, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	ref := readReference(t, "glm_separation.csv")
	if len(ref) != len(fit.Coefs) {
		t.Fatalf("%d coefficients, R has %d", len(fit.Coefs), len(ref))
	}
	for j, r := range ref {
		if fit.Coefs[j].Term != r[0] {
			t.Fatalf("term %d: %s, R %s", j, fit.Coefs[j].Term, r[0])
		}
		for k, col := range []int{5, 6} {
			want := atof(t, r[col])
			got := ci[j][k]
			t.Logf("%s %s: %.10g, true %.10g (R confint %s)", r[0], []string{"low", "high"}[k], got, want, r[3+k])
			if math.IsInf(want, 0) {
				if got != want {
					t.Errorf("%s: limit %g, want %g", r[0], got, want)
				}
				continue
			}
			if math.Abs(got-want) > 1e-6*math.Abs(want) {
				t.Errorf("%s: limit %.10g, true %.10g (rel %.2g)", r[0], got, want, math.Abs(got-want)/math.Abs(want))
			}
		}
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0].Error(), "fb: ") || !strings.Contains(warns[0].Error(), "+∞") {
		t.Errorf("warnings %q", warns)
	}
}

package analysis

import (
	"math"
	"testing"

	"github.com/rdeval/rdeval/analysis/formula"
)

// TestGLMProfileReference fits every model of
// testdata/reference/glm_profile.R (R 4.2.2 glm and confint(fit), i.e. MASS
// 7.3.58.2 profile.glm + confint.profile.glm; binomial with and without
// weights, proportions, offsets given as a column or as offset() in the
// formula; gaussian with weights and an offset) on glm_data.csv and
// compares estimates, SEs, the deviance and the profile intervals to 1e-6
// relative.
func TestGLMProfileReference(t *testing.T) {
	tab := readReferenceTable(t, "glm_data.csv")
	type model struct {
		form, fam, wcol, ocol string
		rows                  [][]string
	}
	var ids []string
	models := map[string]*model{}
	for _, r := range readReference(t, "glm_profile.csv") {
		m := models[r[0]]
		if m == nil {
			m = &model{form: r[1], fam: r[2], wcol: r[3], ocol: r[4]}
			models[r[0]] = m
			ids = append(ids, r[0])
		}
		m.rows = append(m.rows, r)
	}
	for _, id := range ids {
		m := models[id]
		t.Run(id, func(t *testing.T) {
			f, err := formula.Parse(m.form)
			if err != nil {
				t.Fatal(err)
			}
			var req []string
			for _, c := range []string{m.wcol, m.ocol} {
				if c != "" {
					req = append(req, c)
				}
			}
			d, err := formula.Build(f, tab, formula.Options{Require: req})
			if err != nil {
				t.Fatal(err)
			}
			opt := GLMOptions{Family: GLMFamily(m.fam), Intercept: d.Intercept, Offset: d.Offset}
			for r, i := range d.Rows {
				if m.wcol != "" {
					opt.Weights = append(opt.Weights, atof(t, tab.Columns[m.wcol][i]))
				}
				if m.ocol != "" {
					if opt.Offset == nil {
						opt.Offset = make([]float64, len(d.Rows))
					}
					opt.Offset[r] += atof(t, tab.Columns[m.ocol][i])
				}
			}
			fit, err := FitGLM(d.X, d.Y, d.Names, opt)
			if err != nil {
				t.Fatal(err)
			}
			ci, warns, err := GLMProfileCI(d.X, d.Y, d.Names, opt, fit, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			if len(m.rows) != len(fit.Coefs) {
				t.Fatalf("%d coefficients, R has %d", len(fit.Coefs), len(m.rows))
			}
			for j, w := range m.rows {
				c := fit.Coefs[j]
				if c.Term != w[5] {
					t.Errorf("term %d: %q, R %q", j, c.Term, w[5])
				}
				for k, got := range []float64{c.Estimate, c.SE, ci[j][0], ci[j][1], fit.Deviance} {
					ref := atof(t, w[6+k])
					name := []string{"estimate", "se", "ci_low", "ci_high", "deviance"}[k]
					rel := math.Abs(got-ref) / math.Abs(ref)
					t.Logf("%s %s: %.12g, R %.12g (rel %.2g)", c.Term, name, got, ref, rel)
					if rel > 1e-6 {
						t.Errorf("%s %s: %.12g, R %.12g (rel %.2g > 1e-6)", c.Term, name, got, ref, rel)
					}
				}
			}
		})
	}
}

// TestSplineFMM checks the fmm spline on a cubic, which it reproduces
// exactly (its end conditions match the cubics through the end points),
// and approxLinear's rule = 1.
func TestSplineFMM(t *testing.T) {
	x := []float64{3, 0, 1, 2.5, 4, 5.5}
	y := make([]float64, len(x))
	cube := func(v float64) float64 { return 1 - 2*v + 0.5*v*v - 0.25*v*v*v }
	for i, v := range x {
		y[i] = cube(v)
	}
	sx, sy := splineFMM(x, y, 18)
	if sx[0] != 0 || sx[17] != 5.5 {
		t.Errorf("range %v .. %v", sx[0], sx[17])
	}
	for k := range sx {
		if d := math.Abs(sy[k] - cube(sx[k])); d > 1e-12 {
			t.Errorf("spline(%g) = %g, want %g", sx[k], sy[k], cube(sx[k]))
		}
	}
	if v := approxLinear([]float64{0, 1, 2}, []float64{0, 10, 30}, 1.5); v != 20 {
		t.Errorf("approx 1.5 = %v", v)
	}
	if v := approxLinear([]float64{0, 1, 2}, []float64{0, 10, 30}, 2.5); !math.IsNaN(v) {
		t.Errorf("approx outside = %v, want NaN", v)
	}
}

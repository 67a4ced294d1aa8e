package analysis

import (
	"math"
	"strings"
	"testing"
)

func glmHasWarning(ws []error, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.Error(), sub) {
			return true
		}
	}
	return false
}

func TestGLMSeparation(t *testing.T) {
	x := [][]float64{{1, -3}, {1, -2}, {1, -1}, {1, 1}, {1, 2}, {1, 3}}
	y := []float64{0, 0, 0, 1, 1, 1}
	fit, err := FitGLM(x, y, []string{"(Intercept)", "x"}, GLMOptions{Family: Binomial, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	if !glmHasWarning(fit.Warnings, "complete separation") || !glmHasWarning(fit.Warnings, "x (|β|") {
		t.Errorf("warnings %v", fit.Warnings)
	}
	// Quasi-complete: a tie at x = 0 with both outcomes.
	x = append(x, []float64{1, 0}, []float64{1, 0})
	y = append(y, 0, 1)
	fit, err = FitGLM(x, y, []string{"(Intercept)", "x"}, GLMOptions{Family: Binomial, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	if !glmHasWarning(fit.Warnings, "separation") {
		t.Errorf("quasi-complete: warnings %v", fit.Warnings)
	}
}

func TestGLMOutcomeChecks(t *testing.T) {
	x := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	if _, err := FitGLM(x, []float64{0, 1, 2, 0}, []string{"(Intercept)", "x"}, GLMOptions{Family: Binomial}); err == nil || !strings.Contains(err.Error(), "binomial outcome 2") {
		t.Errorf("non-binary outcome: %v", err)
	}
	fit, err := FitGLM(x, []float64{0.2, 0.5, 0.4, 0.9}, []string{"(Intercept)", "x"}, GLMOptions{Family: Binomial, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	if !glmHasWarning(fit.Warnings, "non-integer #successes") {
		t.Errorf("fractional y: %v", fit.Warnings)
	}
	if _, err := FitGLM(x, []float64{0, 1, 1, 0}, []string{"(Intercept)", "x"}, GLMOptions{Family: Binomial, Weights: []float64{1, 0, 1, 1}}); err == nil {
		t.Errorf("zero weight accepted")
	}
}

// TestGLMAliased: a constant predictor is collinear with the intercept and
// gets NaN (R's NA), with a warning; the rest is the fit without it.
func TestGLMAliased(t *testing.T) {
	x := [][]float64{{1, 0, 5}, {1, 1, 5}, {1, 2, 5}, {1, 3, 5}, {1, 4, 5}}
	y := []float64{1.1, 2.9, 5.2, 7.1, 8.8}
	fit, err := FitGLM(x, y, []string{"(Intercept)", "x", "c"}, GLMOptions{Family: Gaussian, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	if !fit.Coefs[2].Aliased || !math.IsNaN(fit.Coefs[2].Estimate) || !glmHasWarning(fit.Warnings, "singularities") || fit.Rank != 2 {
		t.Errorf("aliased: %+v %v", fit.Coefs[2], fit.Warnings)
	}
	// OLS by hand: slope = Sxy/Sxx = 19.6/10 = 1.96, intercept = 5.02 − 2·1.96 = 1.10.
	if math.Abs(fit.Coefs[1].Estimate-1.96) > 1e-12 || math.Abs(fit.Coefs[0].Estimate-1.10) > 1e-12 {
		t.Errorf("coefs %+v", fit.Coefs)
	}
}

func TestGLMNotConverged(t *testing.T) {
	x := [][]float64{{1, -3}, {1, -2}, {1, -1}, {1, 1}, {1, 2}, {1, 3}}
	y := []float64{0, 0, 0, 1, 1, 1}
	fit, err := FitGLM(x, y, []string{"(Intercept)", "x"}, GLMOptions{Family: Binomial, Intercept: true, MaxIter: 3})
	if err != nil {
		t.Fatal(err)
	}
	if fit.Converged || !glmHasWarning(fit.Warnings, "did not converge") {
		t.Errorf("converged %v, warnings %v", fit.Converged, fit.Warnings)
	}
}

// TestGLMRidge: the penalty shrinks the slope towards 0.
func TestGLMRidge(t *testing.T) {
	x := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}}
	y := []float64{1.1, 2.9, 5.2, 7.1, 8.8}
	fit, err := FitGLM(x, y, []string{"(Intercept)", "x"}, GLMOptions{Family: Gaussian, Intercept: true, L2: 10})
	if err != nil {
		t.Fatal(err)
	}
	// (X'X + diag(0, 10))β = X'y: [5 10; 10 40]β = [25.1; 69.8] → β1 = (69.8 − 50.2)/(40 − 20) = 0.98.
	if math.Abs(fit.Coefs[1].Estimate-0.98) > 1e-10 || !glmHasWarning(fit.Warnings, "L2 penalty") {
		t.Errorf("ridge: %+v %v", fit.Coefs, fit.Warnings)
	}
}

package analysis

import (
	"math"
	"strings"
	"testing"
)

// TestPriorWeightsOffsetsErrors: wrong lengths, non-positive or infinite
// weights and non-finite offsets are errors naming the row, for GLMs and
// mixed models alike (a short weights slice used to panic in FitGLM).
func TestPriorWeightsOffsetsErrors(t *testing.T) {
	x := [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}
	y := []float64{0, 1, 0, 1}
	names := []string{"(Intercept)", "x"}
	groups := []MixedGroup{{Name: "g", Levels: []string{"a", "a", "b", "b"}}}
	for _, c := range []struct {
		w, off []float64
		want   string
	}{
		{[]float64{1, 1}, nil, "one value per row"},
		{nil, []float64{0}, "one value per row"},
		{[]float64{1, 0, 1, 1}, nil, "weight 0 at row 2"},
		{[]float64{1, 1, math.Inf(1), 1}, nil, "weight +Inf at row 3"},
		{nil, []float64{0, 0, 0, math.NaN()}, "row 4: offset NaN"},
	} {
		if _, err := FitGLM(x, y, names, GLMOptions{Family: Binomial, Weights: c.w, Offset: c.off}); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "glm: ") {
			t.Errorf("glm %v %v: %v, want %q", c.w, c.off, err, c.want)
		}
		if _, err := FitMixed(x, y, names, groups, MixedOptions{Family: Binomial, Weights: c.w, Offset: c.off}); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "mixed: ") {
			t.Errorf("mixed %v %v: %v, want %q", c.w, c.off, err, c.want)
		}
	}
}

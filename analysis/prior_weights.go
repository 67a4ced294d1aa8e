package analysis

import (
	"fmt"
	"math"
)

// priorWeightsOffsets returns the prior weights (1 for every row when
// weights is nil) and offsets (0 when offset is nil) of an n-row model fit,
// checking that each given slice has one value per row, that the weights
// are positive and finite and the offsets finite. who prefixes the errors
// ("glm", "mixed").
func priorWeightsOffsets(who string, n int, weights, offset []float64) (w, off []float64, err error) {
	if (weights != nil && len(weights) != n) || (offset != nil && len(offset) != n) {
		return nil, nil, fmt.Errorf("%s: weights and offset must have one value per row (%d rows)", who, n)
	}
	w, off = make([]float64, n), make([]float64, n)
	for i := range w {
		w[i] = 1
		if weights != nil {
			w[i] = weights[i]
		}
		if offset != nil {
			off[i] = offset[i]
		}
		if !(w[i] > 0) || math.IsInf(w[i], 0) {
			return nil, nil, fmt.Errorf("%s: weight %g at row %d: weights must be positive and finite", who, w[i], i+1)
		}
		if math.IsNaN(off[i]) || math.IsInf(off[i], 0) {
			return nil, nil, fmt.Errorf("%s: row %d: offset %g is not a finite number", who, i+1, off[i])
		}
	}
	return w, off, nil
}

package horizoncmd

import (
	"fmt"
	"math"

	"github.com/rdeval/rdeval/analysis"
)

// extrapolationFactor is how far beyond the tasks' human minutes a horizon
// may lie before it is called an extrapolation: METR's plots show horizons
// up to 16× the longest task, so a factor of 16 on either side.
const extrapolationFactor = 16

// sanityWarnings says where a fitted horizon is not a meaningful number:
//   - the slope is ≥ 0 (success does not fall as tasks get longer), so the
//     q-horizon log2(h) = (logit(q) − intercept)/slope is a point where the
//     rising curve crosses q, or none — not "the length the agent handles";
//   - a horizon lies outside [min/16, 16·max] of the human minutes of the
//     agent's tasks: an extrapolation of the logistic far beyond the data.
//
// One-class fits (no success or no failure) are reported elsewhere.
func sanityWarnings(res *analysis.HorizonResult, runs []analysis.HorizonRun, quantiles []float64) []string {
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, r := range runs {
		if v, ok := lo[r.Agent]; !ok || r.HumanMinutes < v {
			lo[r.Agent] = r.HumanMinutes
		}
		if r.HumanMinutes > hi[r.Agent] {
			hi[r.Agent] = r.HumanMinutes
		}
	}
	var out []string
	for _, a := range res.Agents {
		if a.Fit.Class >= 0 {
			continue
		}
		if a.Fit.Slope >= 0 {
			out = append(out, fmt.Sprintf("%s: success does not fall with task length (slope %+.3g per doubling of human minutes ≥ 0): its horizons are not meaningful", a.Agent, a.Fit.Slope))
			continue
		}
		for i, h := range a.Horizons {
			if math.IsNaN(h) || i >= len(quantiles) {
				continue
			}
			if h < lo[a.Agent]/extrapolationFactor || h > hi[a.Agent]*extrapolationFactor {
				out = append(out, fmt.Sprintf("%s: p%g = %.3g min lies far outside its tasks' human minutes [%.3g, %.3g] (beyond a factor of %d): an extrapolation of the fit",
					a.Agent, 100*quantiles[i], h, lo[a.Agent], hi[a.Agent], extrapolationFactor))
			}
		}
	}
	return out
}

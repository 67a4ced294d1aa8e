package horizoncmd

import (
	"strings"
	"testing"

	"github.com/rdeval/rdeval/analysis"
)

func TestSanityWarnings(t *testing.T) {
	// rising: success grows with length; falling: a clean decline whose p50
	// lies inside the tasks (8 min); far: a decline so shallow that p50 is
	// far beyond 16× the longest task.
	var runs []analysis.HorizonRun
	add := func(agent string, minutes float64, ys ...float64) {
		for _, y := range ys {
			runs = append(runs, analysis.HorizonRun{Agent: agent, Task: agent + "-" + strings.Repeat("x", int(minutes)), HumanMinutes: minutes, Y: y})
		}
	}
	for _, m := range []float64{1, 2, 4, 8, 16, 32, 64} {
		switch {
		case m <= 4:
			add("rising", m, 0, 0, 0, 1)
			add("falling", m, 1, 1, 1, 1, 1, 1, 1, 0)
		case m <= 16:
			add("rising", m, 0, 1, 1, 1)
			add("falling", m, 1, 0)
		default:
			add("rising", m, 1, 1, 1, 1)
			add("falling", m, 0, 0, 0, 0, 0, 0, 0, 1)
		}
		add("far", m, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0)
	}
	add("far", 64, 0)
	q := []float64{0.5}
	res, err := analysis.Horizons(runs, analysis.HorizonOptions{Regularization: 0.1, Quantiles: q, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(sanityWarnings(res, runs, q), "\n")
	if !strings.Contains(got, "rising: success does not fall with task length") {
		t.Errorf("no rising-slope warning:\n%s", got)
	}
	if !strings.Contains(got, "far: p50 = ") || !strings.Contains(got, "an extrapolation") {
		t.Errorf("no extrapolation warning:\n%s", got)
	}
	if strings.Contains(got, "falling") {
		t.Errorf("a horizon inside the data is warned about:\n%s", got)
	}
	for _, a := range res.Agents {
		t.Logf("%s: slope %.3g p50 %.3g", a.Agent, a.Fit.Slope, a.Horizons[0])
	}
}

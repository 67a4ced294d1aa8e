package analysis

import (
	"math"
	"strings"
	"testing"
)

// TestHorizonRefusals: with ExtrapolationFactor 16 a rising fit and a
// horizon far beyond 16× the longest task are refused, a horizon inside
// the data is not, and the values stay in Horizons. (Issue 24: rdeval
// horizon --demo printed p50 = 2.8e-145 min for tasks of 417–653 min.)
// The data are hand-made: "falling" declines from 7/8 successes at 1–4 min
// to 1/8 at 32–64 min (p50 near 8 min); "far" succeeds in 19 of 20 runs at
// every length up to 64 min, so its p50 is thousands of minutes.
func TestHorizonRefusals(t *testing.T) {
	var runs []HorizonRun
	add := func(agent string, minutes float64, ys ...float64) {
		for _, y := range ys {
			runs = append(runs, HorizonRun{Agent: agent, Task: agent + "-" + strings.Repeat("x", int(minutes)), HumanMinutes: minutes, Y: y})
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
	res, err := Horizons(runs, HorizonOptions{Regularization: 0.1, Quantiles: q, Level: 0.95, ExtrapolationFactor: DefaultExtrapolationFactor})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Agents {
		t.Logf("%s: slope %.3g p50 %.3g range [%g, %g] refusal %q", a.Agent, a.Fit.Slope, a.Horizons[0], a.MinMinutes, a.MaxMinutes, a.Refusals[0])
		if a.MinMinutes != 1 || a.MaxMinutes != 64 {
			t.Errorf("%s: range [%g, %g], want [1, 64]", a.Agent, a.MinMinutes, a.MaxMinutes)
		}
		if math.IsNaN(a.Horizons[0]) {
			t.Errorf("%s: the horizon's value is dropped", a.Agent)
		}
		r := a.Refusals[0]
		switch a.Agent {
		case "falling":
			if r != "" {
				t.Errorf("falling: a horizon inside the data is refused: %s", r)
			}
		case "rising":
			if !strings.Contains(r, "success does not fall with task length") {
				t.Errorf("rising: refusal %q", r)
			}
		case "far":
			if !(a.Horizons[0] > 16*64) || !strings.Contains(r, "an extrapolation") {
				t.Errorf("far: p50 %g, refusal %q", a.Horizons[0], r)
			}
		}
	}
	res, err = Horizons(runs, HorizonOptions{Regularization: 0.1, Quantiles: q, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Agents {
		if a.Refusals != nil {
			t.Errorf("%s: refusals %q without ExtrapolationFactor", a.Agent, a.Refusals)
		}
	}
}

// TestHorizonSkippedShare: an agent with 3 successes in 120 runs skips
// many hierarchical replicates (each with no success drawn); the share and
// its split are reported, with a warning above HorizonSkipWarnShare, and
// the counts add up. The other agent (half successes) skips none.
func TestHorizonSkippedShare(t *testing.T) {
	var runs []HorizonRun
	for k := 0; k < 12; k++ {
		m := math.Exp2(float64(k))
		for r := 0; r < 10; r++ {
			y := 0.0
			if k < 3 && r == 0 {
				y = 1
			}
			task := "t" + string(rune('a'+k))
			runs = append(runs, HorizonRun{Agent: "rare", Task: task, HumanMinutes: m, Y: y})
			runs = append(runs, HorizonRun{Agent: "half", Task: task, HumanMinutes: m, Y: float64((r + k) % 2 * btoi(k < 8))})
		}
	}
	res, err := Horizons(runs, HorizonOptions{Regularization: 0.1, Quantiles: []float64{0.5}, Level: 0.95, Boot: 400, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Agents {
		t.Logf("%s: skipped %d (no success %d, no failure %d), share %.3f, warnings %q", a.Agent, a.BootSkipped, a.BootNoSuccess, a.BootNoFailure, a.SkippedShare, a.Warnings)
		if a.BootUsed+a.BootSkipped != 400 || a.BootNoSuccess+a.BootNoFailure > a.BootSkipped {
			t.Errorf("%s: counts do not add up", a.Agent)
		}
		if a.SkippedShare != float64(a.BootSkipped)/400 {
			t.Errorf("%s: share %g", a.Agent, a.SkippedShare)
		}
		switch a.Agent {
		case "rare":
			// P(no success drawn) ≥ P(none of the 3 tasks with a success
			// drawn) = (1 − 3/12)^12 ≈ 0.032, plus the runs within drawn
			// tasks (9/10 failures each): well above 5 %.
			if !(a.SkippedShare > HorizonSkipWarnShare) || a.BootNoSuccess != a.BootSkipped || len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0].Error(), "with no success") {
				t.Errorf("rare: share %g, warnings %q", a.SkippedShare, a.Warnings)
			}
		case "half":
			if a.BootSkipped != 0 || len(a.Warnings) != 0 {
				t.Errorf("half: skipped %d, warnings %q", a.BootSkipped, a.Warnings)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

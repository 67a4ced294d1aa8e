package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bootUnitRuns: 2 agents, 3 families of 1–3 tasks, 1–4 runs per task ×
// agent, successes varying.
func bootUnitRuns() []HorizonRun {
	var runs []HorizonRun
	fams := map[string][]string{"f1": {"a"}, "f2": {"b", "c"}, "f3": {"d", "e", "f"}}
	minutes := map[string]float64{"a": 1, "b": 4, "c": 15, "d": 60, "e": 240, "f": 960}
	for _, f := range []string{"f1", "f2", "f3"} {
		for ti, task := range fams[f] {
			for ai, agent := range []string{"x", "y"} {
				n := 1 + (ti+ai+len(f))%4
				for r := 0; r < n; r++ {
					y := 0.0
					if (r+ti+ai)%3 != 0 && minutes[task] < 300 {
						y = 1
					}
					runs = append(runs, HorizonRun{Agent: agent, Family: f, Task: task, HumanMinutes: minutes[task], Y: y})
				}
			}
		}
	}
	return runs
}

// TestBootUnitResample checks what each unit draws, on the aggregated
// weights of 200 replicates (equal weighting, so runs of one task × agent
// weigh the same): BootRuns keeps each task × agent's total weight and
// draws its successes; BootTasks gives each task a multiplicity m_t of its
// full-data weights, Σ m_t = tasks; BootFamilies the same multiplicity to
// every task of a family, Σ m_f = families.
func TestBootUnitResample(t *testing.T) {
	runs := bootUnitRuns()
	d, err := newHorizonData(runs, HorizonWeights(runs, EqualWeighting))
	if err != nil {
		t.Fatal(err)
	}
	full0 := make([][]float64, len(d.agents))
	full1 := make([][]float64, len(d.agents))
	for a := range d.agents {
		full0[a], full1[a] = make([]float64, len(d.x)), make([]float64, len(d.x))
	}
	for tk := range d.runs {
		for a, rs := range d.runs[tk] {
			for _, r := range rs {
				full0[a][tk] += r[0]
				full1[a][tk] += r[1]
			}
		}
	}
	famOf := make([]int, len(d.x))
	for f, ts := range d.families {
		for _, tk := range ts {
			famOf[tk] = f
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }
	varied := map[BootUnit]bool{}
	for _, u := range []BootUnit{BootRuns, BootTasks, BootFamilies} {
		for b := 0; b < 200; b++ {
			w0 := make([][]float64, len(d.agents))
			w1 := make([][]float64, len(d.agents))
			for a := range d.agents {
				w0[a], w1[a] = make([]float64, len(d.x)), make([]float64, len(d.x))
			}
			d.resampleUnit(u, rand.New(rand.NewPCG(3, uint64(b))), w0, w1)
			mult := make([]float64, len(d.x)) // multiplicity of each task (from agent 0's weights)
			for tk := range d.x {
				tot := full0[0][tk] + full1[0][tk]
				mult[tk] = (w0[0][tk] + w1[0][tk]) / tot
			}
			for a := range d.agents {
				for tk := range d.x {
					switch u {
					case BootRuns:
						if !near(w0[a][tk]+w1[a][tk], full0[a][tk]+full1[a][tk]) {
							t.Fatalf("runs: replicate %d agent %d task %d: total weight %v, want %v", b, a, tk, w0[a][tk]+w1[a][tk], full0[a][tk]+full1[a][tk])
						}
						if !near(w1[a][tk], full1[a][tk]) {
							varied[u] = true
						}
					default:
						m := mult[tk]
						if math.Abs(m-math.Round(m)) > 1e-9 || !near(w0[a][tk], m*full0[a][tk]) || !near(w1[a][tk], m*full1[a][tk]) {
							t.Fatalf("%v: replicate %d agent %d task %d: weights (%v, %v) are not %v × (%v, %v)", u, b, a, tk, w0[a][tk], w1[a][tk], m, full0[a][tk], full1[a][tk])
						}
					}
				}
			}
			switch u {
			case BootTasks:
				sum := 0.0
				for _, m := range mult {
					sum += m
				}
				if !near(sum, float64(len(d.x))) {
					t.Fatalf("tasks: replicate %d: multiplicities sum to %v, want %d", b, sum, len(d.x))
				}
				varied[u] = varied[u] || mult[0] != 1
			case BootFamilies:
				sum := 0.0
				for f, ts := range d.families {
					for _, tk := range ts {
						if !near(mult[tk], mult[ts[0]]) {
							t.Fatalf("families: replicate %d: tasks of family %d drawn %v and %v times", b, f, mult[tk], mult[ts[0]])
						}
					}
					sum += mult[ts[0]]
				}
				if !near(sum, float64(len(d.families))) {
					t.Fatalf("families: replicate %d: multiplicities sum to %v, want %d", b, sum, len(d.families))
				}
				varied[u] = varied[u] || mult[0] != 1
			}
		}
	}
	if !varied[BootRuns] || !varied[BootTasks] || !varied[BootFamilies] {
		t.Errorf("a unit never varied: %v", varied)
	}
}

// TestBootUnitHorizons: the point estimates do not depend on the unit; the
// default unit is the hierarchical bootstrap (same replicates as before);
// the units give different intervals; the same seed gives the same result.
func TestBootUnitHorizons(t *testing.T) {
	runs := bootUnitRuns()
	base := HorizonOptions{Weighting: InvsqrtWeighting, Regularization: 0.1, Quantiles: []float64{0.5}, Boot: 300, Seed: 9, Level: 0.9}
	ref, err := Horizons(runs, base)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]BootUnit{}
	for _, u := range []BootUnit{BootHierarchical, BootRuns, BootTasks, BootFamilies} {
		o := base
		o.Unit = u
		r, err := Horizons(runs, o)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Horizons(runs, o)
		for a := range r.Agents {
			if r.Agents[a].Horizons[0] != ref.Agents[a].Horizons[0] {
				t.Errorf("%v: point estimate changed", u)
			}
			if r.Agents[a].CILow[0] != again.Agents[a].CILow[0] || r.Agents[a].CIHigh[0] != again.Agents[a].CIHigh[0] {
				t.Errorf("%v: same seed, different interval", u)
			}
		}
		if u == BootHierarchical && (r.Agents[0].CILow[0] != ref.Agents[0].CILow[0] || r.Agents[0].CIHigh[0] != ref.Agents[0].CIHigh[0]) {
			t.Error("the default unit is not the hierarchical bootstrap")
		}
		key := fmt.Sprint(r.Agents[0].CILow[0], r.Agents[0].CIHigh[0], r.Agents[1].CILow[0], r.Agents[1].CIHigh[0])
		if prev, ok := seen[key]; ok {
			t.Errorf("%v and %v give the same intervals", u, prev)
		}
		seen[key] = u
		if v, err := ParseBootUnit(u.String()); err != nil || v != u {
			t.Errorf("ParseBootUnit(%q) = %v, %v", u.String(), v, err)
		}
	}
	if _, err := ParseBootUnit("models"); err == nil {
		t.Error("ParseBootUnit(models): want an error")
	}
}

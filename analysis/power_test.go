package analysis

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestPowerSuccessClosedForm: simulated power of the z-test with assumed
// rates agrees with its exact power (WaldPowerExact) within 4 simulation
// standard errors, at small n too (3 runs × 2 tasks), where the normal
// approximation TwoProportionPower is off (0.11 against 0.23 at n = 6:
// testdata/reference/power_wald.csv).
func TestPowerSuccessClosedForm(t *testing.T) {
	opt := PowerOptions{Runs: []int{3, 5, 10}, Tasks: []int{2, 12, 24}, Alpha: 0.05, Sims: 2000, Seed: 7}
	for _, c := range [][2]float64{{0.3, 0.5}, {0.2, 0.25}} {
		cells, err := PowerSuccessRates(c[0], c[1], opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range cells {
			n := x.RunsPerTask * x.Tasks
			want := WaldPowerExact(c[0], c[1], n, 0.05)
			se := math.Sqrt(want * (1 - want) / float64(x.Sims))
			if math.Abs(x.Power-want) > 4*se {
				t.Errorf("pa %v pb %v n %d: simulated %.4f ± %.4f, exact %.4f", c[0], c[1], n, x.Power, x.PowerSE, want)
			}
			if n < 20 {
				continue
			}
			hw := 1.959963984540054 * math.Sqrt((c[0]*(1-c[0])+c[1]*(1-c[1]))/float64(n))
			if math.Abs(x.CIHalfWidth-hw) > 0.05*hw {
				t.Errorf("n %d: half-width %.4f, expected about %.4f", n, x.CIHalfWidth, hw)
			}
		}
	}
	again, _ := PowerSuccessRates(0.3, 0.5, opt)
	first, _ := PowerSuccessRates(0.3, 0.5, opt)
	if again[3] != first[3] {
		t.Error("same seed, different result")
	}
}

// TestWaldPowerExactReference: WaldPowerExact and TwoProportionPower
// against R (testdata/reference/power_wald.R: the same sum with dbinom and
// outer, R 4.2.2), to 1e-9.
func TestWaldPowerExactReference(t *testing.T) {
	for _, r := range readReference(t, "power_wald.csv") {
		pa, pb, alpha := atof(t, r[0]), atof(t, r[1]), atof(t, r[3])
		n, _ := strconv.Atoi(r[2])
		if got, want := WaldPowerExact(pa, pb, n, alpha), atof(t, r[4]); math.Abs(got-want) > 1e-9 {
			t.Errorf("pa %v pb %v n %d: exact %.12g, R %.12g", pa, pb, n, got, want)
		}
		if got, want := TwoProportionPower(pa, pb, n, alpha), atof(t, r[5]); math.Abs(got-want) > 1e-9 {
			t.Errorf("pa %v pb %v n %d: normal %.12g, R %.12g", pa, pb, n, got, want)
		}
	}
}

// TestPowerNull: with equal rates the rejection rate is near α.
func TestPowerNull(t *testing.T) {
	cells, err := PowerSuccessRates(0.4, 0.4, PowerOptions{Runs: []int{10}, Tasks: []int{24}, Alpha: 0.05, Sims: 2000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(cells[0].Power-0.05) > 4*math.Sqrt(0.05*0.95/2000) {
		t.Errorf("null rejection %v", cells[0].Power)
	}
}

func TestStudentT(t *testing.T) {
	// R: qt(0.975, c(1, 5, 11, 23)).
	for _, c := range [][2]float64{{1, 12.706204736174705}, {5, 2.5705818356363146}, {11, 2.2009851600916384}, {23, 2.0686576104190406}} {
		if got := StudentTQuantile(0.975, c[0]); math.Abs(got-c[1]) > 1e-9 {
			t.Errorf("df %v: %v, want %v", c[0], got, c[1])
		}
	}
	if math.Abs(NormalQuantile(0.975)-1.959963984540054) > 1e-12 {
		t.Error("normal quantile")
	}
}

func TestPowerPilot(t *testing.T) {
	var a, b []OutcomeRun
	var sa, sb []TaskScores
	for i, task := range []string{"t1", "t2", "t3", "t4"} {
		var xa, xb []float64
		for j := 0; j < 5; j++ {
			a = append(a, OutcomeRun{Task: task, Final: j < 1+i%2})
			b = append(b, OutcomeRun{Task: task, Final: j < 3+i%2})
			xa = append(xa, 0.1*float64(j)+0.05*float64(i))
			xb = append(xb, 0.1*float64(j)+0.05*float64(i)+0.3)
		}
		sa = append(sa, TaskScores{Task: task, Scores: xa})
		sb = append(sb, TaskScores{Task: task, Scores: xb})
	}
	opt := PowerOptions{Runs: []int{2, 5}, Tasks: []int{4, 12}, Alpha: 0.05, Sims: 400, Seed: 3}
	cells, err := PowerSuccessPilot(a, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 || !(cells[3].Power > cells[0].Power) || cells[3].Power < 0.9 {
		t.Errorf("success pilot %+v", cells)
	}
	k2, err := PowerScoreAtK(sa, sb, 2, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !(k2[3].Power > 0.9) || !(k2[3].CIHalfWidth < k2[0].CIHalfWidth) {
		t.Errorf("scoreatk pilot %+v", k2)
	}
	// Same agent against itself: rejection near α.
	null, _ := PowerScoreAtK(sa, sa, 1, PowerOptions{Runs: []int{3}, Tasks: []int{12}, Alpha: 0.05, Sims: 2000, Seed: 5})
	if null[0].Power > 0.05+4*math.Sqrt(0.05*0.95/2000) {
		t.Errorf("null rejection %v", null[0].Power)
	}
	if _, err := PowerScoreAtK(sa, sb, 4, opt); err == nil {
		t.Error("runs per task < k should be an error")
	}
}

// TestPairedTTest: pairedTTest's half-width and decision against R's
// t.test(d) on d = (0.1, 0.3, −0.2, 0.4, 0.5): t = 1.7728105208558367,
// half-width of the 95 % CI 0.34454777651513369, p = 0.151 (R 4.2.2).
func TestPairedTTest(t *testing.T) {
	d := []float64{0.1, 0.3, -0.2, 0.4, 0.5}
	tq := StudentTQuantile(0.975, 4)
	rej, hw := pairedTTest(d, tq)
	if rej || math.Abs(hw-0.34454777651513369) > 1e-9 {
		t.Errorf("rejects %v, half-width %.12g", rej, hw)
	}
	// At α = 0.2 (p = 0.151 < 0.2) it rejects.
	if rej, _ := pairedTTest(d, StudentTQuantile(0.9, 4)); !rej {
		t.Error("p = 0.151 not rejected at α = 0.2")
	}
	if rej, hw := pairedTTest([]float64{0.5, 0.5, 0.5}, tq); !rej || hw != 0 {
		t.Error("constant non-zero differences should reject")
	}
}

// TestSignFlipReference: signFlipP against the brute-force enumeration of
// testdata/reference/power_signflip.py (numpy; every one of the 2^n sign
// vectors). Up to signFlipExactMax tasks the p-value is exact (to 1e-12);
// above it (14 and 16 tasks) it is the Monte Carlo p of signFlipDraws
// vectors, within 4 binomial SEs of the exact one, and the same for the
// same stream.
func TestSignFlipReference(t *testing.T) {
	for _, r := range readReference(t, "power_signflip.csv") {
		var d []float64
		for _, f := range strings.Fields(r[0]) {
			d = append(d, atof(t, f))
		}
		want := atof(t, r[1])
		got := signFlipP(d, rand.New(rand.NewPCG(1, 2)), 1)
		tol := 1e-12
		if len(d) > signFlipExactMax {
			tol = 4*math.Sqrt(want*(1-want)/signFlipDraws) + 1.0/signFlipDraws
			if again := signFlipP(d, rand.New(rand.NewPCG(1, 2)), 1); again != got {
				t.Errorf("n=%d: p %v then %v from the same stream", len(d), got, again)
			}
		}
		if math.Abs(got-want) > tol {
			t.Errorf("n=%d %v: p %.12g, numpy %.12g (tolerance %.3g)", len(d), d, got, want, tol)
		}
	}
	for _, c := range []struct {
		alpha float64
		want  int
	}{{0.05, 6}, {0.01, 8}, {0.1, 5}, {0.0625, 5}, {0.5, 2}} {
		if got := SignFlipMinTasks(c.alpha); got != c.want {
			t.Errorf("SignFlipMinTasks(%v) = %d; want %d", c.alpha, got, c.want)
		}
	}
}

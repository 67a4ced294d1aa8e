package analysis

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bitHash hashes the exact bits of a sequence of floats.
type bitHash struct{ b []byte }

func (h *bitHash) add(xs ...float64) {
	for _, x := range xs {
		h.b = binary.LittleEndian.AppendUint64(h.b, math.Float64bits(x))
	}
}

func (h *bitHash) sum() string { return fmt.Sprintf("%x", sha256.Sum256(h.b)) }

// TestSeededBitsPinned: the exact bits of seeded score@k (percentile and
// BCa), time-horizon and power results on fixed synthetic inputs. The
// pinned hashes were computed by this code on linux/amd64; the test
// exists to fail where a platform's arithmetic changes a bit (fused
// multiply-adds, math's assembly): run it as `GOAMD64=v3 go test` and
// `GOARCH=386 go test` (.ci/run does), where it passed when pinned. It
// checks sameness, not correctness (the reference tests do that); after a
// deliberate change of these procedures' arithmetic, update the hashes.
func TestSeededBitsPinned(t *testing.T) {
	// Inputs from integer arithmetic and comparisons only, so they are
	// the same everywhere.
	rng := rand.New(rand.NewPCG(7, 8))
	var tasks []TaskScores
	for ti := range 6 {
		s := make([]float64, 12+5*ti)
		for j := range s {
			s[j] = float64(rng.IntN(40)) / 40 // ties, as real scores have
		}
		tasks = append(tasks, TaskScores{Task: fmt.Sprint(ti), Scores: s})
	}
	var runs []HorizonRun
	for task := range 60 {
		minutes := float64(1 + task*task%97)
		p := 1 / (1 + detExp(-(2 - float64(0.6*detLog2(minutes)))))
		for r := range 4 {
			y := 0.0
			if rng.Float64() < p {
				y = 1
			}
			runs = append(runs, HorizonRun{Agent: fmt.Sprint("A", r%2), Family: fmt.Sprint(task % 15), Task: fmt.Sprint(task), HumanMinutes: minutes, Y: y})
		}
	}

	cases := []struct {
		name, want string
		compute    func(*bitHash) error
	}{
		{"score@k percentile", "07825d5d2aa6287ecb3b0e1e4061c564c3577b08ed9d02851f990f9be2948ec2", func(h *bitHash) error {
			pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{1, 2, 4, 8}, Boot: 2000, Seed: 3, Level: 0.95})
			for _, p := range pts {
				h.add(p.Estimate, p.BootMean, p.CILow, p.CIHigh)
			}
			return err
		}},
		{"score@k BCa", "7bbdf32e6e96fc5a96cb3a8d9fbbc66ed0a5fd2a20d181fdf457098b68ba2ec8", func(h *bitHash) error {
			pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{1, 2, 4, 8}, Boot: 2000, Seed: 3, Level: 0.95, Interval: BCa})
			for _, p := range pts {
				h.add(p.Estimate, p.BootMean, p.CILow, p.CIHigh)
			}
			return err
		}},
		{"score@k studentized", "91e3f9b4dcd6d1168c1de851977478c29e2cf0ba28cbc7f91c2b2ce8886c0631", func(h *bitHash) error {
			pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{1, 2, 4, 8}, Boot: 2000, Seed: 3, Level: 0.95, Interval: Studentized})
			for _, p := range pts {
				h.add(p.Estimate, p.BootMean, p.CILow, p.CIHigh)
			}
			return err
		}},
		{"score@k studentized, outcome tables", "77a218785d225a483d7d58813e1b353eaa3a024a49ef3fc66861f05d516f2215", func(h *bitHash) error {
			// Few distinct scores: every task takes the outcome-table path.
			var few []TaskScores
			for ti := range 4 {
				s := make([]float64, 8+ti)
				for j := range s {
					s[j] = float64((j*7+ti)%3) / 2
				}
				few = append(few, TaskScores{Task: fmt.Sprint(ti), Scores: s})
			}
			pts, err := ScoreAtKCurve(few, ScoreAtKOptions{Ks: []int{1, 2, 4}, Boot: 2000, Seed: 3, Level: 0.95, Interval: Studentized})
			for _, p := range pts {
				h.add(p.Estimate, p.BootMean, p.CILow, p.CIHigh)
			}
			return err
		}},
		{"score@k task bootstrap", "7595d0b92196ceac1b4b981071b88e2d7f3b907ef0652872ce0b318fbe785f1d", func(h *bitHash) error {
			pts, err := ScoreAtKCurve(tasks, ScoreAtKOptions{Ks: []int{1, 2, 4, 8}, Boot: 2000, Seed: 3, Level: 0.95, ResampleTasks: true})
			for _, p := range pts {
				h.add(p.Estimate, p.BootMean, p.CILow, p.CIHigh)
			}
			return err
		}},
		{"power pilot", "76b536b5ddbddd00ab3f78230426beced96b78fd42cbbb28ef3656652de036c0", func(h *bitHash) error {
			var a, b []OutcomeRun
			for i := range 6 {
				for j := range 5 {
					a = append(a, OutcomeRun{Task: fmt.Sprint(i), Final: j < 1+i%3})
					b = append(b, OutcomeRun{Task: fmt.Sprint(i), Final: j < 4-i%3})
				}
			}
			cells, err := PowerSuccessPilot(a, b, PowerOptions{Runs: []int{3, 8}, Tasks: []int{6, 12}, Alpha: 0.05, Sims: 300, Seed: 9})
			for _, c := range cells {
				h.add(c.Power, c.PowerSE, c.CIHalfWidth)
			}
			h.add(WaldPowerExact(0.3, 0.5, 18, 0.05))
			return err
		}},
		{"horizons", "8bce15105f7d0b646c6d397a454dde36f746c7a110cd4e32836a8f93ea358e0f", func(h *bitHash) error {
			res, err := Horizons(runs, HorizonOptions{Weighting: EqualWeighting, Regularization: 0.1, Quantiles: []float64{0.5, 0.8}, Boot: 200, Seed: 5, Level: 0.95})
			if err != nil {
				return err
			}
			for _, a := range res.Agents {
				h.add(a.Fit.Intercept, a.Fit.Slope, a.AverageSuccess)
				h.add(a.Horizons...)
				h.add(a.CILow...)
				h.add(a.CIHigh...)
			}
			return nil
		}},
		// The one Student t (studentt.go: StudentTCDF, StudentTQuantile),
		// which the GLM and power use instead of gonum's distuv.StudentsT for
		// this reason, measured 2026-12-02 with gonum v0.17.0: over df 1..200
		// × 7 levels (0.5005 to 0.9995), distuv's Quantile gave other bits
		// than the default linux/amd64 build in 27 of 1,400 cases under
		// GOARCH=386 and in 593 under GOAMD64=v3 (its CDF, over 801 points ×
		// 7 df, in 457 and 738 of 5,607). Before detLgamma, power's own t
		// differed under v3 too (10 quantiles with df ≥ 66, CDFs at df = 120:
		// math.Lgamma's bits, for 32 of the 201 arguments ½, 1, …, 100½).
		{"Student t", "2f0b544d4c07f6f42b57d9fe682e91bfce937e2e3cb1bb96c7614175cf5a7e09", func(h *bitHash) error {
			for df := 1.0; df <= 200; df++ {
				for _, p := range []float64{1e-9, 0.5005, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995} {
					h.add(StudentTQuantile(p, df))
				}
			}
			for i := -400; i <= 400; i++ {
				for _, df := range []float64{1, 2, 3, 5, 9, 30, 66, 120, 200, 1e4, 1e6} {
					h.add(StudentTCDF(float64(i)/37, df))
				}
			}
			for i := 1; i <= 400; i++ {
				h.add(detLgamma(float64(i)/2), detLgamma(float64(i*i)/7))
			}
			return nil
		}},
		{"power", "43b0e224f046cf37fdbcfbfa8deced7c75adf1181e8342b8717d81792d3dbf1d", func(h *bitHash) error {
			cells, err := PowerSuccessRates(0.3, 0.5, PowerOptions{Runs: []int{3, 8}, Tasks: []int{6, 12}, Alpha: 0.05, Sims: 300, Seed: 9})
			for _, c := range cells {
				h.add(c.Power, c.PowerSE, c.CIHalfWidth)
			}
			return err
		}},
	}
	for _, c := range cases {
		var h bitHash
		if err := c.compute(&h); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := h.sum(); got != c.want {
			t.Errorf("%s: bits changed: hash %s, pinned %s", c.name, got, c.want)
		}
	}
}

package analysis

import (
	"math"
	"testing"
)

// TestWilson: reference values at 95% from an independent standard-library
// Python script (testdata/reference/wilson.py, output in wilson.txt; its z
// comes from statistics.NormalDist, not from math.Erfinv).
func TestWilson(t *testing.T) {
	z := NormalQuantile(0.975)
	for _, c := range []struct {
		s      float64
		n      int
		lo, hi float64
	}{
		{3, 10, 0.10779126740630102, 0.6032218525388546},
		{0, 5, 2.7755575615628914e-17, 0.43448246478317465},
		{5, 5, 0.5655175352168254, 1},
		{1, 2, 0.09453120573423074, 0.9054687942657693},
	} {
		lo, hi := Wilson(c.s, c.n, z)
		if math.Abs(lo-c.lo) > 1e-12 || math.Abs(hi-c.hi) > 1e-12 {
			t.Errorf("Wilson(%v, %d) = %v, %v; want %v, %v", c.s, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0, z); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("n = 0: %v %v", lo, hi)
	}
}

// TestHorizonBins: bins of width 2 (log2 minutes) put 1 and 3 min in [1,
// 4), 5 min in [4, 16), 0.5 min in [0.25, 1); the rate is the bin's mean,
// the x the geometric mean of its runs' minutes.
func TestHorizonBins(t *testing.T) {
	runs := []HorizonRun{
		{Agent: "b", HumanMinutes: 1, Y: 1}, {Agent: "b", HumanMinutes: 3, Y: 0}, {Agent: "b", HumanMinutes: 5, Y: 1},
		{Agent: "a", HumanMinutes: 0.5, Y: 1}, {Agent: "a", HumanMinutes: 0, Y: 1},
	}
	got, err := HorizonBins(runs, 2, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Agent != "a" || len(got[0].Bins) != 1 || len(got[1].Bins) != 2 {
		t.Fatalf("%+v", got)
	}
	a := got[0].Bins[0]
	if a.Lo != 0.25 || a.Hi != 1 || a.N != 1 || a.Rate != 1 {
		t.Errorf("a: %+v", a)
	}
	b := got[1].Bins[0]
	if b.Lo != 1 || b.Hi != 4 || b.N != 2 || b.Rate != 0.5 || math.Abs(b.Minutes-math.Sqrt(3)) > 1e-12 {
		t.Errorf("b: %+v", b)
	}
	if lo, hi := Wilson(1, 2, NormalQuantile(0.975)); b.CILow != lo || b.CIHigh != hi {
		t.Errorf("b interval %v %v", b.CILow, b.CIHigh)
	}
	if _, err := HorizonBins(runs, 0, 0.95); err == nil {
		t.Error("width 0: no error")
	}
}

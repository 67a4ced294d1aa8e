package analysis

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestHorizonTrendBandNumpy: the band against numpy (testdata/reference/
// horizon_band.py: np.polyfit per replicate, np.quantile type 7) on 40
// synthetic replicates with a NaN, a p50 below 1e-3 and a replicate with
// one usable point; relative tolerance 1e-9.
func TestHorizonTrendBandNumpy(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "reference", "horizon_band.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			switch s {
			case "nan":
				return math.NaN()
			case "inf":
				return math.Inf(1)
			}
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	agents := []string{"a", "b", "c", "d"}
	res := &HorizonResult{}
	for _, a := range agents {
		res.Agents = append(res.Agents, AgentHorizon{Agent: a})
	}
	days := map[string]float64{}
	var grid, wantLo, wantHi []float64
	for _, row := range rows[1:] {
		switch row[0] {
		case "input":
			rep, _ := strconv.Atoi(row[1])
			for len(res.Boot) <= rep {
				res.Boot = append(res.Boot, make([][]float64, len(agents)))
			}
			for i, a := range agents {
				if a == row[2] {
					res.Boot[rep][i] = []float64{num(row[4])}
				}
			}
			days[row[2]] = num(row[3])
		case "band":
			grid = append(grid, num(row[3]))
			wantLo, wantHi = append(wantLo, num(row[5])), append(wantHi, num(row[6]))
		}
	}
	lo, hi, used := HorizonTrendBand(res, 0, agents, days, grid, 0.9)
	if used != 39 {
		t.Errorf("%d replicates fitted, numpy 39", used)
	}
	for j := range grid {
		if math.Abs(lo[j]/wantLo[j]-1) > 1e-9 || math.Abs(hi[j]/wantHi[j]-1) > 1e-9 {
			t.Errorf("day %v: band %v–%v, numpy %v–%v", grid[j], lo[j], hi[j], wantLo[j], wantHi[j])
		}
		if !(lo[j] < hi[j]) {
			t.Errorf("day %v: lo %v ≥ hi %v", grid[j], lo[j], hi[j])
		}
	}
	// No replicates: NaN band.
	lo, hi, used = HorizonTrendBand(&HorizonResult{Agents: res.Agents}, 0, agents, days, grid[:1], 0.9)
	if used != 0 || !math.IsNaN(lo[0]) || !math.IsNaN(hi[0]) {
		t.Errorf("no replicates: %v %v %d", lo, hi, used)
	}
}

package analysis

import (
	"bufio"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestCombinations(t *testing.T) {
	got := Combinations([]int{2, 1, 3})
	want := [][]int{{0, 0, 0}, {0, 0, 1}, {0, 0, 2}, {1, 0, 0}, {1, 0, 1}, {1, 0, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Combinations = %v, want %v", got, want)
	}
	if c := Combinations(nil); len(c) != 1 || len(c[0]) != 0 {
		t.Fatalf("no choices: want one empty combination, got %v", c)
	}
	if c := Combinations([]int{2, 0}); c != nil {
		t.Fatalf("a choice with no value: want nil, got %v", c)
	}
	n := 0
	for _, c := range got {
		if OneAtATime(c, 2) {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("OneAtATime(·, 2): %d cells, want 3", n)
	}
}

// TestSummarizeSpreadReference compares with R's range and quantile(type = 7)
// (testdata/reference/multiverse_spread.R; committed output, tolerance 1e-12).
func TestSummarizeSpreadReference(t *testing.T) {
	f, err := os.Open("testdata/reference/multiverse_spread.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		x, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, x)
	}
	nan := math.NaN()
	s := SummarizeSpread([]float64{0.42, 0.31, 0.57, 0.44, 0.29, 0.61, 0.38},
		[]float64{0.30, 0.20, 0.41, nan, 0.15, 0.47, 0.25},
		[]float64{0.55, 0.44, 0.70, nan, 0.40, 0.79, 0.52})
	got := []float64{s.Min, s.Max, s.Range, s.Q10, s.Q50, s.Q90, s.CILow, s.CIHigh, s.CIWidth}
	if len(want) != len(got) {
		t.Fatalf("reference has %d values, want %d", len(want), len(got))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("value %d: got %.17g, R %.17g", i, got[i], want[i])
		}
	}
	if s.Cells != 7 || s.N != 7 {
		t.Errorf("cells %d, n %d", s.Cells, s.N)
	}
	e := SummarizeSpread([]float64{nan, math.Inf(1)}, []float64{nan, nan}, []float64{nan, nan})
	if e.N != 0 || !math.IsNaN(e.Min) || !math.IsNaN(e.CIWidth) {
		t.Errorf("no finite estimate: %+v", e)
	}
}

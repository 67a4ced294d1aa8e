package reportcmd

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHeadlinesMatchReference: the demo report's headline CSVs hold the
// point estimates that testdata/reference/headlines.py computes on the
// embedded demo files without rdeval code (its command is in its header):
// RExBench Table 5 means, score@k at k = 1 and the horizon fits (sklearn's
// objective solved by Newton's method). Tolerances: 5e-5 for the CSVs'
// 4 decimals, 1e-4 relative for the horizons' 6 significant digits and
// the two solvers' convergence.
func TestHeadlinesMatchReference(t *testing.T) {
	ref := map[string]float64{}
	b, err := os.ReadFile(filepath.Join("testdata", "reference", "headlines.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[2:] {
		f := strings.Split(line, ",")
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatal(line, err)
		}
		ref[f[0]+" "+f[1]] = v
	}
	dir := filepath.Join(t.TempDir(), "r")
	if err := runReport(t, &Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) (map[string]int, [][]string) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(name, err)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		return col, rows[1:]
	}
	checked := 0
	check := func(key, got string, tol float64, rel bool) {
		t.Helper()
		want, ok := ref[key]
		if !ok {
			t.Errorf("%s: not in the reference", key)
			return
		}
		v, err := strconv.ParseFloat(got, 64)
		d := math.Abs(v - want)
		if rel {
			d /= math.Abs(want)
		}
		if err != nil || !(d <= tol) {
			t.Errorf("%s = %s, reference %.10g", key, got, want)
		}
		checked++
	}
	c, rows := read("success.csv")
	for _, r := range rows {
		if r[c["task_id"]] == "all" {
			k := r[c["framework"]] + "/" + r[c["model"]] + "/" + r[c["hint_level"]]
			check("success "+k+"/final", r[c["final_success"]], 5e-5, false)
			check("success "+k+"/exec", r[c["execution_success"]], 5e-5, false)
		}
	}
	c, rows = read("scoreatk.csv")
	for _, r := range rows {
		if r[c["k"]] == "1" {
			check("scoreatk1 "+r[c["agent"]]+"/"+r[c["time_limit_s"]], r[c["estimate"]], 5e-5, false)
		}
	}
	c, rows = read("horizons.csv")
	for _, r := range rows {
		for _, q := range []string{"p50", "p80"} {
			check("horizon "+r[c["agent"]]+"/"+q, r[c[q+"_minutes"]], 1e-4, true)
		}
		check("horizon "+r[c["agent"]]+"/slope", r[c["slope"]], 1e-4, true)
	}
	if want := 18*2 + 10 + 5*3; checked != want {
		t.Errorf("checked %d values, want %d", checked, want)
	}
}
